'use strict';
// Matrix products on cuBLAS (issue 22): matmul 4096³ and 8192³ in float32 (exact: TF32 off, as in
// the torch and CuPy peers), float16 and bfloat16 (float32 accumulation), and a batched 64×256³ product.
// Each batch writes into a preallocated `out`, like the peers' out= forms. Rows in TFLOP/s
// (2·M·N·K per product).

const cuda = require('../..');
const { gpuarray, random } = cuda;

const dispose = (ctx) => { for (const v of Object.values(ctx)) if (v && typeof v.dispose === 'function') v.dispose(); };

function matmul(dtype, m, k, n, batch = 1) {
  const lead = batch > 1 ? [batch] : [];
  return {
    op: `matmul ${dtype}${dtype === 'float32' ? ' (TF32 off)' : ''}`,
    size: batch > 1 ? `${batch}×${m}·${k}·${n}` : `${m}·${k}·${n}`,
    unit: 'TFLOPs', flops: 2 * batch * m * n * k,
    peer: { kind: 'matmul', dtype, m, k, n, batch },
    setup: () => {
      random.seed(22);
      const a = random.rand([...lead, m, k], 'float32'), b = random.rand([...lead, k, n], 'float32');
      const ctx = { a: a.astype(dtype), b: b.astype(dtype), out: gpuarray.empty([...lead, m, n], dtype) };
      a.dispose();
      b.dispose();
      return ctx;
    },
    run: ({ a, b, out }) => gpuarray.matmul(a, b, { out }),
    teardown: dispose,
  };
}

module.exports = [
  matmul('float32', 4096, 4096, 4096),
  matmul('float32', 8192, 8192, 8192),
  matmul('float16', 4096, 4096, 4096),
  matmul('float16', 8192, 8192, 8192),
  matmul('bfloat16', 4096, 4096, 4096),
  matmul('bfloat16', 8192, 8192, 8192),
  matmul('float32', 256, 256, 256, 64),
  matmul('float16', 256, 256, 256, 64),
];
