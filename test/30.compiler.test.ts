/**
 * Layer 30: NVRTC compilation, which needs no GPU (CI runs all of this), and the on-disk CUBIN
 * cache. Every source carries a random tag so the in-process image cache never hides behaviour.
 */
import { spawnSync } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { NvrtcError, compiler } from '../lib';
import { writeEntry } from '../lib/cuda/disk_cache';
import { expectCode } from './helpers';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Number } = globalThis;

const DIST = path.resolve(__dirname, '..', 'dist');
const tag = () => randomBytes(6).toString('hex');
/** A fresh kernel `k_<tag>` storing a random constant. */
function kernel(): { src: string; name: string; value: number } {
  const t = tag();
  const value = 100000 + (parseInt(t.slice(0, 6), 16) % 800000);
  return { src: `__global__ void k_${t}(int *x) { x[0] = ${value}; }`, name: `k_${t}`, value };
}
const text = (img: Uint8Array) => Buffer.from(img).toString('utf8');
const u32 = (img: Uint8Array, off: number) => Buffer.from(img.buffer, img.byteOffset, img.byteLength).readUInt32LE(off);

let tmp: string;
const saved = { dir: process.env.NODECUDA_CACHE_DIR, cache: process.env.NODECUDA_CACHE };
const freshDir = () => fs.mkdtempSync(path.join(tmp, 'cache-'));
const listDir = (d: string) => (fs.existsSync(d) ? fs.readdirSync(d).sort() : []);

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-30-'));
  process.env.NODECUDA_CACHE_DIR = path.join(tmp, 'default'); // never write into ~/.cache from tests
  delete process.env.NODECUDA_CACHE;
});
afterAll(() => {
  for (const [k, v] of [['NODECUDA_CACHE_DIR', saved.dir], ['NODECUDA_CACHE', saved.cache]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('compile without a GPU', () => {
  test.each([75, 90])('CUBIN for sm_%i is a CUDA ELF for that arch', (sm) => {
    const k = kernel();
    const r = compiler.compile(k.src, { arch: `sm_${sm}` });
    expect(r.image).toBeInstanceOf(Uint8Array);
    expect([...r.image.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]); // \x7fELF
    expect(r.image[18] | (r.image[19] << 8)).toBe(190); // e_machine = EM_CUDA
    const flags = u32(r.image, 48);
    expect([flags & 0xff, (flags >> 8) & 0xff]).toContain(sm);
    expect(text(r.image)).toContain(k.name);
    expect(typeof r.log).toBe('string');
    expect(r.loweredNames).toEqual({});
  });

  test("target 'ptx' (or a compute_ arch) gives PTX text for that arch", () => {
    const k = kernel();
    const ptx = text(compiler.compile(k.src, { arch: 'sm_90', target: 'ptx' }).image);
    expect(ptx).toMatch(/\.target sm_90\b/);
    expect(ptx).toContain(`.entry ${k.name}(`);
    expect(ptx).toContain(String(k.value));
    expect(ptx.startsWith('\x7fELF')).toBe(false);
    const viaArch = text(compiler.compile(kernel().src, { arch: 'compute_75' }).image);
    expect(viaArch).toMatch(/\.target sm_75\b/);
  });

  test('sources are wrapped in extern "C" unless noExternC (then names are mangled)', () => {
    const k = kernel();
    const plain = text(compiler.compile(k.src, { arch: 'sm_90', target: 'ptx' }).image);
    expect(plain).toContain(`.entry ${k.name}(`);
    const mangled = text(compiler.compile(k.src, { arch: 'sm_90', target: 'ptx', noExternC: true }).image);
    expect(mangled).not.toContain(`.entry ${k.name}(`);
    expect(mangled).toMatch(new RegExp(`\\.entry _Z\\d+${k.name}Pi\\(`));
  });

  test('leading #include lines stay outside extern "C" (C++ toolkit headers compile)', () => {
    const root = process.env.CUDA_HOME || process.env.CUDA_PATH || '/usr/local/cuda';
    if (!fs.existsSync(path.join(root, 'include', 'cuda_fp16.h'))) {
      console.log('skipped: no toolkit cuda_fp16.h');
      return;
    }
    const k = kernel();
    const src = `#include <cuda_fp16.h>\n__global__ void ${k.name}(__half *x) { x[0] = __float2half(${k.value}.0f); }`;
    const ptx = text(compiler.compile(src, { arch: 'sm_90', target: 'ptx' }).image);
    expect(ptx).toContain(`.entry ${k.name}(`);
  });

  test('nameExpressions report the lowered name of each template instance', () => {
    const t = tag();
    const src = `template <typename T> __global__ void tk_${t}(T *x) { x[0] = T(${t.length}); }`;
    const exprs = [`tk_${t}<float>`, `tk_${t}<int>`];
    const r = compiler.compile(src, { arch: 'sm_90', target: 'ptx', noExternC: true, nameExpressions: exprs });
    expect(Object.keys(r.loweredNames).sort()).toEqual([...exprs].sort());
    const [f, i] = exprs.map((e) => r.loweredNames[e]);
    expect(f).toMatch(/^_Z/);
    expect(f).toContain(`tk_${t}`);
    expect(f).not.toBe(i);
    for (const lowered of [f, i]) expect(text(r.image)).toContain(`.entry ${lowered}(`);
  });

  test('includeDirs make user headers visible', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'inc-'));
    const value = 424242;
    fs.writeFileSync(path.join(dir, 'consts.h'), `#define HV ${value}\n`);
    const src = `#include "consts.h"\n__global__ void h_${tag()}(int *x) { x[0] = HV; }`;
    expect(text(compiler.compile(src, { arch: 'sm_90', target: 'ptx', includeDirs: [dir] }).image)).toContain(String(value));
    const e = expectCode(() => compiler.compile(src, { arch: 'sm_90' }), NvrtcError, 'NVRTC_ERROR_COMPILATION');
    expect((e as NvrtcError).log).toContain('consts.h');
  });

  test('-D options change the output and the cache key', () => {
    const dir = freshDir();
    const src = `__global__ void d_${tag()}(int *x) { x[0] = VALUE * 1000001; }`;
    const a = compiler.compile(src, { arch: 'sm_90', target: 'ptx', options: ['-DVALUE=3'], cacheDir: dir });
    const b = compiler.compile(src, { arch: 'sm_90', target: 'ptx', options: ['-DVALUE=4'], cacheDir: dir });
    expect(text(a.image)).toContain('3000003');
    expect(text(b.image)).toContain('4000004');
    expect(listDir(dir).filter((f) => f.endsWith('.entry'))).toHaveLength(2);
  });

  test('a compile error is an NvrtcError with the log, numbered source and options', () => {
    const t = tag();
    const src = `__global__ void bad_${t}(float *x) {\n  x[0] = 1;\n  undefined_${t} = 2;\n  x[1] = 3;\n}`;
    const e = expectCode(() => compiler.compile(src, { arch: 'sm_90', options: ['-DFOO=1'] }), NvrtcError,
      'NVRTC_ERROR_COMPILATION') as NvrtcError;
    expect(e.name).toBe('NvrtcError');
    expect(e.log).toMatch(new RegExp(`error: identifier "undefined_${t}" is undefined`));
    const marked = e.message.split('\n').filter((l) => l.startsWith('>'));
    expect(marked).toHaveLength(1);
    const line = Number(/kernel\.cu\((\d+)\): error/.exec(e.log)![1]);
    expect(marked[0]).toBe(`>${String(line).padStart(5)} |   undefined_${t} = 2;`);
    expect(e.message).toContain(`\n ${String(line - 1).padStart(5)} |   x[0] = 1;\n`); // context, unmarked
    expect(e.source).toContain(`undefined_${t} = 2;`);
    expect(e.source).toContain('extern "C"');
    expect(e.options).toEqual(expect.arrayContaining(['--gpu-architecture=sm_90', '-DFOO=1']));
    expect(e.message).toContain('-DFOO=1');
  });

  test('compileAsync resolves the same image as compile, and rejects with NvrtcError', async () => {
    const k = kernel();
    const pending = compiler.compileAsync(k.src, { arch: 'sm_90' });
    expect(pending).toBeInstanceOf(Promise);
    const a = await pending;
    // A -D the source does not use makes a different key: a second, independent compile.
    const b = compiler.compile(k.src, { arch: 'sm_90', options: ['-DUNUSED_MACRO=1'] });
    expect(Buffer.from(a.image).equals(Buffer.from(b.image))).toBe(true);
    const err = await compiler.compileAsync(`__global__ void e_${tag()}() { nope; }`, { arch: 'sm_90' })
      .then(() => null, (x: unknown) => x);
    expect(err).toBeInstanceOf(NvrtcError);
    expect(err).toMatchObject({ code: 'NVRTC_ERROR_COMPILATION' });
    expect((err as NvrtcError).message).toMatch(/^>/m);
  });

  test('bad arguments are TypeErrors (compileAsync rejects with them)', async () => {
    const src = kernel().src;
    const cases: Array<[unknown, Record<string, unknown> | null, string]> = [
      [42, { arch: 'sm_90' }, 'ERR_INVALID_ARG_TYPE'],
      [src, null, 'ERR_INVALID_ARG_TYPE'],
      [src, { arch: 'sm_90', options: '-O3' }, 'ERR_INVALID_ARG_TYPE'],
      [src, { arch: 'sm_90', options: [3] }, 'ERR_INVALID_ARG_TYPE'],
      [src, { arch: 'sm_90', includeDirs: '/tmp' }, 'ERR_INVALID_ARG_TYPE'],
      [src, { arch: 'sm_90', nameExpressions: 'k' }, 'ERR_INVALID_ARG_TYPE'],
      [src, { arch: 'sm_90', target: 'elf' }, 'ERR_INVALID_ARG_VALUE'],
      [src, { arch: 'sm90' }, 'ERR_INVALID_ARG_VALUE'],
      [src, { arch: 90 }, 'ERR_INVALID_ARG_VALUE'],
    ];
    for (const [s, o, code] of cases) {
      expectCode(() => compiler.compile(s as string, o as never), TypeError, code);
      const rejected = await compiler.compileAsync(s as string, o as never).then(() => null, (x: unknown) => x);
      expect(rejected).toBeInstanceOf(TypeError);
      expect(rejected).toMatchObject({ code });
    }
  });
});

/** Compiles NC_SRC with cacheDir NC_DIR in a fresh process (empty in-process cache). */
function childCompile(src: string, dir: string, extra: Record<string, unknown> = {}, warm = '') {
  const script = `
    const { performance } = require('perf_hooks');
    const cuda = require(${JSON.stringify(DIST)});
    const opts = { arch: 'sm_90', cacheDir: process.env.NC_DIR, ...JSON.parse(process.env.NC_OPTS) };
    cuda.version(); // load NVRTC first, so the timings are of the cache alone
    let t = performance.now();
    if (process.env.NC_WARM) cuda.compiler.compile(process.env.NC_WARM, opts); // a first disk hit warms the code path
    const warmMs = performance.now() - t;
    t = performance.now();
    const first = cuda.compiler.compile(process.env.NC_SRC, opts);
    const diskHitMs = performance.now() - t;
    const times = [];
    for (let i = 0; i < 20; i++) {
      t = performance.now(); cuda.compiler.compile(process.env.NC_SRC, opts); times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    t = performance.now();
    cuda.compiler.compile('__global__ void fresh_' + process.pid + '_' + Date.now() + '() {}', { arch: 'sm_90' });
    const compileMs = performance.now() - t;
    console.log(JSON.stringify({ image: Buffer.from(first.image).toString('base64'), loweredNames: first.loweredNames,
      diskHitMs, warmMs, medianMs: (times[9] + times[10]) / 2, compileMs }));`;
  const r = spawnSync(process.execPath, ['-e', script], {
    env: { ...process.env, NODECUDA_CACHE_DIR: path.join(tmp, 'child-default'), NC_SRC: src, NC_DIR: dir,
      NC_OPTS: JSON.stringify(extra), NC_WARM: warm },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`child failed (${r.status}): ${r.stderr}`);
  const o = JSON.parse(r.stdout.trim().split('\n').pop()!);
  return { ...o, image: new Uint8Array(Buffer.from(o.image, 'base64')) } as {
    image: Uint8Array; loweredNames: Record<string, string>; diskHitMs: number; warmMs: number; medianMs: number; compileMs: number;
  };
}

describe('disk cache', () => {
  beforeAll(() => {
    if (!fs.existsSync(path.join(DIST, 'index.js'))) {
      throw new Error(`${DIST}/index.js is missing: run "npm run build:ts" first (the child processes load dist/).`);
    }
  });

  test('a compile writes <sha256>.entry; a new process reads it instead of compiling', () => {
    const dir = freshDir();
    const k = kernel();
    const r = compiler.compile(k.src, { arch: 'sm_90', cacheDir: dir });
    const files = listDir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{64}\.entry$/);
    const file = path.join(dir, files[0]);
    const bytes = fs.readFileSync(file);
    expect(bytes.subarray(0, 8).toString()).toBe('NCKCACHE'); // header first, then the image
    expect(bytes.subarray(bytes.length - r.image.length).equals(Buffer.from(r.image))).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const warm = kernel();
    compiler.compile(warm.src, { arch: 'sm_90', cacheDir: dir });
    const c = childCompile(k.src, dir, {}, warm.src);
    expect(Buffer.from(c.image).equals(Buffer.from(r.image))).toBe(true);
    process.stdout.write(`[nodecuda] cache: first disk hit in a process ${c.warmMs.toFixed(3)} ms, next ${c.diskHitMs.toFixed(3)} ms, in-process hit median ` +
      `${c.medianMs.toFixed(3)} ms (20 calls), fresh NVRTC compile ${c.compileMs.toFixed(1)} ms\n`);
    expect(c.medianMs).toBeLessThan(5);
    expect(c.diskHitMs).toBeLessThan(c.compileMs);

    // Proof that the child read the file: it returns what a well-formed entry holds. (The header's
    // hash catches damage, not forgery: the directory's ownership and mode keep others out.)
    const before = listDir(dir); // this entry and the warm-up's
    const marker = new Uint8Array(Buffer.from(`nodecuda-marker-${tag()}`));
    writeEntry(dir, files[0].slice(0, 64), 'cubin', { image: marker, log: '', loweredNames: [] });
    expect(Buffer.from(childCompile(k.src, dir).image).equals(Buffer.from(marker))).toBe(true);
    // Damage (bytes appended) is detected: the child compiles again and rewrites the entry.
    fs.appendFileSync(file, 'junk');
    expect(Buffer.from(childCompile(k.src, dir).image).equals(Buffer.from(r.image))).toBe(true);
    expect(fs.readFileSync(file).subarray(fs.statSync(file).size - r.image.length).equals(Buffer.from(r.image))).toBe(true);
    expect(listDir(dir)).toEqual(before);
  });

  test('lowered names are cached with the image', () => {
    const dir = freshDir();
    const t = tag();
    const src = `template <typename T> __global__ void nk_${t}(T *x) { x[0] = T(1); }`;
    const opts = { noExternC: true, nameExpressions: [`nk_${t}<double>`] };
    const r = compiler.compile(src, { arch: 'sm_90', cacheDir: dir, ...opts });
    expect(listDir(dir)).toHaveLength(1); // one file: the names are in the entry's header
    const c = childCompile(src, dir, opts);
    expect(c.loweredNames).toEqual(r.loweredNames);
    expect(c.loweredNames[`nk_${t}<double>`]).toMatch(/^_Z/);
  });

  test('NODECUDA_CACHE=0 writes nothing', () => {
    const dir = path.join(tmp, `off-${tag()}`);
    process.env.NODECUDA_CACHE_DIR = dir;
    process.env.NODECUDA_CACHE = '0';
    try {
      compiler.compile(kernel().src, { arch: 'sm_90' });
      expect(listDir(dir)).toEqual([]);
      delete process.env.NODECUDA_CACHE; // control: the same settings with the cache on do write
      compiler.compile(kernel().src, { arch: 'sm_90' });
      expect(listDir(dir)).toHaveLength(1);
    } finally {
      process.env.NODECUDA_CACHE_DIR = path.join(tmp, 'default');
      delete process.env.NODECUDA_CACHE;
    }
  });

  test('editing an included header changes the key', () => {
    const dir = freshDir();
    const inc = fs.mkdtempSync(path.join(tmp, 'inc-'));
    const header = path.join(inc, 'params.h');
    const src = `#include "params.h"\n__global__ void p_${tag()}(int *x) { x[0] = P; }`;
    const opts = { arch: 'sm_90', target: 'ptx' as const, includeDirs: [inc], cacheDir: dir };
    fs.writeFileSync(header, '#define P 1234567\n');
    expect(text(compiler.compile(src, opts).image)).toContain('1234567');
    fs.writeFileSync(header, '#define P 7654321\n');
    expect(text(compiler.compile(src, opts).image)).toContain('7654321');
    expect(listDir(dir).filter((f) => /^[0-9a-f]{64}\.entry$/.test(f))).toHaveLength(2);
  });

  test('editing a nested header (included relative to its includer) changes the key', () => {
    const inc = fs.mkdtempSync(path.join(tmp, 'inc-'));
    fs.mkdirSync(path.join(inc, 'lib'));
    fs.writeFileSync(path.join(inc, 'lib', 'a.h'), '#include "b.h"\n');
    fs.writeFileSync(path.join(inc, 'lib', 'b.h'), '#define B 1111111\n');
    const src = `#include "lib/a.h"\n__global__ void n_${tag()}(int *x) { x[0] = B; }`;
    const opts = { arch: 'sm_90', target: 'ptx' as const, includeDirs: [inc], cacheDir: freshDir() };
    expect(text(compiler.compile(src, opts).image)).toContain('1111111');
    fs.writeFileSync(path.join(inc, 'lib', 'b.h'), '#define B 2222222\n');
    expect(text(compiler.compile(src, opts).image)).toContain('2222222');
  });

  test('no temporary files are left behind', () => {
    const stray: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(d, e.name));
        else if (e.name.endsWith('.tmp')) stray.push(path.join(d, e.name));
      }
    };
    walk(tmp);
    expect(stray).toEqual([]);
    expect(listDir(path.join(tmp, 'default')).length).toBeGreaterThan(0); // the walk saw real cache files
  });
});
