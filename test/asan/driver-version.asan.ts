/**
 * Older drivers: the CPU driver double (test/fakecuda) pretending to be a CUDA 12.0 driver
 * (FAKECUDA_VERSION=12000: cuDriverGetVersion says 12.0, cuGetProcAddress offers only the entry
 * points CUDA 12.0 had) must load and run basic work; an 11.8 driver must be refused with a
 * message that names the minimum; entry points newer than 12.0 are optional.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

const PRELUDE = `
  const assert = require('assert');
  const nc = require(process.env.NODECUDA_DIST);
  const { driver, gpuarray, SourceModule } = nc;
  const { native } = require(process.env.NODECUDA_DIST + '/cuda/native');
  const grab = (f) => { try { return { value: f() }; } catch (e) { return { name: e.name, code: e.code, message: e.message }; } };
  const out = {};
`;

// The same basic work at each version: what a first program does.
const WORK = `
  (async () => {
    out.available = nc.isAvailable();
    out.availability = nc.availability();
    out.version = nc.version();
    out.status = native.driverStatus();
    const h = Float32Array.from({ length: 1000 }, (_, i) => i);
    const a = driver.memAllocLike(h), o = new Float32Array(1000);
    driver.memcpyHtod(a, h); driver.memcpyDtoh(o, a); assert.deepStrictEqual(o, h);
    const s = new driver.Stream();
    await driver.memcpyHtodAsync(a, h, s); await driver.memcpyDtohAsync(o, a, s); assert.deepStrictEqual(o, h);
    // Events and elapsed time (cuEventElapsedTime: CUDA 12.8 renamed it _v2).
    const e0 = new driver.Event(), e1 = new driver.Event();
    e0.record(s); e1.record(s); e1.synchronize();
    out.elapsed = e1.timeSince(e0);
    // A context of its own (cuCtxCreate: CUDA 12.5 added _v4).
    const ctx = new driver.Device(0).makeContext(); out.popped = driver.Context.pop() !== null; void ctx;
    // A kernel: compiled with NVRTC, loaded, launched (the double checks every parameter byte).
    const mod = new SourceModule('__global__ void twice(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2; }');
    mod.getFunction('twice')(a, 1000, { block: [256], grid: [4] });
    driver.Context.synchronize();
    const g = gpuarray.toGpu(h); out.back = Array.from(g.get().slice(0, 3)); g.dispose();
    s.dispose(); a.free();
    out.done = true;
    console.log(JSON.stringify(out));
  })().catch((e) => { console.error(e); process.exit(1); });
`;

test('a CUDA 12.0 driver: loads, reports 12.0, and runs copies, events, contexts and a launch', () => {
  const r = runFake(PRELUDE + WORK, { FAKECUDA_VERSION: '12000' });
  expectClean(r);
  const out = r.out as Record<string, Record<string, unknown>>;
  expect(out.done).toBe(true);
  expect(out.available).toBe(true);
  expect(out.availability).toMatchObject({ ok: true, code: 'CUDA_SUCCESS', driverVersion: 12000, cudaVersion: '12.0' });
  // cuFuncGetParamInfo is CUDA 12.4's: the 12.0 double does not offer it, and that is no reason to refuse.
  expect(out.availability.missingEntryPoints).toEqual(['cuFuncGetParamInfo']);
  expect(out.version.driver).toBe('12.0');
  expect(out.status.procAddress).toBe(true);
  expect(typeof out.elapsed).toBe('number');
  expect(out.popped).toBe(true);
  expect(out.back).toEqual([0, 1, 2]);
});

test('the double at its default (the headers\' CUDA 13) offers the CUDA 12.4 entry point too', () => {
  const r = runFake(PRELUDE + `out.a = nc.availability(); console.log(JSON.stringify(out));`);
  expectClean(r);
  expect(r.out.a).toMatchObject({ ok: true, cudaVersion: '13.0', missingEntryPoints: [] });
});

test('a CUDA 11.8 driver is refused: CUDA_DRIVER_TOO_OLD naming 12.0 (R525); compiling still works', () => {
  const r = runFake(PRELUDE + `
    out.available = nc.isAvailable();
    out.availability = nc.availability();
    out.version = nc.version();
    out.alloc = grab(() => driver.memAlloc(4));
    out.count = grab(() => driver.Device.count());
    out.compile = grab(() => nc.compiler.compile('__global__ void k(int *x) { x[0] = 1; }', { arch: 'sm_90' }).image.length);
    out.free = grab(() => nc.freeCachedMemory());
    console.log(JSON.stringify(out));`, { FAKECUDA_VERSION: '11080' });
  expectClean(r);
  const out = r.out as Record<string, Record<string, unknown>>;
  expect(out.available).toBe(false);
  expect(out.availability).toMatchObject({ ok: false, code: 'CUDA_DRIVER_TOO_OLD', driverVersion: 11080, cudaVersion: '11.8',
    minCudaVersion: '12.0', dlopenError: null });
  expect(out.availability.message).toMatch(/supports CUDA 11\.8; nodecuda needs a driver for CUDA 12\.0 or newer \(R525 or newer\)/);
  expect(out.version.driver).toBe('11.8');
  for (const k of ['alloc', 'count']) {
    expect(out[k]).toMatchObject({ name: 'CudaError', code: 'CUDA_DRIVER_TOO_OLD' });
    expect(out[k].message).toMatch(/CUDA 12\.0 or newer/);
  }
  expect(out.compile.value).toBeGreaterThan(0);
  expect(out.free).toEqual({});
});

test('NVRTC: with a 12.x driver libnvrtc.so.12 is preferred; with 13.x libnvrtc.so.13', () => {
  // A toolkit root with both sonames (each a link to this machine's NVRTC): which one opens shows the order.
  const real = ['/usr/local/cuda/lib64/libnvrtc.so.13', '/usr/local/cuda/lib64/libnvrtc.so.12'].find((f) => fs.existsSync(f));
  if (!real) throw new Error('no libnvrtc.so.13 or .12 under /usr/local/cuda/lib64');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-nvrtc-'));
  try {
    fs.mkdirSync(path.join(root, 'lib64'));
    for (const so of ['libnvrtc.so.12', 'libnvrtc.so.13']) fs.symlinkSync(fs.realpathSync(real), path.join(root, 'lib64', so));
    const script = PRELUDE + `out.path = nc.diagnose().nvrtc.path; console.log(JSON.stringify(out));`;
    const env = { CUDA_HOME: root, NODECUDA_NVRTC: '' };
    const r12 = runFake(script, { ...env, FAKECUDA_VERSION: '12060' });
    expectClean(r12);
    expect(r12.out.path).toBe(path.join(root, 'lib64', 'libnvrtc.so.12'));
    const r13 = runFake(script, { ...env, FAKECUDA_VERSION: '13000' });
    expectClean(r13);
    expect(r13.out.path).toBe(path.join(root, 'lib64', 'libnvrtc.so.13'));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('cuFuncGetParamInfo (CUDA 12.4): paramInfo() and the signature cross-check where the driver has it', () => {
  const script = PRELUDE + `
    const mod = new SourceModule(\`
      __global__ void arr(float (*x)[4], int n) { }
      #define ARGS float *y, int m
      __global__ void hidden(ARGS) { }\`);
    const arr = mod.getFunction('arr'), hidden = mod.getFunction('hidden');
    out.arrParams = arr.params.map((p) => p.kind);
    out.hiddenParams = hidden.params && hidden.params.map((p) => p.kind);
    out.info = grab(() => arr.paramInfo());
    console.log(JSON.stringify(out));`;
  const r13 = runFake(script);
  expectClean(r13);
  const o13 = r13.out as Record<string, Record<string, unknown>>;
  expect(o13.arrParams).toEqual(['ptr', 'scalar']);
  expect(o13.info.value).toEqual([{ offset: 0, size: 8 }, { offset: 8, size: 4 }]);
  // The parser sees one parameter (ARGS), the kernel has two: the parse is not used.
  expect(o13.hiddenParams).toBeNull();
  const r12 = runFake(script, { FAKECUDA_VERSION: '12000' });
  expectClean(r12);
  const o12 = r12.out as Record<string, Record<string, unknown>>;
  expect(o12.info).toMatchObject({ name: 'CudaError', code: 'CUDA_ERROR_NOT_SUPPORTED' });
  expect(o12.info.message).toMatch(/cuFuncGetParamInfo needs a driver for CUDA 12\.4 or newer; this driver supports CUDA 12\.0/);
  // Without the entry point the parse is used as is.
  expect(o12.arrParams).toEqual(['ptr', 'scalar']);
  expect(o12.hiddenParams).toEqual(['unknown']);
});

test('{ signal } on async copies and synchronizeAsync; keep() inside tidy(); NODE_DEBUG pool growth', () => {
  const r = runFake(PRELUDE + `
    (async () => {
      const why = async (p) => { try { await p; return 'resolved'; } catch (e) { return e.name + ' ' + e.code; } };
      const h = new Float32Array(1 << 16), a = driver.memAllocLike(h), s = new driver.Stream();
      out.pre = await why(driver.memcpyHtodAsync(a, h, s, { signal: AbortSignal.abort() }));
      const ac = new AbortController();
      const copy = driver.memcpyDtohAsync(new Float32Array(1 << 16), a, s, { signal: ac.signal });
      const sync = s.synchronizeAsync({ signal: ac.signal });
      const ev = new driver.Event().record(s);
      const evSync = ev.synchronizeAsync({ signal: ac.signal });
      ac.abort();
      out.during = [await why(copy), await why(sync), await why(evSync)];
      out.plain = await why(s.synchronizeAsync({ signal: new AbortController().signal }));
      out.badSignal = await why(Promise.resolve().then(() => driver.Context.synchronizeAsync({ signal: 1 })));
      // keep(): arrays created in tidy() are disposed unless returned or kept.
      let kept, dropped;
      nc.tidy(() => { kept = nc.keep(gpuarray.toGpu(new Float32Array(8))); dropped = gpuarray.toGpu(new Float32Array(8)); });
      out.kept = !kept.disposed; out.dropped = dropped.disposed;
      kept.dispose(); s.dispose(); a.free();
      console.log(JSON.stringify(out));
    })().catch((e) => { console.error(e); process.exit(1); });`, { FAKECUDA_SYNC_DELAY_MS: '300', NODE_DEBUG: 'nodecuda' });
  expectClean(r);
  const out = r.out as Record<string, Record<string, unknown>>;
  expect(out.pre).toBe('AbortError ABORT_ERR');
  expect(out.during).toEqual(['AbortError ABORT_ERR', 'AbortError ABORT_ERR', 'AbortError ABORT_ERR']);
  expect(out.plain).toBe('resolved');
  expect(out.badSignal).toBe('TypeError ERR_INVALID_ARG_TYPE');
  expect(out).toMatchObject({ kept: true, dropped: true });
  expect(r.stderr).toMatch(/^NODECUDA \d+: memory pool of device 0 grew from 0\.0 MiB to \d+\.\d MiB \(allocating 262144 bytes\)$/m);
});

test('PTX from an NVRTC newer than the driver: a clear CUDA_ERROR_UNSUPPORTED_PTX_VERSION before loading', () => {
  const r = runFake(PRELUDE + `
    const [maj, min] = native.nvrtcVersion();
    out.nvrtc = maj * 1000 + min * 10;
    out.ptx = grab(() => new SourceModule('__global__ void k(int *x) { x[0] = 1; }', { target: 'ptx' }));
    out.cubin = grab(() => typeof new SourceModule('__global__ void k(int *x) { x[0] = 1; }').getFunction('k'));
    console.log(JSON.stringify(out));`, { FAKECUDA_VERSION: '12000' });
  expectClean(r);
  const out = r.out as Record<string, Record<string, unknown>>;
  expect(out.cubin).toEqual({ value: 'function' });
  if (Number(out.nvrtc) > 12000) {
    expect(out.ptx).toMatchObject({ name: 'CudaError', code: 'CUDA_ERROR_UNSUPPORTED_PTX_VERSION' });
    expect(out.ptx.message).toMatch(/cannot be loaded by this driver \(CUDA 12\.0\)/);
  } else {
    expect(out.ptx).toHaveProperty('value');
  }
});
