'use strict';
// Data-parallel training with NCCL: linear regression y ≈ X·w + b fitted by gradient descent.
// Each worker thread (one per GPU) owns a shard of the data; every step it computes the gradient
// of the squared error on its shard with a nodecuda kernel, allReduce sums the gradients (and the
// loss) across ranks, and every rank applies the same update, so the weights stay identical
// everywhere. The first step's gradient is checked against the CPU; the loss must fall, and the
// fitted weights must come close to the true ones.
// Runs on any number of GPUs, one included: `node examples/data-parallel.js [gpus]`.
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const cuda = require('nodecuda');
const { driver, gpuarray, nccl, SourceModule } = cuda;

const FEATURES = 8;
const SAMPLES = 200_003; // in total, split across ranks (uneven shards are fine: sums, then / SAMPLES)
const STEPS = 60;
const LR = 0.5;
const TRUE_W = Array.from({ length: FEATURES }, (_, j) => (j % 2 ? -1 : 1) * (0.5 + j / 4));
const TRUE_B = 0.75;

/** Deterministic pseudo-random numbers (mulberry32), so every run and the CPU check agree. */
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Rank r's shard: rows [start, end) of the data set (each row seeded by its index), features in [-1, 1), y with a little noise. */
function shard(rank, nranks) {
  const start = Math.floor((SAMPLES * rank) / nranks);
  const end = Math.floor((SAMPLES * (rank + 1)) / nranks);
  const n = end - start;
  const X = new Float64Array(n * FEATURES);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const rand = rng(1234 + 7919 * (start + i)); // row by row: the same data set for any number of ranks
    let t = TRUE_B;
    for (let j = 0; j < FEATURES; j++) {
      const v = rand() * 2 - 1;
      X[i * FEATURES + j] = v;
      t += TRUE_W[j] * v;
    }
    y[i] = t + (rand() - 0.5) * 0.01;
  }
  return { X, y, n };
}

// grad[0..d) += 2·err·x_j, grad[d] += 2·err, grad[d+1] += err² over the rank's samples (sums:
// the division by the global sample count comes after allReduce).
const KERNEL = `
__global__ void gradient(const double *X, const double *y, const double *w, double *grad, int n, int d)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double err = w[d] - y[i];
  for (int j = 0; j < d; j++) err += X[(size_t)i * d + j] * w[j];
  for (int j = 0; j < d; j++) atomicAdd(&grad[j], 2.0 * err * X[(size_t)i * d + j]);
  atomicAdd(&grad[d], 2.0 * err);
  atomicAdd(&grad[d + 1], err * err);
}
__global__ void update(double *w, const double *grad, int d, double scale)
{
  int j = threadIdx.x;
  if (j <= d) w[j] -= scale * grad[j];
}
`;

/** The CPU's gradient sums of one shard at weights w (w[FEATURES] is the bias). */
function cpuGradient({ X, y, n }, w) {
  const g = new Float64Array(FEATURES + 2);
  for (let i = 0; i < n; i++) {
    let err = w[FEATURES] - y[i];
    for (let j = 0; j < FEATURES; j++) err += X[i * FEATURES + j] * w[j];
    for (let j = 0; j < FEATURES; j++) g[j] += 2 * err * X[i * FEATURES + j];
    g[FEATURES] += 2 * err;
    g[FEATURES + 1] += err * err;
  }
  return g;
}

