/**
 * Layer 12: telling a user what works here. cuda.availability() (the reason behind isAvailable()),
 * cuda.diagnose() and `npx nodecuda doctor` (bin/nodecuda.js), freeCachedMemory() with nothing
 * allocated, and CudaError's printed fields. Each case runs in a child process against dist/ (the
 * driver is opened once per process), with a temporary cache directory.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { hasGpu } from './helpers';

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const BIN = path.join(ROOT, 'bin', 'nodecuda.js');
const STUB = '/usr/local/cuda/lib64/stubs/libcuda.so';
const NO_DRIVER = { NODECUDA_LIBCUDA: '/nonexistent/libcuda.so.1' };

let cacheDir: string;
beforeAll(() => {
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-doctor-test-'));
});
afterAll(() => fs.rmSync(cacheDir, { recursive: true, force: true }));

/** Runs `body` (with `cuda` = dist/) in a child; it sets `out`, printed as the last JSON line.
 * NODECUDA_CODE_CACHE=0: the code cache file (test/33) would change the counts checked here. */
function child(body: string, env: Record<string, string> = {}): Record<string, unknown> {
  const script = `const cuda = require(${JSON.stringify(DIST)}); const out = {}; ${body}; console.log(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8', timeout: 120_000, env: { ...process.env, NODECUDA_CACHE_DIR: cacheDir, NODECUDA_CODE_CACHE: '0', ...env },
  });
  if (r.status !== 0) throw new Error(`child failed (${r.status}):\n${r.stderr}\n${r.stdout}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

function bin(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8', timeout: 120_000, env: { ...process.env, NODECUDA_CACHE_DIR: cacheDir, NODECUDA_CODE_CACHE: '0', ...env },
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

describe('availability()', () => {
  test('no driver library: the code, the dlopen message and the minimum version; isAvailable() agrees', () => {
    const out = child('out.a = cuda.availability(); out.ok = cuda.isAvailable();', NO_DRIVER);
    expect(out.ok).toBe(false);
    expect(out.a).toEqual({
      ok: false,
      code: 'CUDA_DRIVER_NOT_FOUND',
      message: expect.stringContaining('/nonexistent/libcuda.so.1'),
      library: '/nonexistent/libcuda.so.1',
      dlopenError: expect.stringMatching(/nonexistent\/libcuda\.so\.1: cannot open shared object file/),
      driverVersion: null,
      cudaVersion: null,
      minCudaVersion: '12.0',
      missingEntryPoints: [],
    });
  });

  (fs.existsSync(STUB) ? test : test.skip)("the toolkit's stub library: CUDA_ERROR_STUB_LIBRARY, not 'too old'", () => {
    const out = child('out.a = cuda.availability();', { NODECUDA_LIBCUDA: STUB });
    expect(out.a).toMatchObject({ ok: false, code: 'CUDA_ERROR_STUB_LIBRARY', dlopenError: null, library: STUB });
    expect((out.a as { message: string }).message).toMatch(/stub library/);
  });

  test('this machine: ok exactly when a GPU is there; the CUDA version is known whenever a driver answers', () => {
    const out = child('out.a = cuda.availability(); out.v = cuda.version();');
    const a = out.a as { ok: boolean; cudaVersion: string | null; driverVersion: number | null };
    expect(a.ok).toBe(hasGpu);
    if (hasGpu) {
      expect(a.driverVersion).toBeGreaterThanOrEqual(12000);
      expect(a.cudaVersion).toMatch(/^\d+\.\d+$/);
      expect((out.v as { driver: string }).driver).toBe(a.cudaVersion);
    }
  });
});

describe('without a driver', () => {
  test('freeCachedMemory() with nothing allocated does not throw', () => {
    const out = child(`
      try { cuda.freeCachedMemory(); out.threw = false; } catch (e) { out.threw = e.code; }
      out.memory = cuda.memory();`, NO_DRIVER);
    expect(out.threw).toBe(false);
    expect(out.memory).toMatchObject({ liveBytes: 0, poolReservedBytes: 0 });
  });

  test('a CudaError prints requestedBytes/freeBytes only when they are set', () => {
    const out = child(`
      const util = require('util');
      try { cuda.driver.memAlloc(4); } catch (e) { out.thrown = util.inspect(e); out.keys = Object.keys(e); }
      const made = new cuda.CudaError('x', { code: 'CUDA_ERROR_OUT_OF_MEMORY', status: 2, call: 'cuMemAlloc' });
      out.made = util.inspect(made);
      const oom = new cuda.CudaError('x', { code: 'CUDA_ERROR_OUT_OF_MEMORY', status: 2, call: 'cuMemAlloc',
        requestedBytes: 1024, freeBytes: 0 });
      out.oom = util.inspect(oom);`, NO_DRIVER);
    expect(out.thrown).toMatch(/code: 'CUDA_DRIVER_NOT_FOUND'/);
    for (const k of ['thrown', 'made']) expect(out[k]).not.toMatch(/requestedBytes|freeBytes/);
    expect(out.keys).not.toContain('requestedBytes');
    expect(out.oom).toMatch(/requestedBytes: 1024/);
    expect(out.oom).toMatch(/freeBytes: 0/);
  });
});

describe('diagnose()', () => {
  test('reports the driver, GPUs, NVRTC, cuRAND, the cache, the binary, and checks the features', () => {
    fs.writeFileSync(path.join(cacheDir, 'marker'), 'x'.repeat(100));
    const out = child('out.d = cuda.diagnose(); out.text = cuda.formatDiagnosis(out.d);');
    const d = out.d as import('../lib/doctor/diagnose').Diagnosis;
    expect(d.driver.ok).toBe(hasGpu);
    expect(d.devices.length > 0).toBe(hasGpu);
    expect(d.binary.path).toMatch(/nodecuda\.node$/);
    expect(fs.existsSync(d.binary.path)).toBe(true);
    // NVRTC is part of this machine's toolkit: found, and a compile runs.
    expect(d.nvrtc).toMatchObject({ ok: true, message: '' });
    expect(fs.existsSync(d.nvrtc.path!)).toBe(true);
    expect(d.nvrtc.version).toMatch(/^\d+\.\d+$/);
    expect(d.nvrtc.supportedArchs).toContain('sm_90');
    expect(d.features.compile.ok).toBe(true);
    expect(d.features.compile.message).toMatch(/^compiled a kernel for sm_\d+ with NVRTC in \d+ ms \([1-9]\d* bytes of cubin\)$/);
    expect(d.features.launch.ok).toBe(hasGpu);
    if (!hasGpu) expect(d.features.launch.message).toMatch(/^not tried: /);
    if (d.curand.ok) expect(fs.existsSync(d.curand.path!)).toBe(true);
    else expect(d.curand.message).toMatch(/cuRAND/);
    expect(d.cache).toEqual({ dir: cacheDir, enabled: true, exists: true, writable: true, files: 1, bytes: 100 });
    expect(typeof d.features.gl.ok).toBe('boolean');
    // The text shows the same facts.
    const text = out.text as string;
    expect(text).toMatch(/^nodecuda \S+ on Node\.js v\d/);
    expect(text).toContain(`NVRTC    ${d.nvrtc.version} at ${d.nvrtc.path}`);
    expect(text).toContain(`${cacheDir}: 1 files, 0.0 MiB`);
    expect(text).toMatch(/^ok compile /m);
    // The checks leave nothing in the cache directory.
    expect(fs.readdirSync(cacheDir)).toEqual(['marker']);
    fs.rmSync(path.join(cacheDir, 'marker'));
  });

  test('without a driver: the reason, no GPUs, and compiling still works', () => {
    const d = child('out.d = cuda.diagnose();', NO_DRIVER).d as import('../lib/doctor/diagnose').Diagnosis;
    expect(d.driver).toMatchObject({ ok: false, code: 'CUDA_DRIVER_NOT_FOUND' });
    expect(d.devices).toEqual([]);
    expect(d.features.compile.ok).toBe(true);
    expect(d.features.launch).toEqual({ ok: false, message: 'not tried: no usable GPU (CUDA_DRIVER_NOT_FOUND; see driver)' });
  });
});

describe('NODE_DEBUG=nodecuda', () => {
  function run(body: string, env: Record<string, string>): { stderr: string; status: number | null } {
    const script = `const cuda = require(${JSON.stringify(DIST)}); ${body}`;
    const r = spawnSync(process.execPath, ['-e', script], {
      encoding: 'utf8', timeout: 120_000, env: { ...process.env, NODECUDA_CACHE_DIR: cacheDir, NODECUDA_CODE_CACHE: '0', ...NO_DRIVER, ...env },
    });
    return { stderr: r.stderr ?? '', status: r.status };
  }
  const src = `'__global__ void dbg_first(float *x) { x[0] = ${Date.now() % 1000}; } __global__ void dbg_second(int n) {}'`;
  const body = `cuda.compiler.compile(${src}, { arch: 'sm_90' }); cuda.compiler.compile(${src}, { arch: 'sm_90' });`;

  test('a compile logs its kernels, arch and time; the next process logs the disk cache hit', () => {
    const first = run(body, { NODE_DEBUG: 'nodecuda' });
    expect(first.status).toBe(0);
    const lines = first.stderr.trim().split('\n');
    // One miss and one compile; the second call in the same process is served from memory (no line).
    expect(lines).toEqual([
      expect.stringMatching(/^NODECUDA \d+: disk cache miss: dbg_first, dbg_second for sm_90 \(key [0-9a-f]{12} in /),
      expect.stringMatching(/^NODECUDA \d+: compiling dbg_first, dbg_second for sm_90: \d+ ms \(NVRTC \d+\.\d+\)$/),
    ]);
    const second = run(body, { NODE_DEBUG: 'nodecuda' });
    expect(second.stderr.trim()).toMatch(/^NODECUDA \d+: disk cache hit: dbg_first, dbg_second for sm_90 \(key [0-9a-f]{12} in /);
    expect(second.stderr).not.toMatch(/compiling/);
  });

  test('silent without NODE_DEBUG', () => {
    expect(run(body.replace(/dbg_first/g, 'dbg_quiet'), {}).stderr).toBe('');
  });
});

describe('AbortSignal on compileAsync', () => {
  test('an aborted signal rejects with AbortError; the compile still finishes in the background', () => {
    const out = child(`
      (async () => {
        const src = '__global__ void ab_k(float *x) { x[0] = ${Date.now() % 977}; }';
        const grab = async (p) => { try { await p; return 'resolved'; } catch (e) { return { name: e.name, code: e.code, cause: String(e.cause) }; } };
        out.cubinsBefore = require('fs').readdirSync(process.env.NODECUDA_CACHE_DIR, { recursive: true }).filter((f) => String(f).endsWith('.entry')).length;
        out.before = await grab(cuda.compiler.compileAsync(src, { arch: 'sm_90', signal: AbortSignal.abort('early') }));
        const ac = new AbortController();
        const p = cuda.compiler.compileAsync(src, { arch: 'sm_90', signal: ac.signal });
        ac.abort('late');
        out.during = await grab(p);
        out.bad = await grab(Promise.resolve().then(() => cuda.compiler.compileAsync(src, { arch: 'sm_90', signal: 'x' })));
        // The aborted compile still completes in the background: its image reaches the disk cache.
        const fs = require('fs'), dir = process.env.NODECUDA_CACHE_DIR;
        const files = () => fs.readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.entry')).length;
        for (let i = 0; i < 600 && files() < out.cubinsBefore + 1; i++) await new Promise((r) => setTimeout(r, 100));
        out.cubinsAfter = files();
        out.ok = await grab(cuda.compiler.compileAsync(src, { arch: 'sm_90', signal: new AbortController().signal }));
        console.log(JSON.stringify(out));
      })();
      out.sync = true`, NO_DRIVER);
    expect(out.before).toEqual({ name: 'AbortError', code: 'ABORT_ERR', cause: 'early' });
    expect(out.during).toEqual({ name: 'AbortError', code: 'ABORT_ERR', cause: 'late' });
    expect(out.bad).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    expect(out.ok).toBe('resolved');
    expect(out.cubinsAfter).toBe((out.cubinsBefore as number) + 1);
  });
});

describe('npx nodecuda doctor (bin/nodecuda.js)', () => {
  test('package.json declares the bin, and the file is shipped', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ nodecuda: 'bin/nodecuda.js', 'nodecuda-build': 'bin/nodecuda-build.js' });
    expect(pkg.files).toContain('bin');
    expect(fs.readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  test('doctor prints the readable report; --json the same data as diagnose()', () => {
    const r = bin(['doctor'], NO_DRIVER);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^-- driver {3}CUDA_DRIVER_NOT_FOUND: The NVIDIA driver library/m);
    expect(r.stdout).toMatch(/^-- GPUs {5}none$/m);
    expect(r.stdout).toMatch(/^ok NVRTC {4}\d+\.\d+ at \//m);
    expect(r.stdout).toMatch(/^ok compile {2}compiled a kernel/m);
    expect(r.stdout).toMatch(/^-- launch {3}not tried/m);
    const j = bin(['doctor', '--json'], NO_DRIVER);
    expect(j.status).toBe(0);
    const d = JSON.parse(j.stdout);
    expect(Object.keys(d).sort()).toEqual(['binary', 'cache', 'curand', 'devices', 'driver', 'features', 'node', 'nodecuda', 'nvrtc', 'platform']);
    expect(d.driver.code).toBe('CUDA_DRIVER_NOT_FOUND');
  });

  test('an unknown command prints the usage and exits 2', () => {
    const r = bin(['frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/^usage: nodecuda doctor/);
  });
});
