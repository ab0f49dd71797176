/**
 * Lifetime hazards of the native layer, each in a child process against the CPU driver double
 * with FAKECUDA_SYNC_DELAY_MS widening the race: a use-after-free, an abort or a wait on a
 * destroyed handle shows up as an AddressSanitizer/fakecuda report, which fails the test.
 * Every test asserts a clean exit: they fail on code without the fixes (evidence in
 * docs/design/testing.md) and pass once the hazard is fixed.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

const SLOW = { FAKECUDA_SYNC_DELAY_MS: '200' };

// 1. An async device-to-host copy whose destination is transferred away and collected while the
// copy is in flight: pageable (>= 1 MiB goes through staging chunks copied by the worker thread
// after the wait) and page-locked (the DMA itself writes the destination).
describe.each([
  ['pageable', 'new Float32Array(n)'],
  ['page-locked', "driver.pagelockedEmpty(n, 'float32')"],
])('async copy into a %s destination transferred and collected in flight', (_kind, alloc) => {
  test.each(['driver.memcpyDtohAsync(host, a)', 'x.getAsync(host)'])('%s', (call) => {
    const r = runFake(`
      (async () => {
        const { driver, gpuarray } = require(process.env.NODECUDA_DIST);
        const n = 1 << 20;
        const a = driver.memAlloc(n * 4), x = gpuarray.zeros(n, 'float32');
        driver.memsetD32(a, 0x3f800000, n);
        let host = ${alloc};
        const p = ${call};
        let transferred = true;
        try { structuredClone(host.buffer, { transfer: [host.buffer] }); } catch { transferred = false; }
        host = null;
        for (let i = 0; i < 5; i++) { gc(); await new Promise((r) => setTimeout(r, 20)); }
        let settled = 'resolved';
        await p.catch((e) => { settled = e.code || e.name; });
        console.log(JSON.stringify({ ok: true, transferred, settled }));
      })();
    `, SLOW);
    expectClean(r);
    expect(r.out.ok).toBe(true);
  });
});

// 2. worker.terminate() while nodecuda Promises of the worker are pending or settling.
describe('worker.terminate() with nodecuda Promises pending', () => {
  const terminate = (body: string): string => `
    const { Worker } = require('worker_threads');
    let round = 0;
    const start = () => {
      const w = new Worker(${JSON.stringify(body)} + "; require('worker_threads').parentPort.postMessage(0);", { eval: true });
      w.on('error', (e) => { console.error('worker error', e); });
      w.on('message', () => setTimeout(() => w.terminate().then(() => {
        if (++round < 6) start(); else setTimeout(() => console.log(JSON.stringify({ ok: true })), 300);
      }), 20 + round * 15));
    };
    start();
  `;
  test('compileAsync (CompileWorker::OnOK)', () => {
    const r = runFake(terminate(`
      const { compiler } = require(process.env.NODECUDA_DIST);
      for (let i = 0; i < 4; i++)
        compiler.compileAsync('extern "C" __global__ void k' + i + '(float *a) { a[0] = ' + i + '; }', { arch: 'sm_90', cacheDir: null }).catch(() => {});
    `));
    expectClean(r);
    expect(r.out.ok).toBe(true);
  });
  test('stream waits and async copies settling and starting while the worker terminates', () => {
    const r = runFake(terminate(`
      const { driver } = require(process.env.NODECUDA_DIST);
      const s = new driver.Stream(), a = driver.memAlloc(1 << 16);
      const tick = () => {
        for (let i = 0; i < 20; i++) {
          s.synchronizeAsync().catch(() => {});
          driver.memcpyDtohAsync(new Uint8Array(1 << 16), a, s).catch(() => {});
        }
        setImmediate(tick);
      };
      tick();
    `), { FAKECUDA_SYNC_DELAY_MS: '2' });
    expectClean(r);
    expect(r.out.ok).toBe(true);
  });
});

// 3. Event.dispose() while event.synchronizeAsync() is pending: the worker thread must not wait
// on (or read) a destroyed event. Either the wait already runs, or it is still queued behind
// another one; the Promise resolves (the recorded work completes) or rejects with a typed
// nodecuda error, never a driver error about the handle.
describe('Event.dispose() while synchronizeAsync() is pending', () => {
  test.each([
    ['the wait has started', ''],
    ['the wait is queued behind another', 'driver.memsetD8Async(a, 1, 1 << 20, s);'],
  ])('%s', (_name, before) => {
    const r = runFake(`
      (async () => {
        const { driver } = require(process.env.NODECUDA_DIST);
        const s = new driver.Stream(), a = driver.memAlloc(1 << 20);
        ${before}
        const e = new driver.Event().record(s);
        const p = e.synchronizeAsync();
        await new Promise((r) => setTimeout(r, 50));
        e.dispose();
        let settled = 'resolved';
        await p.catch((x) => { settled = x.code || x.name; });
        console.log(JSON.stringify({ ok: true, settled }));
      })();
    `, SLOW);
    expectClean(r);
    expect(String(r.out.settled)).toMatch(/^(resolved|ERR_)/);
  });
});

// 4. Damaged kernel-cache files: cuModuleLoadData takes no size, so the image must be checked
// before it is loaded. The double reads what the ELF header claims, as the real loader does.
describe('damaged kernel images (item 4): cache entries and bytes handed to moduleFromBuffer', () => {
  // Entries are checked (header, length, SHA-256) before anything reaches the loader, and the
  // native layer checks an image's ELF extents before cuModuleLoadData (which takes no size): a
  // damaged image is recompiled or refused, never read past its end.
  const SCRIPT = `
    const { SourceModule, driver, compiler } = require(process.env.NODECUDA_DIST);
    const fs = require('fs');
    const SRC = '__global__ void k(float *a, int n) { if (n) a[0] = 1; }';
    const out = { ok: true };
    try {
      new SourceModule(SRC, { cacheDir: process.env.CACHE }).getFunction('k')(0n, 1, { block: [1] });
      out.loaded = true;
    } catch (e) { out.error = e.code || e.name; }
    if (process.env.DAMAGE) {
      const img = Buffer.from(compiler.compile(SRC, { arch: 'sm_90' }).image);
      const bad = process.env.DAMAGE === 'truncate' ? img.subarray(0, Math.floor(img.length / 3))
        : (img.writeUInt16LE(img.readUInt16LE(60) + 40, 60), img);
      try { driver.moduleFromBuffer(bad); out.direct = 'loaded'; } catch (e) { out.direct = e.code || e.name; }
    }
    console.log(JSON.stringify(out));
  `;
  const damages: Array<[string, string, (b: Buffer) => Buffer]> = [
    ['truncated to a third', 'truncate', (b) => b.subarray(0, Math.floor(b.length / 3))],
    ['header claims 40 more section headers', 'shnum', (b) => {
      const c = Buffer.from(b);
      const elf = c.indexOf(Buffer.from([0x7f, 0x45, 0x4c, 0x46])); // the image inside the entry
      c.writeUInt16LE(c.readUInt16LE(elf + 60) + 40, elf + 60); // e_shnum
      return c;
    }],
  ];
  test.each(damages)('%s', (_name, kind, damage) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-asan-cache-'));
    try {
      const first = runFake(SCRIPT, { CACHE: dir });
      expectClean(first);
      const files = fs.readdirSync(dir).filter((f) => f.endsWith('.entry'));
      expect(files).toHaveLength(1);
      const file = path.join(dir, files[0]);
      fs.writeFileSync(file, damage(fs.readFileSync(file)));
      const r = runFake(SCRIPT, { CACHE: dir, DAMAGE: kind });
      expectClean(r);
      expect(r.out.loaded).toBe(true); // the damaged entry was a miss: recompiled and loaded
      expect(r.out.direct).toBe('CUDA_ERROR_INVALID_IMAGE'); // refused before the driver
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
