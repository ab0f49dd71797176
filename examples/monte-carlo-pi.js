'use strict';
// Monte Carlo estimate of pi: points (x, y) uniform in the unit square (random.rand, float32);
// the fraction with x^2 + y^2 <= 1 tends to pi/4. Each batch is counted twice on the GPU, with
// GPUArray operators and a sum, and with one ReductionKernel, and both counts must equal a CPU
// count of the same points. Prints the running estimate after each batch, then "pi estimate".
// Run with `node examples/monte-carlo-pi.js [batches]`.
const cuda = require('nodecuda');
const { random, ReductionKernel, tidy } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

const batches = Number(process.argv[2] ?? 8);
if (!Number.isInteger(batches) || batches < 1) {
  console.error('usage: node examples/monte-carlo-pi.js [batches (a positive integer)]');
  process.exit(2);
}
const batchSize = 1 << 22;

// __fmul_rn/__fadd_rn round each operation (no fused multiply-add), as the operators below and
// the CPU check do, so all three counts agree exactly.
const countInside = new ReductionKernel('int64', {
  neutral: 0,
  reduceExpr: 'a + b',
  mapExpr: '__fadd_rn(__fmul_rn(x[i], x[i]), __fmul_rn(y[i], y[i])) <= 1.0f ? 1 : 0',
  arguments: 'const float *x, const float *y',
});

random.seed(20240521);
let inside = 0;
let total = 0;
const t0 = process.hrtime.bigint();
for (let b = 1; b <= batches; b++) {
  // tidy() frees every GPUArray made inside (the points, the temporaries, the 0-d results).
  const [byOperators, byKernel, hx, hy] = tidy(() => {
    const x = random.rand(batchSize);
    const y = random.rand(batchSize);
    return [
      // 1. Operators: x*x + y*y <= 1 is a bool array; its sum is an int64 (a bigint from item()).
      Number(x.mul(x).add(y.mul(y)).le(1).sum().item()),
      // 2. One fused reduction kernel: no temporaries.
      Number(countInside(x, y).item()),
      x.get(),
      y.get(),
    ];
  });
  // 3. The CPU, on the same float32 numbers.
  let byCpu = 0;
  for (let i = 0; i < batchSize; i++) {
    if (Math.fround(Math.fround(hx[i] * hx[i]) + Math.fround(hy[i] * hy[i])) <= 1) byCpu++;
  }
  if (byOperators !== byCpu || byKernel !== byCpu) {
    console.error(`MISMATCH in batch ${b}: operators ${byOperators}, ReductionKernel ${byKernel}, CPU ${byCpu}`);
    process.exit(1);
  }
  inside += byKernel;
  total += batchSize;
  console.log(`batch ${b}/${batches}: ${byKernel} of ${batchSize} inside; running estimate ${(4 * inside / total).toFixed(6)}`);
}
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const pi = (4 * inside) / total;
console.log(`GPU counts equal the CPU counts in every batch: OK`);
console.log(`pi estimate: ${pi.toFixed(6)} from ${total} points (error ${Math.abs(pi - Math.PI).toExponential(2)}; ${seconds.toFixed(2)} s with the CPU checks)`);
// The standard error is 4 * sqrt(p(1-p)/N) ~ 1.6 / sqrt(N): 2.8e-4 for 8 batches.
if (!(Math.abs(pi - Math.PI) < 0.01)) {
  console.error('MISMATCH: the estimate is further than 0.01 from pi');
  process.exit(1);
}
console.log('All checks passed.');
