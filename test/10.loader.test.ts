/**
 * Layer 10: loading the package. Loading must work with no driver and no toolkit; what is missing
 * shows up as a typed error on first use. The environment cases run in child processes (the
 * driver and NVRTC are opened once per process) against the built package in dist/.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { hasGpu } from './helpers';

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const STUB = '/usr/local/cuda/lib64/stubs/libcuda.so';
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };

/** What a child reports about one call: the error's class, code and message, or its result. */
interface Outcome {
  threw: boolean;
  name?: string;
  code?: string;
  message?: string;
  isCudaError?: boolean;
  isNvrtcError?: boolean;
  isError?: boolean;
  value?: unknown;
}

/**
 * Runs `body` in a fresh Node process with `env` added. The body gets `cuda` (dist/) and
 * `grab(fn)` → Outcome, and sets `out.<name>`; the child prints `out` as JSON, then "ok".
 */
function child(body: string, env: Record<string, string>): { out: Record<string, Outcome | unknown>; stdout: string } {
  const script = `
    const cuda = require(${JSON.stringify(DIST)});
    const grab = (fn) => {
      try { return { threw: false, value: fn() }; } catch (e) {
        return { threw: true, name: e && e.name, code: e && e.code, message: String(e && e.message),
          isCudaError: e instanceof cuda.CudaError, isNvrtcError: e instanceof cuda.NvrtcError,
          isError: e instanceof Error };
      }
    };
    const out = {};
    ${body}
    console.log(JSON.stringify(out));
    console.log('ok');`;
  const r = spawnSync(process.execPath, ['-e', script], {
    env: { ...process.env, NODECUDA_CACHE: '0', ...env },
    encoding: 'utf8',
    timeout: 60000,
  });
  if (r.status !== 0) throw new Error(`child exited with ${r.status}: ${r.stderr}\n${r.stdout}`);
  const lines = r.stdout.trim().split('\n');
  // The process kept working after every error it caught: it got to the end.
  expect(lines[lines.length - 1]).toBe('ok');
  return { out: JSON.parse(lines[lines.length - 2]), stdout: r.stdout };
}

beforeAll(() => {
  if (!fs.existsSync(path.join(DIST, 'index.js'))) {
    throw new Error(`${DIST}/index.js is missing: the child-process tests load the built package. ` +
      'Run "npm run build:ts" (tsc -p tsconfig.build.json) first.');
  }
});

describe('loading in this process', () => {
  test("require('../lib') gives the public API", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const cuda = require('../lib');
    expect(typeof cuda.isAvailable).toBe('function');
    expect(typeof cuda.version).toBe('function');
    expect(typeof cuda.driver.memAlloc).toBe('function');
    expect(typeof cuda.compiler.compile).toBe('function');
    expect(typeof cuda.SourceModule).toBe('function');
    expect(cuda.CudaError.prototype).toBeInstanceOf(Error);
  });

  test('isAvailable() returns a boolean without throwing, the same on every call', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { isAvailable } = require('../lib');
    const a = isAvailable();
    expect(typeof a).toBe('boolean');
    expect(isAvailable()).toBe(a);
    expect(a).toBe(hasGpu);
  });

  test('version() has the package version, N-API 9, and NVRTC as "13.x" or null', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const v = require('../lib').version();
    expect(Object.keys(v).sort()).toEqual(['driver', 'napi', 'nodecuda', 'nvrtc']);
    expect(v.nodecuda).toBe(PKG.version);
    expect(v.napi).toBe(9);
    if (v.nvrtc !== null) expect(v.nvrtc).toMatch(/^13\.\d+$/);
    if (hasGpu) expect(v.driver).toMatch(/^\d+\.\d+$/);
    else if (v.driver !== null) expect(v.driver).toMatch(/^\d+\.\d+$/);
  });
});

