/**
 * Lifetimes across threads: what may be transferred, disposed or terminated while asynchronous
 * work is in flight, and what happens then (docs/errors.md "Lifetimes"). Anything that crashed
 * before the fix runs in a child process, so a regression fails one test instead of Jest.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as cuda from '../lib';
import { native } from '../lib/cuda/native';
import { DIST, describeGpu, expectCode, runChild } from './helpers';

const { driver } = cuda;

beforeAll(() => {
  if (!fs.existsSync(path.join(DIST, 'index.js'))) throw new Error('dist/ is not built: run npm run build:ts');
});

/** Child-process prelude: the package, a kernel spinning `ns` nanoseconds, an error capture. */
const PRELUDE = `
  const cuda = require(process.env.NODECUDA_DIST);
  const { driver, SourceModule, gpuarray } = cuda;
  const SPIN = '__global__ void spin(long long ns) { long long t0, t; ' +
    'asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0)); ' +
    'do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns); }';
  const capture = async (p) => { try { await p; return null; } catch (e) { return { name: e.name, code: e.code, message: e.message }; } };
`;

describe('no GPU needed', () => {
  test('worker.terminate() with compileAsync Promises pending: the process lives on', () => {
    // Completions of NVRTC jobs ran into the terminating worker's environment and threw there:
    // "terminate called after throwing an instance of 'Napi::Error'" (SIGABRT).
    const script = `
      const { Worker } = require('worker_threads');
      const cuda = require(process.env.NODECUDA_DIST);
      const src = (i) => '__global__ void k' + i + '(float *a) { a[threadIdx.x] *= ' + i + '.0f; }';
      const run = (delay) => new Promise((resolve) => {
        const w = new Worker(\`
          const cuda = require(process.env.NODECUDA_DIST);
          const { parentPort } = require('worker_threads');
          const src = \${src.toString()};
          for (let i = 0; i < 6; i++) cuda.compiler.compileAsync(src(i) + '// ' + Math.random(), { arch: 'sm_90' }).catch(() => {});
          parentPort.postMessage('started');
        \`, { eval: true });
        w.on('message', () => setTimeout(async () => { await w.terminate(); resolve(); }, delay));
      });
      (async () => {
        for (const delay of [0, 5, 30, 100]) await run(delay);
        // The main thread still compiles off the thread.
        const r = await cuda.compiler.compileAsync(src(7), { arch: 'sm_90' });
        console.log(JSON.stringify({ ok: true, bytes: r.image.length }));
      })();
    `;
    const { status, out, stderr } = runChild(script);
    if (!out.ok) throw new Error(`child failed (status ${status}): ${stderr}`);
    expect(status).toBe(0);
    expect(out.bytes as number).toBeGreaterThan(0);
  });

  test('SharedArrayBuffer and views of one are host buffers for the native layer', () => {
    // Argument checks run before any driver call, so the range error shows the buffer was read.
    const sab = new SharedArrayBuffer(8);
    for (const h of [sab, new Int32Array(sab), new DataView(sab, 4)]) {
      const e = expectCode(() => native.memcpyDtoh(h, 4, 8, 0n, false), RangeError, 'ERR_OUT_OF_RANGE');
      expect(e.message).toMatch(/outside its buffer of 8 bytes/);
    }
    // Not a SharedArrayBuffer, whatever its tag says.
    const fake = { [Symbol.toStringTag]: 'SharedArrayBuffer', length: 8, byteLength: 8 };
    expectCode(() => native.memcpyDtoh(fake as unknown as SharedArrayBuffer, 0, 8, 0n, false), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => native.memcpyDtohAsync([1, 2] as unknown as ArrayBuffer, 0, 1, 0n, null, null), TypeError, 'ERR_INVALID_ARG_TYPE');
  });

  test('resizable ArrayBuffers cannot be page-locked', () => {
    // (TypeScript's lib does not declare the resizable constructor yet.)
    const Resizable = ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer;
    const rab = new Resizable(4096, { maxByteLength: 8192 });
    expectCode(() => driver.registerHostMemory(new Uint8Array(rab)), TypeError, 'ERR_INVALID_ARG_VALUE');
    // The native check too, before any driver call.
    expectCode(() => native.hostRegister(rab, 0, 4096), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => native.hostRegister(new Uint8Array(rab), 0, 4096), TypeError, 'ERR_INVALID_ARG_VALUE');
  });

});

