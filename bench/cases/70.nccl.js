'use strict';
// NCCL allReduce bandwidth, float32 sum in place, 8 B to 1 GiB (×8 steps), one thread driving
// every GPU through nccl.initAll (a group per batch). With n GPUs the row is nccl-tests' bus
// bandwidth, busbw = algbw × 2(n−1)/n (bytes = size × 2(n−1)/n). With one GPU there are no rows
// (below). These rows have no peer here: bench/multigpu.js compares several GPUs with
// torch.distributed, one process a GPU. Case format: see the header of bench/run.js.

const { driver, gpuarray, isAvailable, nccl } = require('../..');

const GiB = 2 ** 30;
const SIZES = [8, 64, 512, 4096, 32768, 262144, 2097152, 16777216, 134217728, GiB];
const label = (b) => (b >= GiB ? `${b / GiB} GiB` : b >= 2 ** 20 ? `${b / 2 ** 20} MiB` : b >= 1024 ? `${b / 1024} KiB` : `${b} B`);

let comms = null;
// One communicator per GPU for all cases, made on first use: blocking ones (their calls go
// through nccl.group(), as run() does), the fast path of one thread driving every GPU.
function communicators() {
  const devices = Array.from({ length: driver.Device.count() }, (_, i) => i);
  comms ??= nccl.initAllAsync(devices, { timeoutMs: 60_000, blocking: true });
  return comms;
}

const nranks = () => (isAvailable() ? driver.Device.count() : 1);

// One rank: NCCL's in-place allReduce does nothing (1.9 µs for 1 GiB on an H100, and the peers
// measured their own wrappers' overhead), so there is no row to compare; bench/multigpu.js
// measures several GPUs next to torch.distributed.
module.exports = nranks() < 2 ? [] : SIZES.map((size) => {
  const n = nranks();
  // Enough ops per batch that launch costs are timed over at least ~128 MiB moved.
  const iters = Math.max(1, Math.min(2000, Math.floor(2 ** 27 / size)));
  return {
    op: `NCCL allReduce f32 sum, ${n} ranks (busbw)`,
    size: label(size),
    unit: 'GBs',
    iters,
    bytes: ((size * 2 * (n - 1)) / n) * iters,
    setup: async () => {
      const cs = await communicators();
      const xs = cs.map((c) => {
        driver.useDevice(c.device);
        return gpuarray.ones([size / 4], 'float32');
      });
      driver.useDevice(0);
      return { cs, xs };
    },
    run: ({ cs, xs }) => {
      for (let i = 0; i < iters; i++) nccl.group(() => cs.forEach((c, r) => c.allReduce(xs[r])));
      // run.js synchronizes device 0's context; wait for the others here.
      for (let r = 1; r < cs.length; r++) {
        driver.useDevice(r);
        driver.Context.synchronize();
      }
      driver.useDevice(0);
    },
    teardown: ({ xs }) => xs.forEach((x) => x.dispose()),
  };
});
