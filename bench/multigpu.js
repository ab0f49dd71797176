'use strict';
// Several GPUs: NCCL allReduce bus bandwidth (float32 sum, in place, 8 B to 1 GiB) and peer copy
// GB/s, nodecuda next to PyTorch in the same run (bench/multigpu.py: torch.distributed with the
// NCCL backend, one process a GPU; torch.Tensor.to / copy_ for peer copies).
//   node bench/multigpu.js [--gpus N] [--json file] [--allreduce-only]
// nodecuda drives every GPU from one thread (nccl.initAll, a group per step, as nccl-tests' -g N),
// and again with one rank per worker_thread (as torch's process per GPU);
// each size runs `iters` steps after 5 warm-ups and is timed by the wall clock after every device
// synchronised. busbw = size × 2(n−1)/n / time (nccl-tests' definition). NVLink multicast (NVLS)
// stays off (NCCL_NVLS_ENABLE=0) on shared machines.
process.env.NCCL_NVLS_ENABLE = '0';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { driver, gpuarray, nccl, withDevice, isAvailable } = require('..');

const GiB = 2 ** 30;
const SIZES = Array.from({ length: 10 }, (_, i) => 8 * 8 ** i); // 8 B … 1 GiB
const itersFor = (b) => Math.max(20, Math.min(1000, Math.floor(2 ** 32 / b)));
const label = (b) => (b >= GiB ? `${b / GiB} GiB` : b >= 2 ** 20 ? `${b / 2 ** 20} MiB` : b >= 1024 ? `${b / 1024} KiB` : `${b} B`);
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};

function syncAll(n) {
  for (let r = 0; r < n; r++) withDevice(r, () => driver.Context.synchronize());
}

async function allReduceRows(n) {
  const comms = await nccl.initAllAsync(Array.from({ length: n }, (_, r) => r), { timeoutMs: 120_000, blocking: true });
  const rows = [];
  for (const size of SIZES) {
    const xs = comms.map((c, r) => withDevice(r, () => gpuarray.ones([size / 4], 'float32')));
    const step = () => nccl.group(() => comms.forEach((c, r) => c.allReduce(xs[r])));
    const iters = itersFor(size);
    for (let i = 0; i < 5; i++) step();
    syncAll(n);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) step();
    syncAll(n);
    const s = Number(process.hrtime.bigint() - t0) / 1e9 / iters;
    rows.push({ size, us: s * 1e6, busbw: (size * 2 * (n - 1)) / n / s / 1e9 });
    xs.forEach((x) => x.dispose());
  }
  for (const c of comms) await c.disposeAsync();
  return rows;
}

// One rank per worker_thread (like torch's process per GPU): each times its own allReduce calls
// between barriers; the slowest rank's time counts.
const WORKER = `
  const { parentPort, workerData: { id, rank, n, sizes, bar } } = require('node:worker_threads');
  const { driver, gpuarray, nccl } = require(${JSON.stringify(path.join(__dirname, '..'))});
  const flag = new Int32Array(bar);
  let round = 0;
  const barrier = () => { // all ranks arrive, then go on together
    round++;
    if (Atomics.add(flag, 0, 1) === round * n - 1) Atomics.notify(flag, 0);
    while (Atomics.load(flag, 0) < round * n) Atomics.wait(flag, 0, Atomics.load(flag, 0), 10);
  };
  (async () => {
    driver.useDevice(rank);
    const comm = await new nccl.Communicator(n, id, rank, { device: rank, timeoutMs: 120000 }).ready;
    const out = [];
    for (const [size, iters] of sizes) {
      const x = gpuarray.ones([size / 4], 'float32');
      for (let i = 0; i < 5; i++) comm.allReduce(x);
      driver.Context.synchronize();
      barrier();
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < iters; i++) comm.allReduce(x);
      driver.Context.synchronize();
      out.push(Number(process.hrtime.bigint() - t0) / 1e9 / iters);
      x.dispose();
    }
    await comm.disposeAsync();
    parentPort.postMessage(out);
  })().catch((e) => { console.error(e); process.exit(1); });`;

async function workerRows(n) {
  const { Worker } = require('node:worker_threads');
  const id = nccl.getUniqueId();
  const sizes = SIZES.map((b) => [b, itersFor(b)]);
  const bar = new SharedArrayBuffer(4);
  const times = await Promise.all(Array.from({ length: n }, (_, rank) => new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData: { id, rank, n, sizes, bar } });
    w.once('message', resolve);
    w.once('error', reject);
  })));
  return SIZES.map((size, i) => {
    const s = Math.max(...times.map((t) => t[i]));
    return { size, us: s * 1e6, busbw: (size * 2 * (n - 1)) / n / s / 1e9 };
  });
}