describeGpu('asynchronous copies and their host buffers', () => {
  test('pageable destination transferred during memcpyDtohAsync/getAsync: rejected, nothing written', () => {
    // Before: the worker thread wrote the chunks through a raw pointer after the wait, into
    // memory the transfer had handed to another owner (SIGSEGV, or device bytes inside new
    // arrays). Now the destination is written on the JS thread after checking it is still there.
    const script = PRELUDE + `
      const spin = new SourceModule(SPIN).getFunction('spin');
      const n = (3 << 20) + 5; // staged in several chunks
      const src = gpuarray.arange(0, n, 1, 'float32');
      const results = {};
      (async () => {
        for (const how of ['driver', 'getAsync', 'postMessage']) {
          const stream = new driver.Stream();
          spin(200e6, { block: [1], stream }); // the copy waits 200 ms behind this
          let host = new Float32Array(n);
          const p = how === 'getAsync' ? src.getAsync(host, { stream }) : driver.memcpyDtohAsync(host, src, stream);
          if (how === 'postMessage') {
            const { port1, port2 } = new MessageChannel();
            port1.postMessage(host.buffer, [host.buffer]);
            port1.close(); port2.close();
          } else {
            structuredClone(host.buffer, { transfer: [host.buffer] });
          }
          host = null;
          global.gc();
          // New arrays that could take the freed memory: none may receive device bytes.
          const fresh = Array.from({ length: 16 }, () => new Float32Array(n));
          const err = await capture(p);
          global.gc();
          const dirty = fresh.some((a) => a.some((v) => v !== 0));
          // The device data is not lost: copying again works.
          const again = await src.getAsync(new Float32Array(n));
          results[how] = { err, dirty, againOk: again[n - 1] === n - 1 && again[12345] === 12345 };
          stream.dispose();
        }
        console.log(JSON.stringify({ ok: true, results }));
      })();
    `;
    const { status, out, stderr } = runChild(script, ['--expose-gc']);
    if (!out.ok) throw new Error(`child failed (status ${status}): ${stderr}`);
    expect(status).toBe(0);
    for (const how of ['driver', 'getAsync', 'postMessage']) {
      type Result = { err: { name: string; code: string; message: string }; dirty: boolean; againOk: boolean };
      const r = (out.results as Record<string, Result>)[how];
      expect(r.err).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_STATE' });
      expect(r.err.message).toMatch(/transferred \(detached\) or shrunk/);
      expect(r.dirty).toBe(false);
      expect(r.againOk).toBe(true);
    }
  });

  test('pageable resizable destination shrunk mid-copy: rejected; kept size: written', () => {
    const script = PRELUDE + `
      const spin = new SourceModule(SPIN).getFunction('spin');
      const n = 1 << 20;
      const src = gpuarray.arange(0, n, 1, 'float32');
      (async () => {
        const stream = new driver.Stream();
        const rab = new ArrayBuffer(4 * n, { maxByteLength: 8 * n });
        spin(100e6, { block: [1], stream });
        const p = driver.memcpyDtohAsync(new Float32Array(rab, 0, n), src, stream);
        rab.resize(4 * n - 4096);
        const shrunk = await capture(p);
        const rab2 = new ArrayBuffer(4 * n, { maxByteLength: 8 * n });
        const view = new Float32Array(rab2, 0, n);
        spin(50e6, { block: [1], stream });
        const p2 = driver.memcpyDtohAsync(view, src, stream);
        rab2.resize(8 * n); // growing keeps the destination in place
        const grown = await capture(p2);
        console.log(JSON.stringify({ ok: true, shrunk, grown, last: view[n - 1] }));
      })();
    `;
    const { status, out, stderr } = runChild(script, ['--expose-gc']);
    if (!out.ok) throw new Error(`child failed (status ${status}): ${stderr}`);
    expect(status).toBe(0);
    expect(out.shrunk).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_STATE' });
    expect(out.grown).toBeNull();
    expect(out.last).toBe((1 << 20) - 1);
  });

  test('page-locked destination: transfer leaves it in place; unregister and gc wait for the copy', () => {
    // Before: a registered buffer transferred and collected during the DMA was written after it
    // was freed. Now registered buffers are untransferable (postMessage/structuredClone copy
    // them or throw), the registration holds the buffer, and unregistering waits for copies.
    const script = PRELUDE + `
      const spin = new SourceModule(SPIN).getFunction('spin');
      const n = 1 << 20;
      const src = gpuarray.arange(0, n, 1, 'float32');
      (async () => {
        const stream = new driver.Stream();
        // pagelockedEmpty, then an attempt to transfer its buffer while the DMA is pending.
        const pl = driver.pagelockedEmpty(n, 'float32');
        spin(100e6, { block: [1], stream });
        const p1 = driver.memcpyDtohAsync(pl, src, stream);
        let transferThrew = false;
        try { structuredClone(pl.buffer, { transfer: [pl.buffer] }); } catch { transferThrew = true; }
        const e1 = await capture(p1);
        const plOk = pl.buffer.byteLength > 0 && pl[n - 1] === n - 1;
        // registerHostMemory, then unregister and drop every reference during the DMA.
        let reg = driver.registerHostMemory(new Float32Array(n));
        const keep = new Float32Array(reg.buffer, 0, n); // to read the result
        spin(100e6, { block: [1], stream });
        const p2 = driver.memcpyDtohAsync(reg, src, stream);
        const unregistered = driver.unregisterHostMemory(reg);
        reg = null;
        global.gc();
        const e2 = await capture(p2);
        const regOk = keep[n - 1] === n - 1 && keep[777] === 777;
        // Registered memory is still page-locked after unregister + settle? No: a second
        // unregister reports nothing left.
        const again = driver.unregisterHostMemory(keep);
        console.log(JSON.stringify({ ok: true, transferThrew, e1, plOk, unregistered, e2, regOk, again }));
      })();
    `;
    const { status, out, stderr } = runChild(script, ['--expose-gc']);
    if (!out.ok) throw new Error(`child failed (status ${status}): ${stderr}`);
    expect(status).toBe(0);
    expect(out.e1).toBeNull();
    expect(out.plOk).toBe(true);
    expect(out.unregistered).toBe(true);
    expect(out.e2).toBeNull();
    expect(out.regOk).toBe(true);
    expect(out.again).toBe(false);
  });

  test('a failed synchronous copy names its own driver call', () => {
    // MemcpySync reported a failed device-to-host copy as cuMemcpyHtoD. A child process, in case
    // the driver takes a bad address for a fault.
    const script = PRELUDE + `
      const err = (f) => { try { f(); return null; } catch (e) { return { name: e.name, call: e.call }; } };
      const dtoh = err(() => driver.memcpyDtoh(new Uint8Array(64), 0x10n));
      const htod = err(() => driver.memcpyHtod(0x10n, new Uint8Array(64)));
      console.log(JSON.stringify({ ok: true, dtoh, htod }));
    `;
    const { status, out, stderr } = runChild(script);
    if (!out.ok) throw new Error(`child failed (status ${status}): ${stderr}`);
    expect(out.dtoh).toEqual({ name: 'CudaError', call: 'cuMemcpyDtoH' });
    expect(out.htod).toEqual({ name: 'CudaError', call: 'cuMemcpyHtoD' });
  });

  test('SharedArrayBuffer: sync and async copies both ways, pageable and page-locked', async () => {
    const n = (1 << 20) + 3;
    const src = cuda.gpuarray.arange(0, n, 1, 'float32');
    const sab = new SharedArrayBuffer(4 * n);
    await driver.memcpyDtohAsync(new Float32Array(sab), src);
    expect(new Float32Array(sab)[n - 1]).toBe(n - 1);
    const d = driver.memAlloc(4 * n);
    await driver.memcpyHtodAsync(d, sab);
    const back = new Float32Array(n);
    driver.memcpyDtoh(back, d);
    expect(back[n - 1]).toBe(n - 1);
    driver.memcpyDtoh(new Float32Array(sab), d);
    driver.memcpyHtod(d, new Float32Array(sab));
    const pinned = driver.registerHostMemory(new Float32Array(new SharedArrayBuffer(4 * n)));
    await src.getAsync(pinned);
    expect(pinned[12345]).toBe(12345);
    expect(driver.unregisterHostMemory(pinned)).toBe(true);
    d.free();
  });
});

