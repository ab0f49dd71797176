'use strict';
// A small multilayer perceptron's forward pass on the GPU: probabilities = softmax(relu(x·W1 + b1)·W2
// + b2) with gpuarray.matmul (cuBLAS) and elementwise operators and reductions, checked against the
// same computation on the CPU in float64; then the same pass with transposed weights (read by cuBLAS
// without a copy) and in float16. Run with `node examples/mlp.js`.
const cuda = require('nodecuda');
const { gpuarray, cumath, random } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

function fail(message) {
  console.error(`MISMATCH: ${message}`);
  process.exit(1);
}

const BATCH = 256, IN = 784, HIDDEN = 512, OUT = 10;
random.seed(22);
const x = random.rand([BATCH, IN]); // float32 in [0, 1): a batch of "images"
const w1 = random.randn([IN, HIDDEN]).mul(Math.sqrt(2 / IN)); // He initialisation
const b1 = random.randn([HIDDEN]).mul(0.1);
const w2 = random.randn([HIDDEN, OUT]).mul(Math.sqrt(2 / HIDDEN));
const b2 = random.randn([OUT]).mul(0.1);

/** The forward pass on the GPU; temporaries are freed by tidy(), the three results kept. */
function forward(xs, layer1, bias1, layer2, bias2) {
  return cuda.tidy(() => {
    const hidden = gpuarray.maximum(xs.matmul(layer1).add(bias1), 0); // relu(x·W1 + b1)
    const logits = hidden.matmul(layer2).add(bias2);
    const shifted = logits.sub(logits.max({ axis: 1, keepdims: true })); // softmax, stable
    const e = cumath.exp(shifted);
    const probs = e.div(e.sum({ axis: 1, keepdims: true }));
    return { hidden, logits, probs };
  });
}

const t0 = process.hrtime.bigint();
const gpu = forward(x, w1, b1, w2, b2);
const g = { hidden: gpu.hidden.get(), logits: gpu.logits.get(), probs: gpu.probs.get() };
console.log(`forward pass of ${BATCH}x${IN} -> ${HIDDEN} -> ${OUT} on the GPU: ` +
  `${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)} ms (first call, with compilation)`);

// --- the same on the CPU, in float64 ------------------------------------------------------------
const [hx, hw1, hb1, hw2, hb2] = [x, w1, b1, w2, b2].map((a) => a.get());
function cpuMatmul(a, b, m, k, n) {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let l = 0; l < k; l++) {
      const v = a[i * k + l];
      if (v === 0) continue;
      for (let j = 0; j < n; j++) c[i * n + j] += v * b[l * n + j];
    }
  }
  return c;
}
const hidden = cpuMatmul(hx, hw1, BATCH, IN, HIDDEN).map((v, i) => Math.max(v + hb1[i % HIDDEN], 0));
const logits = cpuMatmul(hidden, hw2, BATCH, HIDDEN, OUT).map((v, i) => v + hb2[i % OUT]);
const probs = new Float64Array(BATCH * OUT);
for (let r = 0; r < BATCH; r++) {
  const row = logits.subarray(r * OUT, (r + 1) * OUT);
  const m = Math.max(...row);
  const e = row.map((v) => Math.exp(v - m));
  const s = e.reduce((p, q) => p + q, 0);
  e.forEach((v, j) => { probs[r * OUT + j] = v / s; });
}

/** Largest |got - want| relative to the largest |want|: float32 GEMMs are good to ~1e-6 here. */
function check(label, got, want, tol) {
  let err = 0, scale = 0;
  for (let i = 0; i < want.length; i++) {
    err = Math.max(err, Math.abs(got[i] - want[i]));
    scale = Math.max(scale, Math.abs(want[i]));
  }
  const rel = err / scale;
  if (!(rel <= tol)) fail(`${label}: error ${rel.toExponential(2)} > ${tol}`);
  console.log(`${label}: OK (max error ${rel.toExponential(2)} of the largest value)`);
}
check(`hidden = relu(x·W1 + b1), ${BATCH}x${HIDDEN}, against the CPU`, g.hidden, hidden, 1e-5);
check(`logits = hidden·W2 + b2, ${BATCH}x${OUT}, against the CPU`, g.logits, logits, 1e-5);
check('softmax probabilities against the CPU', g.probs, probs, 1e-5);
let worst = 0;
for (let r = 0; r < BATCH; r++) {
  let s = 0;
  for (let j = 0; j < OUT; j++) s += g.probs[r * OUT + j];
  worst = Math.max(worst, Math.abs(s - 1));
}
if (!(worst < 1e-5)) fail(`softmax rows sum to 1 within ${worst}`);
console.log('softmax rows sum to 1: OK');

// --- weights stored transposed (as PyTorch's Linear keeps them): x·W1ᵀ through a view ---------
const w1t = w1.T.copy(); // (HIDDEN, IN), C order
const viaView = cuda.tidy(() => x.matmul(w1t.T).add(b1).get()); // w1t.T is a view: no copy
const layer1 = cpuMatmul(hx, hw1, BATCH, IN, HIDDEN).map((v, i) => v + hb1[i % HIDDEN]);
check('x·W1tᵀ through a transposed view equals x·W1', viaView, layer1, 1e-5);

// --- float16 weights and activations (float32 accumulation inside cuBLAS) ------------------------
const half = forward(...[x, w1, b1, w2, b2].map((a) => a.astype('float16')));
const hp = half.probs.astype('float32').get();
check('float16 forward pass against the CPU', hp, probs, 2e-2);
let agree = 0;
for (let r = 0; r < BATCH; r++) {
  const arg = (p) => { let b = 0; for (let j = 1; j < OUT; j++) if (p[r * OUT + j] > p[r * OUT + b]) b = j; return b; };
  if (arg(hp) === arg(probs)) agree++;
}
console.log(`float16 predictions equal the CPU's for ${agree} of ${BATCH} rows`);
if (agree < BATCH * 0.9) fail(`float16 predictions agree for only ${agree} of ${BATCH} rows`);
console.log('All checks passed.');
