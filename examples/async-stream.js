'use strict';
// Asynchronous work on streams: page-locked host memory (driver.pagelockedEmpty), then
// memcpyHtodAsync -> kernel launch -> memcpyDtohAsync queued on a driver.Stream without waiting in
// between, timed with driver.Event. Then the same split into chunks over several streams, so that
// copies and kernels of different chunks can overlap. Both results are checked against the CPU.
// Run with `node examples/async-stream.js`.
const cuda = require('nodecuda');
const { driver, SourceModule } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

const mod = new SourceModule(`
__global__ void affine(float *y, const float *x, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
`);
const affine = mod.getFunction('affine');

function check(label, got, x) {
  for (let i = 0; i < x.length; i++) {
    const want = Math.fround(2 * x[i] + 1); // 2x is exact, so one rounding either way
    if (got[i] !== want) {
      console.error(`MISMATCH in ${label} at ${i}: got ${got[i]}, expected ${want}`);
      process.exit(1);
    }
  }
  console.log(`${label}: OK`);
}

const gbps = (bytes, ms) => (bytes / ms / 1e6).toFixed(1);

async function main() {
  const n = 1 << 24; // 64 MiB of float32 each way
  const bytes = 4 * n;
  const hostIn = driver.pagelockedEmpty(n, 'float32'); // a Float32Array in page-locked memory
  const hostOut = driver.pagelockedEmpty(n, 'float32');
  for (let i = 0; i < n; i++) hostIn[i] = (i % 1000) * 0.25 - 100;
  const dIn = driver.memAlloc(bytes);
  const dOut = driver.memAlloc(bytes);
  const block = 256;

  // --- One stream: copy in, compute, copy out; nothing waits until the end -------------------
  const stream = new driver.Stream();
  const [start, copied, computed, end] = [0, 1, 2, 3].map(() => new driver.Event());
  start.record(stream);
  const up = driver.memcpyHtodAsync(dIn, hostIn, stream);
  copied.record(stream);
  affine(dOut, dIn, n, { block: [block], grid: [Math.ceil(n / block)], stream });
  computed.record(stream);
  const down = driver.memcpyDtohAsync(hostOut, dOut, stream);
  end.record(stream);
  console.log(`queued on one stream; stream.isDone() right after queueing: ${stream.isDone()}`);
  await Promise.all([up, down]); // the event loop is free meanwhile
  await end.synchronizeAsync();
  const tUp = copied.timeSince(start);
  const tKernel = computed.timeSince(copied);
  const tDown = end.timeSince(computed);
  console.log(`  host->device ${tUp.toFixed(3)} ms (${gbps(bytes, tUp)} GB/s), kernel ${tKernel.toFixed(3)} ms, ` +
    `device->host ${tDown.toFixed(3)} ms (${gbps(bytes, tDown)} GB/s); total ${end.timeSince(start).toFixed(3)} ms`);
  check('one stream: y = 2x + 1', hostOut, hostIn);

  // --- Several streams, one chunk each: chunk k's copies overlap chunk j's kernel --------------
  hostOut.fill(0);
  const chunks = 8;
  const streams = Array.from({ length: 4 }, () => new driver.Stream());
  // Events on the legacy (default) stream: ordinary streams' later work waits for t0, and t1
  // waits for the work they queued before it, so t0..t1 spans all chunks.
  const t0 = new driver.Event().record();
  const pending = [];
  const chunkLen = Math.ceil(n / chunks);
  for (let k = 0; k < chunks; k++) {
    const s = streams[k % streams.length];
    const lo = k * chunkLen;
    const len = Math.min(chunkLen, n - lo);
    const off = BigInt(4 * lo); // device addresses are bigints: pointer arithmetic on .ptr
    // subarray() views of page-locked arrays are page-locked too.
    pending.push(driver.memcpyHtodAsync(dIn.ptr + off, hostIn.subarray(lo, lo + len), s));
    affine(dOut.ptr + off, dIn.ptr + off, len, { block: [block], grid: [Math.ceil(len / block)], stream: s });
    pending.push(driver.memcpyDtohAsync(hostOut.subarray(lo, lo + len), dOut.ptr + off, s));
  }
  const t1 = new driver.Event().record(); // legacy stream: reached after the work queued above
  await Promise.all(pending);
  await t1.synchronizeAsync();
  console.log(`${chunks} chunks on ${streams.length} streams: ${t1.timeSince(t0).toFixed(3)} ms for ` +
    `${(2 * bytes / 2 ** 20).toFixed(0)} MiB of copies and the kernels`);
  check(`${chunks} chunks on ${streams.length} streams`, hostOut, hostIn);

  for (const s of [stream, ...streams]) s.dispose();
  dIn.free();
  dOut.free();
  driver.unregisterHostMemory(hostIn);
  driver.unregisterHostMemory(hostOut);
  console.log('All checks passed.');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
