// topk of one row of 2^24 float32 at k = 100 … 2^23 by selection or by the radix sort: run it
// twice, with NODECUDA_TOPK_SELECT_FRACTION=1 and =0, to see where the k limit (len/4) should be.
// CUDA events around one call, median of 17. node bench/topk-fraction.js
const cuda = require('..');
const { gpuarray, random } = cuda;
random.seed(1);
const x = random.rand([2 ** 24], 'float32');
const out = {};
for (const k of [100, 2 ** 10, 2 ** 11, 2 ** 12, 2 ** 13, 2 ** 20, 2 ** 22, 2 ** 23]) {
  const ts = [];
  for (let i = 0; i < 17; i++) {
    const s = new cuda.driver.Event(), e = new cuda.driver.Event();
    s.record(); const r = gpuarray.topk(x, k); e.record(); e.synchronize();
    ts.push(e.timeSince(s)); r.values.dispose(); r.indices.dispose();
  }
  ts.sort((a, b) => a - b);
  out[k] = ts[8].toFixed(3);
}
console.log(process.env.NODECUDA_TOPK_SELECT_FRACTION, JSON.stringify(out));
