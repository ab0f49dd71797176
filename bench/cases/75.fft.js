'use strict';
// FFTs through cuFFT (issue 22 targets: ≥ 0.98× torch.fft in the same run). Each op allocates its
// result, as torch.fft and cupy.fft do; unit: µs per transform.

const cuda = require('../..');
const { fft, gpuarray } = cuda;

const N = 2 ** 24;
const SIDE = 4096;

const dispose = (ctx) => { for (const v of Object.values(ctx)) if (v && typeof v.dispose === 'function') v.dispose(); };
// Deterministic data in [0, 1): a ramp times a constant, as complex (re, im) or real.
const data = (n, dtype) => gpuarray.arange(0, n, 1, 'float32').mul(1 / n).astype(dtype);

function fftCase(op, label, size, shape, dtype, run) {
  const n = shape.reduce((p, k) => p * k, 1);
  return {
    op: label, size, unit: 'us', bytes: n * (dtype === 'complex64' ? 8 : 4),
    peer: { kind: 'fft', op, shape, dtype },
    setup: () => ({ x: data(n, dtype).reshape(shape) }),
    run: ({ x }) => run(x).dispose(),
    teardown: dispose,
  };
}

module.exports = [
  fftCase('fft', 'fft complex64', '2^24', [N], 'complex64', (x) => fft.fft(x)),
  fftCase('rfft', 'rfft float32', '2^24', [N], 'float32', (x) => fft.rfft(x)),
  fftCase('fft2', 'fft2 complex64', `${SIDE}^2`, [SIDE, SIDE], 'complex64', (x) => fft.fft2(x)),
];
