'use strict';
// worker_threads: each worker loads its own instance of nodecuda and uses the GPU on its own
// (device 0's primary context, shared by all threads): it compiles a SourceModule, launches it
// with driver.Out, and runs GPUArray arithmetic and a reduction, several rounds each, checking
// every result against values computed in JavaScript. The main thread does the same work at the
// same time, then collects and checks the workers' reports.
// Run with `node examples/worker-threads.js [workers]` (default 4).
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const cuda = require('nodecuda');
const { driver, gpuarray, SourceModule } = cuda;

const ROUNDS = 5;
const N = 1_000_003;

/** The GPU work of one thread; returns { bad, sums } (bad: number of wrong values). */
function work(id) {
  const mod = new SourceModule(`
__global__ void fill(float *out, int n, int id, int round)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = id * 1000 + round * 100 + (i % 97);
}
`);
  const fill = mod.getFunction('fill');
  const out = new Float32Array(N);
  let bad = 0;
  const sums = [];
  for (let round = 0; round < ROUNDS; round++) {
    // 1. A kernel with driver.Out: every value is a small integer, exact in float32.
    fill(driver.Out(out), N, id, round, { block: [256], grid: [Math.ceil(N / 256)] });
    for (let i = 0; i < N; i++) if (out[i] !== id * 1000 + round * 100 + (i % 97)) bad++;
    // 2. GPUArray: sum of (id + round + 1) * k for k < N, exact in float64 (below 2^53).
    const sum = cuda.tidy(() => gpuarray.arange(0, N, 1, 'float64').mul(id + round + 1).sum().item());
    const want = (id + round + 1) * ((N - 1) * N) / 2;
    if (sum !== want) bad++;
    sums.push(sum);
  }
  return { bad, sums };
}

if (isMainThread) {
  if (!cuda.isAvailable()) {
    console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
    process.exit(0);
  }
  const count = Number(process.argv[2] ?? 4);
  if (!Number.isInteger(count) || count < 1) {
    console.error('usage: node examples/worker-threads.js [workers (a positive integer)]');
    process.exit(2);
  }
  console.log(`device 0: ${new driver.Device(0).name()}; starting ${count} workers`);
  const t0 = Date.now();
  const reports = Array.from({ length: count }, (_, k) => new Promise((resolve, reject) => {
    const id = k + 1;
    const w = new Worker(__filename, { workerData: { id } });
    let report = null;
    w.on('message', (m) => { report = m; });
    w.on('error', reject);
    w.on('exit', (code) => (code === 0 && report ? resolve(report) : reject(new Error(`worker ${id} exited with code ${code}`))));
  }));
  // The main thread works too while the workers run (id 0).
  const mine = { id: 0, ...work(0) };
  Promise.all(reports).then((all) => {
    let failed = false;
    for (const r of [mine, ...all]) {
      const who = r.id === 0 ? 'main thread' : `worker ${r.id}`;
      console.log(`${who.padEnd(11)}: ${ROUNDS} rounds, sums ${r.sums.map((s) => s.toExponential(6)).join(' ')}, ` +
        `${r.bad} wrong values${r.bad === 0 ? ': OK' : ''}`);
      if (r.bad !== 0) failed = true;
    }
    if (failed) {
      console.error('MISMATCH: some thread computed wrong values');
      process.exit(1);
    }
    console.log(`${count} workers and the main thread in ${Date.now() - t0} ms: OK`);
    console.log('All checks passed.');
  }).catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  const { id } = workerData;
  parentPort.postMessage({ id, ...work(id) });
}
