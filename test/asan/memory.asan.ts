/**
 * memory()'s counts on the CPU driver double (no GPU): what liveAllocations/liveBytes include
 * (requested bytes, not block classes; no library workspaces), and how the memory of collected
 * temporaries comes back in a synchronous loop. Kernels launch as no-ops here, so only counts
 * are checked. The GPU suite's test/82 checks the same on the device.
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

const PRELUDE = `
  const assert = require('assert');
  const nc = require(process.env.NODECUDA_DIST);
  const { driver, gpuarray } = nc;
  const { native } = require(process.env.NODECUDA_DIST + '/cuda/native');
  const live = () => { const m = nc.memory(); return [m.liveAllocations, m.liveBytes]; };
  const settled = () => { global.gc(); native.memCollect(); return live(); };
  const out = {};
`;

test('liveAllocations/liveBytes: requested bytes, frees, workspaces left out, garbage until collected', () => {
  const r = runFake(PRELUDE + `
    const [n0, b0] = settled();
    const d = (n, b) => { const [n1, b1] = live(); return [n1 - n, b1 - b]; };
    const x = driver.memAlloc(3000);            // a 4 KiB block of the small-block cache
    const big = driver.memAlloc(3 << 20);       // from the pool
    out.allocs = d(n0, b0);
    x.free();
    out.afterFree = d(n0, b0);
    x.free();                                   // idempotent: counted once
    out.afterSecondFree = d(n0, b0);
    big.free();
    const a = gpuarray.arange(0, 65536, 1, 'float32');
    const [n1, b1] = live();
    const s = a.sum(), c = nc.gpuarray.cumsum(a);   // reduce and scan workspaces: not counted
    out.results = d(n1, b1);
    s.dispose(); c.dispose();
    out.disposed = d(n1, b1);
    (() => { for (let i = 0; i < 10; i++) a.add(1); })();
    out.garbage = d(n1, b1);                    // unreachable, not yet collected: still live
    out.collected = (() => { const [n, b] = settled(); return [n - n1, b - b1]; })();
    a.dispose();
    out.end = (() => { const [n, b] = settled(); return [n - n0, b - b0]; })();
    console.log(JSON.stringify(out));
  `);
  expectClean(r);
  expect(r.out).toEqual({
    allocs: [2, 3000 + (3 << 20)],
    afterFree: [1, 3 << 20],
    afterSecondFree: [1, 3 << 20],
    results: [2, 4 + 65536 * 4],
    disposed: [0, 0],
    garbage: [10, 10 * 65536 * 4],
    collected: [0, 0],
    end: [0, 0],
  });
});

test('a synchronous loop gets the memory of collected temporaries back (test/82 on the double)', () => {
  // The temporaries are held until the function returns, so no collection during the first loop
  // (V8 may scavenge there at any time) can free them early; a function, so that no register of
  // the top-level frame keeps the last one.
  const r = runFake(PRELUDE + `
    const a = gpuarray.arange(0, 65536, 1, 'float32');   // 256 KiB
    (() => { const held = []; for (let i = 0; i < 100; i++) held.push(a.add(1)); })();
    global.gc();                                          // found dead; finalizers wait for the loop
    out.dead = nc.memory().liveBytes;
    for (let i = 0; i < 100; i++) a.add(1);               // each allocation reaps dead ones first
    out.after = nc.memory().liveBytes;
    // Without disposing, 4000 temporaries (1000 MiB): collections and reaping keep it bounded.
    let peak = 0;
    for (let i = 0; i < 4000; i++) {
      a.add(1);
      if (i % 100 === 0) peak = Math.max(peak, nc.memory().liveBytes);
    }
    out.peakMiB = peak / 2 ** 20;
    console.log(JSON.stringify(out));
  `);
  expectClean(r);
  const block = 65536 * 4;
  expect(r.out.dead).toBe(101 * block);
  expect(r.out.after).toBeLessThanOrEqual(101 * block);
  expect(r.out.peakMiB).toBeLessThan(400);
});
