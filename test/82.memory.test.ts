/**
 * GPUArray memory: temporaries created in a synchronous loop without dispose stay bounded (the
 * native registry frees memory of collected arrays on pressure), tidy() returns to baseline
 * exactly, and out-of-memory recovers through garbage collection.
 */
import * as cuda from '../lib';
import { collect, describeGpu, runChild, settledLive } from './helpers';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math } = globalThis;

const { gpuarray } = cuda;

describeGpu('GPUArray memory', () => {
  test('10^6 small temporaries without dispose: the loop finishes, memory stays bounded', async () => {
    await collect();
    const base = cuda.memory().liveBytes;
    const a = gpuarray.arange(0, 16, 1, 'float32');
    let peak = 0;
    for (let i = 0; i < 1_000_000; i++) {
      a.add(1);
      if (i % 50_000 === 0) peak = Math.max(peak, cuda.memory().liveBytes - base);
    }
    const expected = gpuarray.arange(1, 17, 1, 'float32').get();
    expect(a.add(1).get()).toEqual(expected);
    expect(peak).toBeLessThan(512 * 2 ** 20);
    a.dispose();
  });

  test('16 MiB temporaries totalling 2x device memory in a synchronous loop', () => {
    const [, total] = cuda.driver.memGetInfo();
    const n = (16 << 20) / 4;
    const a = gpuarray.zeros([n], 'float32');
    const rounds = Math.ceil((2 * total) / (16 << 20));
    let peak = 0;
    for (let i = 0; i < rounds; i++) {
      a.add(i);
      if (i % 100 === 0) peak = Math.max(peak, cuda.memory().liveBytes);
    }
    expect(peak).toBeLessThan(total);
    a.dispose();
  });

  test('tidy returns live memory to baseline exactly', async () => {
    await collect();
    const before = cuda.memory();
    const kept = cuda.tidy(() => {
      const x = gpuarray.arange(0, 1000, 1, 'float64');
      const y = x.mul(2).add(1).sub(x);
      return { y, view: y.index('::2') };
    });
    const mid = cuda.memory();
    expect(mid.liveAllocations).toBe(before.liveAllocations + 1); // only y's memory survives
    const want = gpuarray.arange(1, 1001, 2, 'float64');
    expect(kept.view.get()).toEqual(want.get());
    want.dispose();
    kept.y.dispose();
    const after = cuda.memory();
    expect(after.liveAllocations).toBe(before.liveAllocations);
    expect(after.liveBytes).toBe(before.liveBytes);
  });

  test('small blocks freed on the legacy stream are reused there; freeCachedMemory returns them', () => {
    const a = gpuarray.arange(0, 300, 1, 'float32'); // 1200 B: the 2 KiB class
    const p = a.ptr;
    a.dispose();
    const b = gpuarray.empty([400], 'float32'); // 1600 B: the same class, the same block
    expect(b.ptr).toBe(p);
    b.set(new Float32Array(400).fill(7));
    expect(Array.from(b.get() as Float32Array).every((v) => v === 7)).toBe(true);
    b.dispose();
    // Stream order: each reused block is written by a kernel queued after the last read of
    // its previous owner, so a chain of temporaries computes the same as on the host.
    let x = gpuarray.arange(0, 257, 1, 'float64');
    for (let i = 0; i < 200; i++) {
      const y = x.mul(1.5).sub(i);
      x.dispose();
      x = y;
    }
    let want = Array.from({ length: 257 }, (_, j) => j);
    for (let i = 0; i < 200; i++) want = want.map((v) => v * 1.5 - i);
    expect(Array.from(x.get() as Float64Array)).toEqual(want);
    x.dispose();
    // Many cached blocks, then freeCachedMemory: the pool's used bytes drop by at least them.
    cuda.freeCachedMemory();
    const many = Array.from({ length: 200 }, () => gpuarray.empty([64 * 1024], 'float32')); // 256 KiB each
    for (const m of many) m.dispose();
    const used = cuda.memory().poolUsedBytes;
    cuda.freeCachedMemory();
    expect(used - cuda.memory().poolUsedBytes).toBeGreaterThanOrEqual(200 * 256 * 1024);
  });

  test('a synchronous loop gets the memory of collected temporaries back without the event loop turning', () => {
    // A fresh process: its list of recent allocations holds only this loop's. The temporaries are
    // held until the function returns: V8 may collect its young generation during the first loop
    // (when depends on everything that ran before), and each allocation reaps what a collection
    // found dead, so temporaries dropped one by one could be freed before the count is taken. The
    // loop runs in a function so that no register of the top-level frame keeps the last one.
    const { out, stderr } = runChild(`
      const cuda = require(process.env.NODECUDA_DIST);
      const a = cuda.gpuarray.arange(0, 65536, 1, 'float32'); // 256 KiB
      (() => {                                                  // 100 temporaries, unreachable at once
        const held = [];
        for (let i = 0; i < 100; i++) held.push(a.add(1));
      })();
      global.gc();                                              // found dead; finalizers wait for the loop
      const dead = cuda.memory().liveBytes;
      for (let i = 0; i < 100; i++) a.add(1);                  // each allocation reaps dead ones first
      const after = cuda.memory().liveBytes;
      console.log(JSON.stringify({ dead, after, values: Array.from(a.add(1).get().slice(0, 3)) }));
    `, ['--expose-gc']);
    if (out.dead === undefined) throw new Error(`child failed: ${stderr}`);
    const block = 65536 * 4;
    // Nothing could be freed in the first loop (held), nor between the collection and the count.
    expect(out.dead).toBe(101 * block);
    expect(out.after).toBeLessThanOrEqual(101 * block); // not 201: the second loop reused the first's memory
    expect(out.values).toEqual([1, 2, 3]);
  });

  test('tidy disposes even when fn throws', () => {
    const before = settledLive();
    expect(() => cuda.tidy(() => {
      gpuarray.zeros([100]);
      throw new Error('boom');
    })).toThrow('boom');
    expect(cuda.memory().liveAllocations).toBe(before);
  });
});