describe('child processes with a broken environment', () => {
  test('the built package in a child agrees with this process', () => {
    const { out } = child(`out.available = cuda.isAvailable(); out.version = cuda.version();`, {});
    expect(out.available).toBe(hasGpu);
    expect((out.version as { nodecuda: string }).nodecuda).toBe(PKG.version);
  });

  test('NODECUDA_LIBCUDA pointing nowhere: isAvailable() false, CUDA_DRIVER_NOT_FOUND on use', () => {
    const { out, stdout } = child(`
      out.available = cuda.isAvailable();
      out.count = grab(() => cuda.driver.Device.count());
      out.count2 = grab(() => cuda.driver.Device.count());
      out.alloc = grab(() => cuda.driver.memAlloc(4));
      out.init = grab(() => cuda.driver.init());
      out.memory = grab(() => cuda.memory());
      out.version = cuda.version();`,
    { NODECUDA_LIBCUDA: '/nonexistent/libcuda.so.1' });
    expect(out.available).toBe(false);
    for (const k of ['count', 'count2', 'alloc', 'init']) {
      const o = out[k] as Outcome;
      expect(o).toMatchObject({ threw: true, name: 'CudaError', code: 'CUDA_DRIVER_NOT_FOUND', isCudaError: true, isError: true });
      expect(o.message).toMatch(/NVIDIA driver/);
      expect(o.message).toContain('/nonexistent/libcuda.so.1');
    }
    // Bookkeeping that needs no driver still works, and reports nothing allocated.
    expect(out.memory).toEqual({
      threw: false, value: { liveArrays: 0, liveAllocations: 0, liveBytes: 0, poolReservedBytes: 0, poolUsedBytes: 0 },
    });
    expect((out.version as { driver: unknown }).driver).toBeNull();
    expect(stdout.trim().endsWith('ok')).toBe(true);
  });

  const stubTest = fs.existsSync(STUB) ? test : test.skip;
  if (!fs.existsSync(STUB)) process.stdout.write(`[nodecuda] ${STUB} not found: skipping the stub-library case\n`);
  stubTest("NODECUDA_LIBCUDA = the toolkit's stub: isAvailable() false, CUDA_ERROR_STUB_LIBRARY", () => {
    const { out } = child(`
      out.available = cuda.isAvailable();
      out.count = grab(() => cuda.driver.Device.count());
      out.alloc = grab(() => cuda.driver.memAlloc(4));`,
    { NODECUDA_LIBCUDA: STUB });
    expect(out.available).toBe(false);
    for (const k of ['count', 'alloc']) {
      const o = out[k] as Outcome;
      expect(o).toMatchObject({ threw: true, name: 'CudaError', code: 'CUDA_ERROR_STUB_LIBRARY', isCudaError: true });
      expect(o.message).toMatch(/stub/);
    }
  });

  test('NODECUDA_NVRTC pointing nowhere: compile throws NVRTC_NOT_FOUND, version().nvrtc is null', () => {
    const { out } = child(`
      const src = '__global__ void k(float *x) { x[0] = 1; }';
      out.compile = grab(() => cuda.compiler.compile(src, { arch: 'sm_90' }));
      out.compile2 = grab(() => cuda.compiler.compile(src, { arch: 'sm_90' }));
      out.version = cuda.version();
      out.available = cuda.isAvailable();
      cuda.compiler.compileAsync(src, { arch: 'sm_90' }).then(
        () => { console.log('compileAsync resolved'); process.exit(3); },
        (e) => { if (!(e instanceof cuda.NvrtcError) || e.code !== 'NVRTC_NOT_FOUND') process.exit(4); });`,
    { NODECUDA_NVRTC: '/nonexistent/libnvrtc.so' });
    for (const k of ['compile', 'compile2']) {
      const o = out[k] as Outcome;
      expect(o).toMatchObject({ threw: true, name: 'NvrtcError', code: 'NVRTC_NOT_FOUND', isNvrtcError: true, isError: true });
      expect(o.message).toContain('/nonexistent/libnvrtc.so');
    }
    expect((out.version as { nvrtc: unknown }).nvrtc).toBeNull();
    // NVRTC missing does not affect the driver.
    expect(out.available).toBe(hasGpu);
  });
});