function peerRows() {
  const rows = [];
  const bytes = 256 * 2 ** 20;
  const a = withDevice(0, () => gpuarray.ones([bytes / 4], 'float32'));
  const b = withDevice(1, () => gpuarray.empty([bytes / 4], 'float32'));
  const time = (name, fn, iters = 20) => {
    fn();
    syncAll(2);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) fn();
    syncAll(2);
    const s = Number(process.hrtime.bigint() - t0) / 1e9 / iters;
    rows.push({ name, gbs: bytes / s / 1e9 });
  };
  time('a.copyTo(b) 0→1, 256 MiB', () => a.copyTo(b));
  time('a.to(1) 0→1, 256 MiB (allocates)', () => a.to(1).dispose());
  const peers = driver.canAccessPeer(0, 1) && driver.canAccessPeer(1, 0);
  if (peers) {
    withDevice(0, () => driver.Context.enablePeerAccess(1));
    withDevice(1, () => driver.Context.enablePeerAccess(0));
    time('a.copyTo(b) 0→1, 256 MiB, peer access on', () => a.copyTo(b));
  }
  a.dispose();
  b.dispose();
  return { rows, peers };
}

async function main() {
  if (!isAvailable() || !nccl.isAvailable()) {
    console.log('multigpu bench: needs a GPU driver and libnccl; nothing to run here.');
    return;
  }
  const n = Number(arg('--gpus', driver.Device.count()));
  if (n < 2) {
    console.log(`multigpu bench: needs 2 GPUs, ${driver.Device.count()} visible.`);
    return;
  }
  const ours = await allReduceRows(n);
  const perThread = await workerRows(n);
  if (process.argv.includes('--allreduce-only')) { // e.g. to compare NCCL_COMM_BLOCKING=1 runs
    console.log(`| size | one thread µs | busbw GB/s | thread/GPU µs | busbw GB/s |  (NCCL_COMM_BLOCKING=${process.env.NCCL_COMM_BLOCKING ?? 'unset'})`);
    ours.forEach((r, i) => console.log(`| ${label(r.size)} | ${r.us.toFixed(1)} | ${r.busbw.toFixed(2)} | ${perThread[i].us.toFixed(1)} | ${perThread[i].busbw.toFixed(2)} |`));
    return;
  }
  const peer = peerRows();
  const py = spawnSync('python3', [path.join(__dirname, 'multigpu.py'), String(n), JSON.stringify(SIZES.map((b) => [b, itersFor(b)]))],
    { encoding: 'utf8', env: { ...process.env, NCCL_NVLS_ENABLE: '0', TORCH_SYMM_MEM_DISABLE_MULTICAST: '1' }, timeout: 400_000 });
  let torch = null;
  try {
    torch = JSON.parse(py.stdout.trim().split('\n').pop());
  } catch {
    console.log(`torch peer failed (${py.status}): ${py.stderr.slice(-2000)}`);
  }
  const v = nccl.version();
  console.log(`\n## NCCL allReduce float32 sum, in place, ${n} GPUs (${new driver.Device(0).name()}); NCCL ${v.major}.${v.minor}.${v.patch}` +
    (torch ? `, torch ${torch.version} (NCCL ${torch.nccl})` : ''));
  console.log('nodecuda: one thread drives every GPU (nccl.initAll, a group a step) | a worker_thread a GPU; torch: a process a GPU');
  console.log('| size | one thread µs | busbw GB/s | ×torch | thread/GPU µs | busbw GB/s | ×torch | torch µs | torch busbw GB/s |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [i, r] of ours.entries()) {
    const t = torch?.allreduce[i], w = perThread[i];
    const x = (v) => (t ? (v.busbw / t.busbw).toFixed(2) : '—');
    console.log(`| ${label(r.size)} | ${r.us.toFixed(1)} | ${r.busbw.toFixed(2)} | ${x(r)} | ${w.us.toFixed(1)} | ${w.busbw.toFixed(2)} | ${x(w)} | ` +
      `${t ? t.us.toFixed(1) : '—'} | ${t ? t.busbw.toFixed(2) : '—'} |`);
  }
  console.log(`\n## Peer copy, device 0 → 1 (canAccessPeer: ${peer.peers})`);
  console.log('| copy | nodecuda GB/s | torch | torch GB/s |');
  console.log('|---|---:|---|---:|');
  const tp = torch?.peer ?? [];
  peer.rows.forEach((r, i) => console.log(`| ${r.name} | ${r.gbs.toFixed(1)} | ${tp[i]?.name ?? '—'} | ${tp[i] ? tp[i].gbs.toFixed(1) : '—'} |`));
  const out = arg('--json');
  if (out) fs.writeFileSync(out, JSON.stringify({ n, ours, perThread, peer, torch }, null, 1));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
