/**
 * Memory used on another stream than the one it is freed on (src/context.cc DeviceMem::Release):
 * the free waits for that stream's work on the GPU, so the pool and the block cache never hand
 * the memory to a new owner while a kernel or copy queued earlier may still read it. Each test
 * queues a kernel or copy that waits ~50 ms before reading A, frees or drops A at once, makes a
 * new allocation of A's size and fills it with other data: the reader must still see A's data.
 */
import * as cuda from '../lib';
import { native } from '../lib/cuda/native';
import { describeGpu } from './helpers';

const { gpuarray, driver, SourceModule } = cuda;
type GPUArray = ReturnType<typeof gpuarray.zeros>;

const SRC = `
__global__ void spin_copy(long long cycles, const int *src, int *dst, int n) {
  long long start = clock64();
  while (clock64() - start < cycles) { }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) dst[i] = src[i];
}
__global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) { }
}`;

const SIZES: Array<[string, number]> = [['a block-cache size (4000 B)', 1000], ['a pool size (4 MiB)', 1 << 20]];

describeGpu('memory used on other streams', () => {
  let spinCopy: ReturnType<InstanceType<typeof SourceModule>['getFunction']>;
  let spinFn: ReturnType<InstanceType<typeof SourceModule>['getFunction']>;
  let cycles = 0n;
  const gc = (): void => {
    (globalThis as { gc?: () => void }).gc?.();
    native.memCollect();
  };

  beforeAll(() => {
    const mod = new SourceModule(SRC);
    spinCopy = mod.getFunction('spin_copy');
    spinFn = mod.getFunction('spin');
    const khz = new driver.Device(0).getAttribute('CLOCK_RATE') || 2_000_000;
    cycles = BigInt(Math.round(khz * 50)); // ~50 ms
  });

  /** Queues on `stream`: wait ~50 ms, then copy `src` into `dst`. */
  const readLater = (src: GPUArray, dst: GPUArray, n: number, stream: InstanceType<typeof driver.Stream> | null) =>
    spinCopy(cycles, src, dst, n, { block: [256], grid: [64], stream });

  /** A new legacy-stream allocation of n int32 filled with 2 (the next owner of freed memory). */
  const nextOwner = (n: number): GPUArray => gpuarray.empty([n], 'int32').fill(2);

  const expectAllOnes = (h: ArrayBufferView) => {
    const a = h as Int32Array;
    const bad = a.findIndex((v) => v !== 1);
    expect(bad === -1 ? 'all 1' : `element ${bad} is ${a[bad]}`).toBe('all 1');
  };

  for (const [what, n] of SIZES) {
    test(`kernel on a non-blocking stream, A freed (${what})`, () => {
      const s = new driver.Stream(driver.streamFlags.NON_BLOCKING);
      const a = gpuarray.toGpu(new Int32Array(n).fill(1)); // legacy stream
      const out = gpuarray.empty([n], 'int32', { stream: s });
      readLater(a, out, n, s);
      a.dispose();
      const b = nextOwner(n);
      s.synchronize();
      expectAllOnes(out.get());
      b.dispose();
      out.dispose();
      s.dispose();
    });

    test(`kernel on a non-blocking stream, A dropped and collected (${what})`, () => {
      const s = new driver.Stream(driver.streamFlags.NON_BLOCKING);
      const out = gpuarray.empty([n], 'int32', { stream: s });
      (() => {
        const a = gpuarray.toGpu(new Int32Array(n).fill(1));
        readLater(a, out, n, s);
      })();
      gc(); // A's memory goes back now (memCollect), while the kernel still waits
      const b = nextOwner(n);
      s.synchronize();
      expectAllOnes(out.get());
      b.dispose();
      out.dispose();
      s.dispose();
    });

    test(`async copy on a non-blocking stream, A freed (${what})`, async () => {
      const s = new driver.Stream(driver.streamFlags.NON_BLOCKING);
      const a = gpuarray.toGpu(new Int32Array(n).fill(1));
      spinFn(cycles, { block: [1], stream: s });
      const host = new Int32Array(n);
      const done = a.getAsync(host, { stream: s }); // queued after the spin
      a.dispose();
      const b = nextOwner(n);
      await done;
      expectAllOnes(host);
      b.dispose();
      s.dispose();
    });

    test(`driver.memcpyDtodAsync on a user stream, source freed (${what})`, async () => {
      const s = new driver.Stream(driver.streamFlags.NON_BLOCKING);
      const src = driver.memAlloc(4 * n);
      driver.memcpyHtod(src, new Int32Array(n).fill(1));
      const dst = driver.memAlloc(4 * n);
      spinFn(cycles, { block: [1], stream: s });
      const done = driver.memcpyDtodAsync(dst, src, 4 * n, s);
      src.free();
      const b = nextOwner(n);
      await done;
      const host = new Int32Array(n);
      driver.memcpyDtoh(host, dst);
      expectAllOnes(host);
      b.dispose();
      dst.free();
      s.dispose();
    });

    test(`A allocated on the legacy stream, read there, freed on a non-blocking stream (${what})`, () => {
      const s = new driver.Stream(driver.streamFlags.NON_BLOCKING);
      const a = gpuarray.toGpu(new Int32Array(n).fill(1));
      const out = gpuarray.empty([n], 'int32');
      readLater(a, out, n, null); // legacy stream
      a.alloc.free(s); // the free on s must wait for the legacy stream's kernel
      const b = gpuarray.empty([n], 'int32', { stream: s }).fill(2, { stream: s });
      driver.Context.synchronize();
      expectAllOnes(out.get());
      b.dispose();
      out.dispose();
      s.dispose();
    });

    test(`the reading stream is destroyed before A is freed (${what})`, () => {
      const s = new driver.Stream(driver.streamFlags.NON_BLOCKING);
      const a = gpuarray.toGpu(new Int32Array(n).fill(1));
      const out = gpuarray.empty([n], 'int32');
      readLater(a, out, n, s);
      s.dispose(); // its work still runs; the free below must still wait for it
      a.dispose();
      const b = nextOwner(n);
      driver.Context.synchronize();
      expectAllOnes(out.get());
      b.dispose();
      out.dispose();
    });

    test(`A allocated on a user stream, read on the legacy stream, dropped (${what})`, () => {
      const s = new driver.Stream(driver.streamFlags.NON_BLOCKING);
      const a = gpuarray.toGpu(new Int32Array(n).fill(1), { stream: s });
      s.synchronize();
      const out = gpuarray.empty([n], 'int32');
      readLater(a, out, n, null); // legacy stream
      a.dispose(); // freed on s, which must wait for the legacy kernel
      const b = gpuarray.empty([n], 'int32', { stream: s }).fill(2, { stream: s });
      driver.Context.synchronize();
      expectAllOnes(out.get());
      b.dispose();
      out.dispose();
      s.dispose();
    });
  }

  test('gpuarray operations with { stream } record their inputs: A freed while a + 1 waits behind a spin', () => {
    const s = new driver.Stream(driver.streamFlags.NON_BLOCKING);
    const n = 1000;
    const a = gpuarray.toGpu(new Int32Array(n).fill(0));
    spinFn(cycles, { block: [1], stream: s });
    const c = a.add(1, { stream: s }); // queued on s after the spin, reads a
    a.dispose();
    const b = nextOwner(n);
    s.synchronize();
    expectAllOnes(c.get());
    b.dispose();
    c.dispose();
    s.dispose();
  });

  test('recordStream for memory used through a raw address', () => {
    const s = new driver.Stream(driver.streamFlags.NON_BLOCKING);
    const n = 1000;
    const a = driver.memAlloc(4 * n);
    driver.memcpyHtod(a, new Int32Array(n).fill(1));
    const out = gpuarray.empty([n], 'int32', { stream: s });
    spinCopy(cycles, a.ptr, out, n, { block: [256], grid: [4], stream: s }); // a raw bigint: not seen
    a.recordStream(s);
    a.free();
    const b = nextOwner(n);
    s.synchronize();
    expectAllOnes(out.get());
    b.dispose();
    out.dispose();
    s.dispose();
  });
});
