/**
 * Lifetimes and leaks: finalizers free what dispose() did not, failed calls leak nothing, device
 * memory is reported to V8 so garbage collection follows GPU use.
 */
import * as cuda from '../lib';
import { collect, describeGpu } from './helpers';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math } = globalThis;

const { driver } = cuda;

function live(): { n: number; bytes: number } {
  const m = cuda.memory();
  return { n: m.liveAllocations, bytes: m.liveBytes };
}

describeGpu('lifetime', () => {
  test('finalizers free unreferenced allocations', async () => {
    await collect();
    const base = live();
    (() => {
      for (let i = 0; i < 1000; i++) driver.memAlloc(1 << 20);
    })();
    expect(live().n).toBeGreaterThanOrEqual(base.n); // some may be collected already
    await collect();
    expect(live()).toEqual(base);
  });

  test('explicit free and using return to baseline exactly', () => {
    const base = live();
    const list = Array.from({ length: 100 }, (_, i) => driver.memAlloc(4096 + i));
    expect(live().n).toBe(base.n + 100);
    list.forEach((a) => a.free());
    {
      using b = driver.memAlloc(1 << 16);
      expect(live().n).toBe(base.n + 1);
      expect(b.freed).toBe(false);
    }
    expect(live()).toEqual(base);
  });

  test('failed calls leak nothing and the process keeps working', async () => {
    await collect();
    const base = live();
    const fn = new cuda.SourceModule('__global__ void cp(const float *a, float *b, int n) { int i = threadIdx.x; if (i < n) b[i] = a[i]; }').getFunction('cp');
    const a = new Float32Array(32).fill(1.5);
    const b = new Float32Array(32);
    const attempts: Array<() => unknown> = [
      () => fn(driver.In(a), {}, 32, { block: [32] }), // In allocated, then a bad pointer argument
      () => fn(driver.In(a), driver.Out(b), 'x', { block: [32] }),
      () => fn(driver.In(a), driver.Out(b), 32, { block: [4096] }),
      () => fn(driver.In(a), driver.Out(b), 32, { block: [32], grid: [0] }),
      () => driver.memcpyHtod(driver.memAlloc(4), new Float32Array(2)),
      () => driver.memAlloc(2 ** 52),
    ];
    for (const f of attempts) expect(f).toThrow();
    await collect();
    expect(live()).toEqual(base);
    fn(driver.In(a), driver.Out(b), 32, { block: [32] });
    expect(Array.from(b)).toEqual(Array.from(a));
  });

  test('native handles are type-tagged: one kind is never taken for another', async () => {
    await collect();
    const base = live();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { native } = require('../lib/cuda/native') as typeof import('../lib/cuda/native');
    const stream = native.streamCreate(0);
    const event = native.eventCreate(0);
    const mod = new cuda.SourceModule('__global__ void tagged(int *p) { *p = 1; }');
    const fnHandle = native.moduleFunction(mod.handle, 'tagged');
    const wrong: Array<[string, () => unknown]> = [
      ['event as stream', () => native.streamSynchronize(event as never)],
      ['stream as event', () => native.eventSynchronize(stream as never)],
      ['module as function', () => native.funcAttribute(mod.handle as never, 4)],
      ['function as module', () => native.moduleFunction(fnHandle as never, 'tagged')],
      ['plain object as stream', () => native.streamQuery({} as never)],
      ['number as event', () => native.eventQuery(7 as never)],
      ['stream as context', () => native.ctxPush(stream as never)],
    ];
    for (const [what, f] of wrong) {
      let err: unknown;
      try {
        f();
      } catch (e) {
        err = e;
      }
      expect([what, err instanceof TypeError]).toEqual([what, true]);
      expect((err as { code?: string }).code).toBe('ERR_INVALID_ARG_TYPE');
    }
    // A plain object shaped like device memory is refused before it reaches the driver.
    expect(() => driver.memcpyHtod({ ptr: 0x1000n, size: 4 } as never, new Uint8Array(4))).toThrow(TypeError);
    native.streamSynchronize(stream);
    native.eventRecord(event, stream);
    native.eventSynchronize(event);
    await collect();
    expect(live()).toEqual(base);
  });

  test('out-of-memory is a CudaError with byte counts, and memory is usable afterwards', () => {
    const [free] = driver.memGetInfo();
    let err: cuda.CudaError | undefined;
    try {
      driver.memAlloc(free * 4);
    } catch (e) {
      err = e as cuda.CudaError;
    }
    expect(err).toBeInstanceOf(cuda.CudaError);
    expect(err!.code).toBe('CUDA_ERROR_OUT_OF_MEMORY');
    expect(err!.requestedBytes).toBe(free * 4);
    expect(typeof err!.freeBytes).toBe('number');
    const ok = driver.memAlloc(1 << 20);
    ok.free();
  });

  test('allocating far more than the device holds without free() completes (GC pressure)', () => {
    const [, total] = driver.memGetInfo();
    const chunk = 256 * 1024 * 1024;
    const rounds = Math.ceil((total * 2) / chunk);
    for (let i = 0; i < rounds; i++) driver.memAlloc(chunk); // dropped at once
    const [freeAfter] = driver.memGetInfo();
    expect(freeAfter).toBeGreaterThan(0);
  });

  test('streams, events and modules are released by GC without crashing', async () => {
    (() => {
      for (let i = 0; i < 200; i++) {
        const s = new driver.Stream();
        new driver.Event().record(s);
      }
      for (let i = 0; i < 20; i++) new cuda.SourceModule(`__global__ void g${i}(int *p) { p[0] = ${i}; }`);
    })();
    await collect();
    driver.Context.synchronize();
    const s = new driver.Stream();
    s.dispose();
    s.dispose();
  });

  test('page-locked arrays are unregistered when collected', async () => {
    for (let i = 0; i < 20; i++) {
      const h = driver.pagelockedEmpty(1 << 20, 'float32');
      h[0] = i;
    }
    await collect();
    const h = driver.registerHostMemory(new Float32Array(1 << 20));
    expect(driver.unregisterHostMemory(h)).toBe(true);
    expect(driver.unregisterHostMemory(h)).toBe(false);
  });
});