async function train({ id, nranks, rank }) {
  driver.useDevice(rank);
  const comm = await new nccl.Communicator(nranks, id, rank, { device: rank, timeoutMs: 60_000 }).ready;
  const data = shard(rank, nranks);
  const mod = new SourceModule(KERNEL);
  const gradient = mod.getFunction('gradient');
  const update = mod.getFunction('update');
  const X = gpuarray.toGpu(data.X);
  const y = gpuarray.toGpu(data.y);
  const w = gpuarray.zeros([FEATURES + 1], 'float64');
  const grad = gpuarray.zeros([FEATURES + 2], 'float64');
  const launch = { block: [256], grid: [Math.ceil(data.n / 256)] };
  const losses = [];
  let firstGrad = null, cpuFirst = null;
  for (let step = 0; step < STEPS; step++) {
    grad.fill(0);
    gradient(X, y, w, grad, data.n, FEATURES, launch);
    if (step === 0) cpuFirst = Array.from(cpuGradient(data, new Float64Array(FEATURES + 1)));
    await comm.allReduceAsync(grad, { op: 'sum' }); // every rank now holds the global sums
    const g = grad.get();
    if (step === 0) firstGrad = Array.from(g);
    losses.push(g[FEATURES + 1] / SAMPLES);
    update(w, grad, FEATURES, LR / SAMPLES, { block: [32], grid: [1] });
    if (rank === 0 && (step % 10 === 0 || step === STEPS - 1)) {
      parentPort.postMessage({ progress: `step ${String(step + 1).padStart(2)}/${STEPS}: loss ${losses[step].toExponential(3)}` });
    }
  }
  const weights = Array.from(w.get());
  await comm.disposeAsync();
  return { rank, losses, weights, firstGrad, cpuFirst };
}

if (isMainThread) {
  if (!cuda.isAvailable()) {
    console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
    process.exit(0);
  }
  if (!nccl.isAvailable()) {
    console.log('NCCL (libnccl.so.2) is not installed: see docs/multigpu.md; nothing to run here.');
    process.exit(0);
  }
  const available = driver.Device.count();
  const nranks = Number(process.argv[2] ?? available);
  if (!Number.isInteger(nranks) || nranks < 1 || nranks > available) {
    console.error(`usage: node examples/data-parallel.js [gpus (1 to ${available})]`);
    process.exit(2);
  }
  console.log(`linear regression, ${FEATURES} features, ${SAMPLES} samples on ${nranks} GPU(s), ${STEPS} steps`);
  const id = nccl.getUniqueId(); // this thread stays alive until every rank has joined
  const runs = Array.from({ length: nranks }, (_, r) => new Promise((resolve, reject) => {
    const w = new Worker(__filename, { workerData: { id, nranks, rank: r } });
    let report = null;
    w.on('message', (m) => (m.progress ? console.log(m.progress) : (report = m)));
    w.on('error', reject);
    w.on('exit', (code) => (code === 0 && report ? resolve(report) : reject(new Error(`rank ${r} exited with code ${code}`))));
  }));
  Promise.all(runs).then((reports) => {
    const fail = (why) => {
      console.error(`MISMATCH: ${why}`);
      process.exit(1);
    };
    // The first step's allReduced gradient equals the sum of the shards' CPU gradients.
    const cpu = new Array(FEATURES + 2).fill(0);
    for (const r of reports) r.cpuFirst.forEach((v, j) => (cpu[j] += v));
    for (const r of reports) {
      const err = Math.max(...r.firstGrad.map((v, j) => Math.abs(v - cpu[j]) / Math.max(1, Math.abs(cpu[j]))));
      if (!(err < 1e-9)) fail(`rank ${r.rank}'s first gradient differs from the CPU's by ${err}`);
    }
    console.log('first gradient (allReduced) equals the CPU sum over shards: OK');
    const same = reports.every((r) => r.weights.every((v, j) => v === reports[0].weights[j]));
    if (!same) fail('ranks ended with different weights');
    const { losses, weights } = reports[0];
    if (!(losses[STEPS - 1] < losses[0] / 100)) fail(`loss fell only from ${losses[0]} to ${losses[STEPS - 1]}`);
    console.log(`loss ${losses[0].toExponential(3)} -> ${losses[STEPS - 1].toExponential(3)}: decreasing: OK`);
    const wErr = Math.max(...TRUE_W.map((v, j) => Math.abs(weights[j] - v)), Math.abs(weights[FEATURES] - TRUE_B));
    if (!(wErr < 0.02)) fail(`fitted weights are ${wErr} from the true ones`);
    console.log(`weights within ${wErr.toExponential(2)} of the true ones on every rank: OK`);
    console.log(`final weights: ${JSON.stringify(weights)}`);
    console.log('All checks passed.');
  }).catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  train(workerData).then((r) => parentPort.postMessage(r)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
