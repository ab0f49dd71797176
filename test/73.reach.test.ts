/**
 * Layer 73: the habits of issue 17 on a real driver: the driver's CUDA version, cuFuncGetParamInfo
 * against the signature parser, { signal } on syncs and copies, random.Generator dispose(),
 * keep() in tidy(), and diagnose()'s launch check. The CPU side of each runs in test/12 and on
 * the driver double (test/asan/driver-version.asan.ts).
 */
import * as cuda from '../lib';
import { SourceModule, driver, gpuarray, random } from '../lib';
import { describeGpu } from './helpers';

describeGpu('a real driver', () => {
  test('availability() reports the driver CUDA version (>= 12.0), equal to version().driver', () => {
    const a = cuda.availability();
    expect(a).toMatchObject({ ok: true, code: 'CUDA_SUCCESS', minCudaVersion: '12.0' });
    expect(a.driverVersion).toBeGreaterThanOrEqual(12000);
    expect(cuda.version().driver).toBe(a.cudaVersion);
  });

  test('float (*x)[4], int n: two parameters; a bare number for n launches (checked with cuFuncGetParamInfo where present)', () => {
    const mod = new SourceModule(`
      __global__ void rows(float (*x)[4], int n, double scale) {
        int i = threadIdx.x, j = threadIdx.y;
        if (i < n) x[i][j] = (float)((i * 4 + j) * scale);
      }`);
    const fn = mod.getFunction('rows');
    expect(fn.params!.map((p) => p.kind)).toEqual(['ptr', 'scalar', 'scalar']);
    if (!cuda.availability().missingEntryPoints.includes('cuFuncGetParamInfo')) {
      expect(fn.paramInfo()).toEqual([{ offset: 0, size: 8 }, { offset: 8, size: 4 }, { offset: 16, size: 8 }]);
    } else {
      expect(() => fn.paramInfo()).toThrow(/needs a driver for CUDA 12\.4 or newer/);
    }
    const n = 5;
    const a = driver.memAlloc(n * 4 * 4);
    try {
      fn(a, n, 0.5, { block: [8, 4], grid: [1] });
      const out = new Float32Array(n * 4);
      driver.memcpyDtoh(out, a);
      expect(Array.from(out)).toEqual(Array.from({ length: n * 4 }, (_, k) => k * 0.5));
    } finally {
      a.free();
    }
  });

  test('{ signal }: aborted before or during a sync or copy rejects with AbortError; the copy still lands', async () => {
    const s = new driver.Stream();
    // Page-locked: the copy is queued on `s` at once, so s.synchronize() below waits for it.
    const h = driver.pagelockedEmpty(1 << 20, 'float32') as Float32Array;
    h.forEach((_, i) => { h[i] = i; });
    const a = driver.memAllocLike(h);
    try {
      await expect(s.synchronizeAsync({ signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
      const ac = new AbortController();
      const copy = driver.memcpyHtodAsync(a, h, s, { signal: ac.signal });
      ac.abort();
      await expect(copy).rejects.toMatchObject({ name: 'AbortError' });
      s.synchronize();
      const back = new Float32Array(h.length);
      driver.memcpyDtoh(back, a);
      expect(back).toEqual(h);
      await expect(driver.Context.synchronizeAsync({ signal: new AbortController().signal })).resolves.toBeUndefined();
    } finally {
      s.dispose();
      a.free();
    }
  });

  test('random.Generator dispose(): frees its states; the next draw continues where it stood', () => {
    const g = new random.Generator({ algorithm: 'xorwow', seed: 7 });
    const ref = new random.Generator({ algorithm: 'xorwow', seed: 7 });
    const a = g.uniform([1000], { dtype: 'float32' });
    const ra = ref.uniform([1000], { dtype: 'float32' });
    const before = cuda.memory().liveBytes;
    g.dispose();
    g.dispose(); // idempotent
    expect(cuda.memory().liveBytes).toBeLessThanOrEqual(before);
    const b = g.uniform([1000], { dtype: 'float32' });
    const rb = ref.uniform([1000], { dtype: 'float32' });
    expect(a.get()).toEqual(ra.get());
    expect(b.get()).toEqual(rb.get());
    for (const x of [a, b, ra, rb]) x.dispose();
    ref[Symbol.dispose]();
  });

  test('keep() takes an array out of tidy(); the others are disposed', () => {
    let kept: cuda.GPUArray | undefined;
    let dropped: cuda.GPUArray | undefined;
    const r = cuda.tidy(() => {
      kept = cuda.keep(gpuarray.zeros([4], 'float32'));
      dropped = gpuarray.ones([4], 'float32');
      return kept.add(1);
    });
    expect(kept!.disposed).toBe(false);
    expect(dropped!.disposed).toBe(true);
    expect(Array.from(r.get() as Float32Array)).toEqual([1, 1, 1, 1]);
    kept!.dispose();
    r.dispose();
  });

  test('diagnose(): the GPUs and a launch that works', () => {
    const d = cuda.diagnose();
    expect(d.devices.length).toBe(driver.Device.count());
    expect(d.devices[0].name).toBe(new driver.Device(0).name());
    expect(d.features.launch).toEqual({ ok: true, message: 'loaded the kernel on device 0, launched it and read its result back' });
  });
});
