'use strict';
// NCCL allReduce across GPUs with worker_threads: the main thread makes one unique id and starts
// one worker per GPU; each worker joins the communicator as rank r on device r, fills an array
// with r + 1, sums it across ranks and checks every element against the CPU's
// 1 + 2 + … + nranks, then times allReduce of 64 MiB and prints its bandwidth (nccl-tests' algbw
// and busbw = algbw × 2(n−1)/n; with one GPU only algbw is meaningful: nothing crosses a link).
// Runs on any number of GPUs, one included: `node examples/multigpu-allreduce.js [gpus]`.
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const cuda = require('nodecuda');
const { driver, gpuarray, nccl } = cuda;

const N = 1_000_003; // checked elements (odd, so no size is a multiple of anything)
const BENCH_BYTES = 64 << 20;
const ITERS = 20;

async function rank({ id, nranks, rank }) {
  driver.useDevice(rank); // this thread's arrays and kernels live on GPU `rank`
  const comm = await new nccl.Communicator(nranks, id, rank, { device: rank, timeoutMs: 60_000 }).ready;
  // 1. Correctness: every element becomes 1 + 2 + … + nranks.
  const x = gpuarray.full([N], rank + 1, 'float32');
  await comm.allReduceAsync(x, { op: 'sum' });
  const got = x.get();
  const want = (nranks * (nranks + 1)) / 2;
  let bad = 0;
  for (let i = 0; i < N; i++) if (got[i] !== want) bad++;
  // 2. Bandwidth: a warm-up, then ITERS allReduces queued on one stream and awaited once.
  const s = new driver.Stream();
  const big = gpuarray.ones([BENCH_BYTES / 4], 'float32', { stream: s });
  comm.allReduce(big, { stream: s });
  await comm.synchronizeAsync({ stream: s });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < ITERS; i++) comm.allReduce(big, { stream: s });
  await comm.synchronizeAsync({ stream: s });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9 / ITERS;
  await comm.disposeAsync();
  s.dispose();
  return { rank, bad, seconds };
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
    console.error(`usage: node examples/multigpu-allreduce.js [gpus (1 to ${available})]`);
    process.exit(2);
  }
  const v = nccl.version();
  console.log(`NCCL ${v.major}.${v.minor}.${v.patch}; ${nranks} GPU(s), one worker thread each`);
  // The id is made here, and this thread stays alive until every rank has joined.
  const id = nccl.getUniqueId();
  const runs = Array.from({ length: nranks }, (_, r) => new Promise((resolve, reject) => {
    const w = new Worker(__filename, { workerData: { id, nranks, rank: r } });
    let report = null;
    w.on('message', (m) => { report = m; });
    w.on('error', reject);
    w.on('exit', (code) => (code === 0 && report ? resolve(report) : reject(new Error(`rank ${r} exited with code ${code}`))));
  }));
  Promise.all(runs).then((reports) => {
    let failed = false;
    for (const r of reports) {
      console.log(`rank ${r.rank}: ${N} elements = ${(nranks * (nranks + 1)) / 2}, ${r.bad} wrong${r.bad === 0 ? ': OK' : ''}`);
      if (r.bad) failed = true;
    }
    if (failed) {
      console.error('MISMATCH: some rank got wrong sums');
      process.exit(1);
    }
    const seconds = Math.max(...reports.map((r) => r.seconds));
    const algbw = BENCH_BYTES / seconds / 1e9;
    const busbw = (algbw * 2 * (nranks - 1)) / nranks;
    console.log(`allReduce 64 MiB float32 on ${nranks} GPU(s): ${(seconds * 1e3).toFixed(3)} ms, algbw ${algbw.toFixed(1)} GB/s, ` +
      `busbw ${busbw.toFixed(1)} GB/s${nranks === 1 ? ' (one rank: no link crossed, busbw is 0 by definition)' : ''}`);
    console.log('All checks passed.');
  }).catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  rank(workerData).then((r) => parentPort.postMessage(r)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