describeGpu('disposal and termination while work is in flight', () => {
  test('Event.dispose() while synchronizeAsync() waits: resolves, no crash', () => {
    // Before: the worker thread waited on an event the JS thread had destroyed (SIGSEGV).
    const script = PRELUDE + `
      const spin = new SourceModule(SPIN).getFunction('spin');
      (async () => {
        const stream = new driver.Stream();
        const results = [];
        for (let i = 0; i < 5; i++) {
          spin(50e6, { block: [1], stream });
          const ev = new driver.Event().record(stream);
          const p = ev.synchronizeAsync();
          ev.dispose();
          global.gc();
          results.push(await capture(p));
        }
        let after = null;
        const ev = new driver.Event();
        ev.dispose();
        try { ev.synchronizeAsync(); } catch (e) { after = e.code; }
        console.log(JSON.stringify({ ok: true, results, after }));
      })();
    `;
    const { status, out, stderr } = runChild(script, ['--expose-gc']);
    if (!out.ok) throw new Error(`child failed (status ${status}): ${stderr}`);
    expect(status).toBe(0);
    expect(out.results).toEqual([null, null, null, null, null]);
    expect(out.after).toBe('ERR_USE_AFTER_DISPOSE');
  });

  test('worker.terminate() behind a long kernel returns promptly; the process keeps working', () => {
    // Before: terminate() joined the worker's wait thread, blocked in the wait for the kernel
    // (4.9 s behind a 5 s kernel, forever behind an endless one). Now it abandons pageable
    // waits; the wait thread ends on its own without touching the dead environment.
    const script = PRELUDE + `
      const { Worker } = require('worker_threads');
      const w = new Worker(\`
        const { driver, SourceModule, gpuarray } = require(process.env.NODECUDA_DIST);
        const { parentPort } = require('worker_threads');
        const spin = new SourceModule(\${JSON.stringify(SPIN)}).getFunction('spin');
        const stream = new driver.Stream();
        const a = gpuarray.arange(0, 1 << 20, 1, 'float32');
        spin(3e9, { block: [1], stream });
        stream.synchronizeAsync();
        driver.Context.synchronizeAsync();
        a.getAsync(new Float32Array(1 << 20), { stream });
        new driver.Event().record(stream).synchronizeAsync();
        parentPort.postMessage('waiting');
      \`, { eval: true });
      w.on('error', (e) => console.log(JSON.stringify({ ok: false, error: String(e) })));
      w.on('message', async () => {
        await new Promise((r) => setTimeout(r, 200));
        const t0 = Date.now();
        await w.terminate();
        const terminateMs = Date.now() - t0;
        // The main thread still computes (after the kernel, on the same device).
        const b = gpuarray.arange(0, 1000, 1, 'float32').mul(2);
        const v = (await b.getAsync())[999];
        console.log(JSON.stringify({ ok: true, terminateMs, v }));
      });
    `;
    const { status, out, stderr } = runChild(script);
    if (!out.ok) throw new Error(`child failed (status ${status}): ${stderr}`);
    expect(status).toBe(0);
    expect(out.terminateMs as number).toBeLessThan(2000); // the kernel runs 3 s
    expect(out.v).toBe(1998);
  });

  test('worker.terminate() in the middle of sorts, uniques, FFTs and matmuls; the main thread keeps computing them right', () => {
    // The worker loops over the library calls that keep per-(context, stream) state: the sort's
    // workspace and look-back words, cuFFT plans, cuBLAS handles, unique's read backs (sorted and
    // counted). It is terminated at different moments of that loop (each call takes a few ms);
    // then the main thread runs the same operations on small inputs and checks them on the CPU.
    const script = PRELUDE + `
      const { Worker } = require('worker_threads');
      const { fft } = cuda;
      const once = (delay) => new Promise((resolve) => {
        const w = new Worker(\`
          const { gpuarray, random, fft } = require(process.env.NODECUDA_DIST);
          const { parentPort } = require('worker_threads');
          // unique of k (a range of 1e9: sorted) and of kn (1000 values: counted)
          const x = random.rand([1 << 22], 'float32'), k = random.rand([1 << 22], 'float32').mul(1e9).astype('int32');
          const kn = random.rand([1 << 22], 'float32').mul(1e3).astype('int32');
          const z = gpuarray.zeros([1 << 20], 'complex64'), m = random.rand([512, 512], 'float32');
          let calls = 0;
          for (;;) {
            gpuarray.sort(x).dispose(); gpuarray.argsort(x).dispose(); gpuarray.unique(k).dispose(); gpuarray.unique(kn).dispose();
            fft.fft(z).dispose(); gpuarray.matmul(m, m).dispose();
            if (++calls === 1) parentPort.postMessage('looping');
          }
        \`, { eval: true });
        let terminating = false;
        w.on('error', (e) => resolve('error: ' + e));
        w.on('exit', (code) => { if (!terminating) resolve('exit ' + code); }); // ended on its own: fails, no wait
        w.on('message', () => setTimeout(async () => { terminating = true; await w.terminate(); resolve('terminated'); }, delay));
      });
      (async () => {
        const ends = [];
        for (const delay of [0, 3, 17, 60]) ends.push(await once(delay));
        const h = Float32Array.from({ length: 70001 }, (_, i) => ((i * 7919) % 70003) / 7 - 5000);
        const a = gpuarray.toGpu(h);
        const sorted = gpuarray.sort(a).get(), idx = gpuarray.argsort(a).get();
        const want = Float32Array.from(h).sort();
        const sortOk = sorted.every((v, i) => v === want[i]) && want.every((v, i) => h[Number(idx[i])] === v);
        const ints = Int32Array.from({ length: 1 << 17 }, (_, i) => (i * 31) % 1000 - 500);
        const u = gpuarray.unique(gpuarray.toGpu(ints)).get();
        const wide = Int32Array.from({ length: 1 << 17 }, (_, i) => ((i * 7919) % 131101) * 4099 - 2e8);
        const uw = gpuarray.unique(gpuarray.toGpu(wide)).get(), ws = Int32Array.from(new Set(wide)).sort();
        const uniqueOk = u.length === 1000 && u.every((v, i) => v === i - 500) && uw.length === ws.length && uw.every((v, i) => v === ws[i]);
        const spec = fft.fft(gpuarray.ones([64], 'complex64')).get(); // interleaved re, im: 64 at 0, zeros elsewhere
        const fftOk = spec[0] === 64 && spec.slice(1).every((v) => Math.abs(v) < 1e-4);
        const p = gpuarray.matmul(gpuarray.toGpu(new Float32Array([1, 2, 3, 4])).reshape(2, 2), gpuarray.toGpu(new Float32Array([5, 6, 7, 8])).reshape(2, 2)).get();
        console.log(JSON.stringify({ ok: true, ends, sortOk, uniqueOk, fftOk, matmul: Array.from(p) }));
      })().catch((e) => console.log(JSON.stringify({ ok: false, error: String(e && e.stack) })));
    `;
    const { status, out, stderr } = runChild(script);
    if (!out.ok) throw new Error(`child failed (status ${status}): ${String(out.error ?? '')}\n${stderr}`);
    expect(status).toBe(0);
    expect(out.ends).toEqual(['terminated', 'terminated', 'terminated', 'terminated']);
    expect([out.sortOk, out.uniqueOk, out.fftOk]).toEqual([true, true, true]);
    expect(out.matmul).toEqual([19, 22, 43, 50]);
  });

  test('worker.terminate() while nonzero, flatnonzero, extract and compress read their counts back; the main thread keeps computing them right', () => {
    // Every call but countNonzero waits for its count kernel and reads the total back in the
    // middle of the call (a synchronous copy), then allocates the result and writes it. The worker
    // loops them on 3 M elements; it is terminated at different moments of that loop (a few ms a
    // call, plus a random delay), so some terminations land in a read back. Then the main thread
    // runs them on known arrays, a fresh worker does too, and the main thread holds no more
    // allocations than before (its own count: the workers' allocations are theirs).
    const script = PRELUDE + `
      const { Worker } = require('worker_threads');
      const { native } = require(process.env.NODECUDA_DIST + '/cuda/native');
      const settledLive = () => { global.gc(); native.memCollect(); return cuda.memory().liveAllocations; };
      const ints = (x) => Array.from(x.get(), Number);
      const once = (delay) => new Promise((resolve) => {
        const w = new Worker(\`
          const { gpuarray, random } = require(process.env.NODECUDA_DIST);
          const { parentPort } = require('worker_threads');
          const x = random.rand([1536, 2048], 'float32');
          const m = x.gt(0.5), y = x.mul(m); // about half zero
          const flat = m.reshape([1536 * 2048]);
          let calls = 0;
          for (;;) {
            for (const r of gpuarray.nonzero(y)) r.dispose();
            gpuarray.flatnonzero(y).dispose(); gpuarray.extract(m, x).dispose(); gpuarray.argwhere(m).dispose();
            gpuarray.compress(flat, x).dispose();
            if (++calls === 1) parentPort.postMessage('looping');
          }
        \`, { eval: true });
        let terminating = false;
        w.on('error', (e) => resolve('error: ' + e));
        w.on('exit', (code) => { if (!terminating) resolve('exit ' + code); }); // ended on its own: fails, no wait
        w.on('message', () => setTimeout(async () => { terminating = true; await w.terminate(); resolve('terminated'); },
          delay + Math.floor(Math.random() * 4)));
      });
      // A fresh worker after the terminations: nonzero of a known matrix, posted back.
      const fresh = () => new Promise((resolve) => {
        const w = new Worker(\`
          const { gpuarray } = require(process.env.NODECUDA_DIST);
          const { parentPort } = require('worker_threads');
          const [r, c] = gpuarray.nonzero(gpuarray.toGpu(new Int32Array([0, 7, 0, 0, 0, -3]), { shape: [2, 3] }));
          parentPort.postMessage([Array.from(r.get(), Number), Array.from(c.get(), Number)]);
        \`, { eval: true });
        w.on('message', (v) => { w.terminate(); resolve(v); });
        w.on('error', (e) => resolve('error: ' + e));
      });
      (async () => {
        const live0 = settledLive();
        const ends = [];
        for (const delay of [0, 1, 3, 8, 17, 40]) ends.push(await once(delay));
        // Known small input: NaN is nonzero, -0 is zero.
        const s = gpuarray.toGpu(new Float32Array([0, 1.5, 0, -2, 0, 0, 0, 0, NaN, 0, -0, 4]), { shape: [3, 4] });
        const [r, c] = gpuarray.nonzero(s);
        const small = { rows: ints(r), cols: ints(c), flat: ints(gpuarray.flatnonzero(s)), argwhere: ints(gpuarray.argwhere(s)),
          extract: Array.from(gpuarray.extract(s, s).get(), (v) => (Number.isNaN(v) ? 'NaN' : v)),
          compress: Array.from(gpuarray.compress(gpuarray.toGpu(new Uint8Array([0, 1, 1, 0]), { dtype: 'bool' }), s, { axis: 1 }).get()),
          count: Number(gpuarray.countNonzero(s).item()) };
        // Past one chunk: every index with i % 3 != 0 or i % 7 == 0 (int32 i, 0 at the others).
        const n = (1 << 20) + 3;
        const h = Int32Array.from({ length: n }, (_, i) => (i % 3 !== 0 || i % 7 === 0 ? i : 0));
        const want = [];
        for (let i = 0; i < n; i++) if (h[i] !== 0) want.push(i);
        const g = gpuarray.toGpu(h);
        const f = gpuarray.flatnonzero(g).get(), e = gpuarray.extract(g, g).get();
        const big = { count: f.length, flatOk: f.length === want.length && want.every((v, i) => Number(f[i]) === v),
          extractOk: e.length === want.length && want.every((v, i) => e[i] === v) };
        const other = await fresh();
        for (const x of [s, r, c, g]) x.dispose();
        console.log(JSON.stringify({ ok: true, ends, small, big, want: want.length, other, live0, live1: settledLive() }));
      })().catch((e) => console.log(JSON.stringify({ ok: false, error: String(e && e.stack) })));
    `;
    const { status, out, stderr } = runChild(script, ['--expose-gc']);
    if (!out.ok) throw new Error(`child failed (status ${status}): ${String(out.error ?? '')}\n${stderr}`);
    expect(status).toBe(0);
    expect(out.ends).toEqual(new Array(6).fill('terminated'));
    expect(out.small).toEqual({
      rows: [0, 0, 2, 2], cols: [1, 3, 0, 3], flat: [1, 3, 8, 11], argwhere: [0, 1, 0, 3, 2, 0, 2, 3],
      extract: [1.5, -2, 'NaN', 4], compress: [1.5, 0, 0, 0, 0, 0], count: 4,
    });
    let want = 0; // h[0] is 0
    for (let i = 1; i < (1 << 20) + 3; i++) if (i % 3 !== 0 || i % 7 === 0) want++;
    expect(out.want).toBe(want);
    expect(out.big).toEqual({ count: want, flatOk: true, extractOk: true });
    expect(out.other).toEqual([[0, 1], [1, 2]]);
    expect(out.live1 as number).toBeLessThanOrEqual(out.live0 as number);
  });
});
