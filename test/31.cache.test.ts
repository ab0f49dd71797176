/**
 * Layer 31: the on-disk kernel cache's integrity and safety (no GPU needed): damaged, swapped and
 * foreign entries are deleted and recompiled, never used; unsafe directories are refused; keys
 * follow every header NVRTC reads; the size cap evicts least recently used entries; clearCache.
 * Also the native image checks of moduleLoad, which run before the driver is touched.
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CudaError, SourceModule, compiler, driver } from '../lib';
import { forgetCompiledImages } from '../lib/cuda/compiler';
import { defaultDir, readEntry } from '../lib/cuda/disk_cache';
import { native } from '../lib/cuda/native';
import { describeGpu, expectCode } from './helpers';

const tag = () => randomBytes(6).toString('hex');
const kernel = () => `__global__ void k_${tag()}(int *x) { x[0] = ${1000 + Math.floor(Math.random() * 1e6)}; }`;
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
const ptxText = (img: Uint8Array) => Buffer.from(img).toString('utf8');
const entries = (d: string) => (fs.existsSync(d) ? fs.readdirSync(d).filter((f) => f.endsWith('.entry')).sort() : []);
const euid = process.geteuid?.() ?? -1;

let tmp: string;
const savedEnv = { ...process.env };
const freshDir = () => fs.mkdtempSync(path.join(tmp, 'c-'));

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-31-'));
});
afterEach(() => {
  for (const k of ['NODECUDA_CACHE_DIR', 'NODECUDA_CACHE', 'NODECUDA_CACHE_MAX_BYTES', 'XDG_CACHE_HOME']) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
  jest.restoreAllMocks();
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Counts NVRTC runs during fn. */
function nvrtcRuns<T>(fn: () => T): { value: T; runs: number } {
  const spy = jest.spyOn(native, 'compile');
  try {
    const value = fn();
    return { value, runs: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

test('the test suite writes into a temporary cache directory, not the default one', () => {
  expect(process.env.NODECUDA_CACHE_DIR).toBeTruthy();
  expect(path.resolve(process.env.NODECUDA_CACHE_DIR!)).not.toBe(path.resolve(defaultDir()));
});

describe('damaged entries are deleted and recompiled', () => {
  const damage: Array<[string, (file: string, other: string) => void]> = [
    ['cut to its first 64 bytes', (f) => fs.truncateSync(f, 64)],
    ['cut in half', (f) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2))],
    ['empty', (f) => fs.writeFileSync(f, '')],
    ['random bytes', (f) => fs.writeFileSync(f, randomBytes(fs.statSync(f).size))],
    ['one bit flipped in the image', (f) => {
      const b = fs.readFileSync(f);
      b[b.length - 100] ^= 0x10;
      fs.writeFileSync(f, b);
    }],
    ['one bit flipped in the header', (f) => {
      const b = fs.readFileSync(f);
      b[20] ^= 0x01;
      fs.writeFileSync(f, b);
    }],
    ['bytes appended', (f) => fs.appendFileSync(f, Buffer.from([0]))],
    ['swapped with another kernel\'s entry', (f, other) => fs.copyFileSync(other, f)],
    ['an old-format bare cubin', (f, other) => fs.writeFileSync(f, fs.readFileSync(other).subarray(-1000))],
    ['a symlink to a valid entry', (f, other) => {
      fs.unlinkSync(f);
      fs.symlinkSync(other, f);
    }],
    ['writable by others', (f) => fs.chmodSync(f, 0o666)],
  ];
  test.each(damage)('%s', (_, hurt) => {
    const dir = freshDir();
    const src = kernel();
    const fresh = compiler.compile(src, { arch: 'sm_90', cacheDir: dir });
    const [file] = entries(dir).map((f) => path.join(dir, f));
    compiler.compile(kernel(), { arch: 'sm_90', cacheDir: dir });
    const other = entries(dir).map((f) => path.join(dir, f)).find((f) => f !== file)!;
    hurt(file, other);
    forgetCompiledImages();
    const { value, runs } = nvrtcRuns(() => compiler.compile(src, { arch: 'sm_90', cacheDir: dir }));
    expect(runs).toBe(1); // not taken from the damaged entry
    expect(same(value.image, fresh.image)).toBe(true);
    expect(fs.lstatSync(file).isFile()).toBe(true); // rewritten, whole
    forgetCompiledImages();
    const again = nvrtcRuns(() => compiler.compile(src, { arch: 'sm_90', cacheDir: dir }));
    expect(again.runs).toBe(0); // control: an intact entry is used
    expect(same(again.value.image, fresh.image)).toBe(true);
  });

  test('an entry owned by another user is not used (root only: chown)', () => {
    if (euid !== 0) return console.log('skipped: needs root to chown');
    const dir = freshDir();
    const src = kernel();
    const fresh = compiler.compile(src, { arch: 'sm_90', cacheDir: dir });
    fs.chownSync(path.join(dir, entries(dir)[0]), 12345, 12345);
    forgetCompiledImages();
    const { value, runs } = nvrtcRuns(() => compiler.compile(src, { arch: 'sm_90', cacheDir: dir }));
    expect(runs).toBe(1);
    expect(same(value.image, fresh.image)).toBe(true);
    expect(fs.statSync(path.join(dir, entries(dir)[0])).uid).toBe(euid);
  });

  test('lowered names and the log survive a disk hit', () => {
    const dir = freshDir();
    const t = tag();
    const opts = { arch: 'sm_90', cacheDir: dir, noExternC: true, nameExpressions: [`tn_${t}<float>`] };
    const src = `template <typename T> __global__ void tn_${t}(T *x) { int unused_${t}; x[0] = T(2); }`;
    const r = compiler.compile(src, opts);
    expect(r.log).toContain(`unused_${t}`); // a warning
    forgetCompiledImages();
    const { value, runs } = nvrtcRuns(() => compiler.compile(src, opts));
    expect(runs).toBe(0);
    expect(value.loweredNames).toEqual(r.loweredNames);
    expect(value.log).toBe(r.log);
  });
});

describe('unsafe cache directories are refused', () => {
  const refused = (dir: string, why: RegExp) => {
    const e = expectCode(() => compiler.compile(kernel(), { arch: 'sm_90', cacheDir: dir }), Error, 'ERR_NODECUDA_CACHE_UNSAFE');
    expect(e.message).toContain(dir);
    expect(e.message).toMatch(why);
    return e;
  };

  test.each([['775', /writable by its group/], ['757', /writable by others/], ['777', /its group and others/]])(
    'mode %s', async (mode, why) => {
      const dir = freshDir();
      fs.chmodSync(dir, parseInt(mode, 8));
      refused(dir, why);
      const rejected = await compiler.compileAsync(kernel(), { arch: 'sm_90', cacheDir: dir }).then(() => null, (e: unknown) => e);
      expect(rejected).toMatchObject({ code: 'ERR_NODECUDA_CACHE_UNSAFE' });
      process.env.NODECUDA_CACHE_DIR = dir; // the same through the environment
      expectCode(() => compiler.compile(kernel(), { arch: 'sm_90' }), Error, 'ERR_NODECUDA_CACHE_UNSAFE');
      expect(entries(dir)).toEqual([]);
    });

  test('a symlink, even to a safe directory', () => {
    const target = freshDir();
    const link = path.join(tmp, `link-${tag()}`);
    fs.symlinkSync(target, link);
    refused(link, /symbolic link/);
    expect(entries(target)).toEqual([]);
  });

  test('a file', () => {
    const file = path.join(tmp, `file-${tag()}`);
    fs.writeFileSync(file, '');
    refused(file, /not a directory/);
  });

  test('a directory owned by another user (root only: chown)', () => {
    if (euid !== 0) return console.log('skipped: needs root to chown');
    const dir = freshDir();
    fs.chownSync(dir, 12345, 12345);
    refused(dir, /owned by uid 12345/);
  });

  test('the default directory is created 0700; an existing one of ours is tightened; a symlink refused', () => {
    const xdg = fs.mkdtempSync(path.join(tmp, 'xdg-'));
    process.env.XDG_CACHE_HOME = xdg;
    delete process.env.NODECUDA_CACHE_DIR;
    const dir = path.join(xdg, 'nodecuda');
    expect(defaultDir()).toBe(dir);
    compiler.compile(kernel(), { arch: 'sm_90' });
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(entries(dir)).toHaveLength(1);
    fs.chmodSync(dir, 0o775); // as an older nodecuda with umask 002 left it
    compiler.compile(kernel(), { arch: 'sm_90' });
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(entries(dir)).toHaveLength(2);
    fs.renameSync(dir, dir + '.real');
    fs.symlinkSync(dir + '.real', dir);
    expectCode(() => compiler.compile(kernel(), { arch: 'sm_90' }), Error, 'ERR_NODECUDA_CACHE_UNSAFE');
  });
});

describe('keys follow what NVRTC reads', () => {
  const cwd = process.cwd();
  afterEach(() => process.chdir(cwd));
  const value = (img: Uint8Array) => Number(/mov\.u32\s+%r\d+, (\d+);/.exec(ptxText(img))![1]);

  test('a quoted include found in the working directory', () => {
    const work = fs.mkdtempSync(path.join(tmp, 'cwd-'));
    process.chdir(work);
    const dir = freshDir();
    const src = `#include "cwd_${tag()}.h"\n__global__ void q(int *x) { x[0] = V * 7; }`;
    const header = /"(.*)"/.exec(src)![1];
    const opts = { arch: 'sm_90', target: 'ptx' as const, cacheDir: dir };
    fs.writeFileSync(header, '#define V 1111\n');
    expect(value(compiler.compile(src, opts).image)).toBe(7777);
    fs.writeFileSync(header, '#define V 2222\n');
    expect(value(compiler.compile(src, opts).image)).toBe(15554);
    forgetCompiledImages();
    expect(value(compiler.compile(src, opts).image)).toBe(15554); // from disk, the new entry
    expect(entries(dir)).toHaveLength(2);
  });

  test('a header that appears earlier in the search path later', () => {
    const work = fs.mkdtempSync(path.join(tmp, 'cwd-'));
    const inc = fs.mkdtempSync(path.join(tmp, 'inc-'));
    process.chdir(work);
    const name = `shadow_${tag()}.h`;
    const src = `#include "${name}"\n__global__ void q(int *x) { x[0] = V * 7; }`;
    const opts = { arch: 'sm_90', target: 'ptx' as const, includeDirs: [inc], cacheDir: freshDir() };
    fs.writeFileSync(path.join(inc, name), '#define V 3000\n');
    expect(value(compiler.compile(src, opts).image)).toBe(21000);
    fs.writeFileSync(path.join(work, name), '#define V 4000\n'); // the working directory comes first
    expect(value(compiler.compile(src, opts).image)).toBe(28000);
  });

  test.each([
    ['--pre-include=NAME'], ['-include NAME'], ['-include=NAME'],
  ])('a pre-included header (%s)', (spelling) => {
    const inc = fs.mkdtempSync(path.join(tmp, 'inc-'));
    const name = `pre_${tag()}.h`;
    const options = spelling.replace('NAME', name).split(' ');
    const src = `__global__ void q(int *x) { x[0] = P * 7; }`;
    const opts = { arch: 'sm_90', target: 'ptx' as const, includeDirs: [inc], options, cacheDir: freshDir() };
    fs.writeFileSync(path.join(inc, name), '#define P 5000\n');
    expect(value(compiler.compile(src, opts).image)).toBe(35000);
    fs.writeFileSync(path.join(inc, name), '#define P 6000\n');
    expect(value(compiler.compile(src, opts).image)).toBe(42000);
  });

  test('a computed include (#include MACRO) is compiled every time and never cached', () => {
    const inc = fs.mkdtempSync(path.join(tmp, 'inc-'));
    const dir = freshDir();
    const src = `#define HDR "macro_${tag()}.h"\n#include HDR\n__global__ void q(int *x) { x[0] = M * 7; }`;
    const header = path.join(inc, /"(.*)"/.exec(src)![1]);
    const opts = { arch: 'sm_90', target: 'ptx' as const, includeDirs: [inc], cacheDir: dir };
    fs.writeFileSync(header, '#define M 7000\n');
    expect(value(compiler.compile(src, opts).image)).toBe(49000);
    fs.writeFileSync(header, '#define M 8000\n');
    const { value: r, runs } = nvrtcRuns(() => compiler.compile(src, opts));
    expect(runs).toBe(1);
    expect(value(r.image)).toBe(56000);
    expect(entries(dir)).toEqual([]);
  });
});

describe('size cap, temporary files and clearCache', () => {
  test('NODECUDA_CACHE_MAX_BYTES must be a non-negative integer', () => {
    for (const bad of ['abc', '-1', '1.5', '1e6', '10MB']) {
      process.env.NODECUDA_CACHE_MAX_BYTES = bad;
      const e = expectCode(() => compiler.compile(kernel(), { arch: 'sm_90', cacheDir: freshDir() }), TypeError, 'ERR_INVALID_ARG_VALUE');
      expect(e.message).toContain('NODECUDA_CACHE_MAX_BYTES');
    }
    process.env.NODECUDA_CACHE_MAX_BYTES = '0'; // nothing kept on disk
    const dir = freshDir();
    compiler.compile(kernel(), { arch: 'sm_90', cacheDir: dir });
    expect(entries(dir)).toEqual([]);
  });

  test('least recently used entries are evicted to stay under the cap', () => {
    const dir = freshDir();
    const total = () => entries(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
    /** Compiles src into dir; returns the entry file it added. */
    const add = (src: string) => {
      const before = new Set(entries(dir));
      compiler.compile(src, { arch: 'sm_90', cacheDir: dir });
      return path.join(dir, entries(dir).find((f) => !before.has(f))!);
    };
    const srcs = [kernel(), kernel(), kernel(), kernel()];
    const files = [add(srcs[0])];
    const cap = Math.floor(fs.statSync(files[0]).size * 4.5); // room for four entries
    process.env.NODECUDA_CACHE_MAX_BYTES = String(cap);
    for (const s of srcs.slice(1)) files.push(add(s));
    expect(entries(dir)).toHaveLength(4);
    files.forEach((f, i) => fs.utimesSync(f, 1e6 + i, 1e6 + i)); // srcs[0] the oldest
    forgetCompiledImages();
    expect(nvrtcRuns(() => compiler.compile(srcs[0], { arch: 'sm_90', cacheDir: dir })).runs).toBe(0);
    expect(fs.statSync(files[0]).mtimeMs).toBeGreaterThan(Date.now() - 60e3); // a hit marks it used
    add(kernel()); // over the cap: the least recently used go
    expect(total()).toBeLessThanOrEqual(cap);
    expect(fs.existsSync(files[1])).toBe(false);
    expect(fs.existsSync(files[0])).toBe(true);
    for (let i = 0; i < 5; i++) {
      add(kernel());
      expect(total()).toBeLessThanOrEqual(cap);
    }
  });

  test('temporary files of dead writers are removed; a failed write leaves none', () => {
    const dir = freshDir();
    const key = 'a'.repeat(64);
    const stale = path.join(dir, `${key}.entry.4242.0123abcd.tmp`);
    const recent = path.join(dir, `${key}.entry.4243.0123abcd.tmp`);
    const unrelated = path.join(dir, 'notes.txt.tmp');
    for (const f of [stale, recent, unrelated]) fs.writeFileSync(f, 'x');
    fs.utimesSync(stale, new Date(Date.now() - 2 * 3600e3), new Date(Date.now() - 2 * 3600e3));
    fs.utimesSync(unrelated, new Date(Date.now() - 2 * 3600e3), new Date(Date.now() - 2 * 3600e3));
    compiler.compile(kernel(), { arch: 'sm_90', cacheDir: dir }); // first write to dir: swept
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(recent)).toBe(true); // may still be written
    expect(fs.existsSync(unrelated)).toBe(true); // not ours

    // A directory where the entry should go makes the rename fail: the image is still returned.
    const src = kernel();
    const probe = freshDir();
    const fresh = compiler.compile(src, { arch: 'sm_90', cacheDir: probe });
    const blocked = freshDir();
    fs.mkdirSync(path.join(blocked, entries(probe)[0]));
    forgetCompiledImages();
    const r = compiler.compile(src, { arch: 'sm_90', cacheDir: blocked });
    expect(same(r.image, fresh.image)).toBe(true);
    expect(fs.readdirSync(blocked).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  test('clearCache removes the cache files (only those) and what this process compiled', () => {
    const dir = freshDir();
    const src = kernel();
    compiler.compile(src, { arch: 'sm_90', cacheDir: dir });
    compiler.compile(kernel(), { arch: 'sm_90', cacheDir: dir });
    fs.writeFileSync(path.join(dir, 'README'), 'mine');
    expect(compiler.clearCache(dir)).toBe(2);
    expect(fs.readdirSync(dir)).toEqual(['README']);
    expect(nvrtcRuns(() => compiler.compile(src, { arch: 'sm_90', cacheDir: dir })).runs).toBe(1);
    process.env.NODECUDA_CACHE_DIR = dir; // no argument: NODECUDA_CACHE_DIR
    expect(compiler.clearCache()).toBe(1);
    expect(compiler.clearCache(path.join(tmp, 'missing'))).toBe(0);
    expectCode(() => compiler.clearCache(3 as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    const open = freshDir();
    fs.chmodSync(open, 0o777);
    expectCode(() => compiler.clearCache(open), Error, 'ERR_NODECUDA_CACHE_UNSAFE');
  });

  test('readEntry rejects an entry stored under another key', () => {
    const dir = freshDir();
    compiler.compile(kernel(), { arch: 'sm_90', cacheDir: dir });
    const [name] = entries(dir);
    fs.renameSync(path.join(dir, name), path.join(dir, 'b'.repeat(64) + '.entry'));
    expect(readEntry(dir, 'b'.repeat(64), 'cubin', 0)).toBeNull();
    expect(entries(dir)).toEqual([]); // deleted
  });
});

/** A CUBIN of a small kernel, and ELF header fields to lie with. */
function cubin(): Buffer {
  return Buffer.from(compiler.compile(`__global__ void img_${tag()}(int *x) { x[0] = 5; }`, { arch: 'sm_90' }).image);
}
const lies: Array<[string, (b: Buffer) => Buffer]> = [
  ['empty', () => Buffer.alloc(0)],
  ['its first 64 bytes', (b) => b.subarray(0, 64)],
  ['its first 40 bytes', (b) => b.subarray(0, 40)],
  ['its first half', (b) => b.subarray(0, b.length >> 1)],
  ['all but the last byte', (b) => b.subarray(0, b.length - 1)],
  ['a section header table offset past the end', (b) => { b.writeBigUInt64LE(BigInt(b.length), 0x28); return b; }],
  ['a program header table offset past the end', (b) => { b.writeBigUInt64LE(1n << 40n, 0x20); return b; }],
  ['too many sections', (b) => { b.writeUInt16LE(0xfff0, 0x3c); return b; }],
  ['a section larger than the image', (b) => {
    const shoff = Number(b.readBigUInt64LE(0x28));
    b.writeBigUInt64LE(1n << 32n, shoff + 64 + 0x20); // section 1's size
    return b;
  }],
  ['a 32-bit ELF class', (b) => { b[4] = 1; return b; }],
  ['a fatbin whose size runs past the end', () => {
    const f = Buffer.alloc(64);
    f.writeUInt32LE(0xba55ed50, 0);
    f.writeUInt16LE(1, 4);
    f.writeUInt16LE(16, 6);
    f.writeBigUInt64LE(4096n, 8);
    return f;
  }],
  ['a fatbin wrapper (holds host pointers)', () => {
    const f = Buffer.alloc(24);
    f.writeUInt32LE(0x466243b1, 0);
    f.writeBigUInt64LE(0xdeadbeefn, 8);
    return f;
  }],
];

describe('moduleLoad checks images before the driver reads them (no GPU needed)', () => {
  test.each(lies)('%s: CudaError CUDA_ERROR_INVALID_IMAGE', (_, lie) => {
    const e = expectCode(() => driver.moduleFromBuffer(lie(cubin())), CudaError, 'CUDA_ERROR_INVALID_IMAGE');
    expect(e.message).toMatch(/damaged or truncated \(.+\)/);
  });

  test('intact CUBINs (and fatbins, when the toolkit has fatbinary) pass the checks', () => {
    const images: Buffer[] = [cubin(), Buffer.from(compiler.compile(kernel(), { arch: 'sm_75' }).image),
      Buffer.from(compiler.compile(`__device__ int g_${tag()}[4]; __constant__ float c_${tag()}[8];
        template <typename T> __global__ void t(T *x) { x[0] = T(1); } template __global__ void t<float>(float *);`,
      { arch: 'sm_90', noExternC: true }).image)];
    const fatbinary = path.join(process.env.CUDA_HOME || '/usr/local/cuda', 'bin', 'fatbinary');
    if (fs.existsSync(fatbinary)) {
      const d = freshDir();
      fs.writeFileSync(path.join(d, 'k.cubin'), images[0]);
      for (const extra of [[], ['--compress-all']]) {
        const out = path.join(d, `k${extra.length}.fatbin`);
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require('child_process').execFileSync(fatbinary, [`--create=${out}`, ...extra, `--image3=kind=elf,sm=90,file=${path.join(d, 'k.cubin')}`]);
        images.push(fs.readFileSync(out));
      }
      const cut = images[3].subarray(0, images[3].length - 8);
      expectCode(() => driver.moduleFromBuffer(cut), CudaError, 'CUDA_ERROR_INVALID_IMAGE');
      const inner = Buffer.from(images[3]); // the embedded ELF's section table pushed out
      const elfAt = inner.indexOf(Buffer.from('\x7fELF', 'latin1'));
      inner.writeBigUInt64LE(1n << 20n, elfAt + 0x28);
      expectCode(() => driver.moduleFromBuffer(inner), CudaError, 'CUDA_ERROR_INVALID_IMAGE');
    } else {
      console.log('fatbin cases skipped: no fatbinary tool');
    }
    for (const img of images) {
      let err: unknown = null;
      try {
        driver.moduleFromBuffer(img);
      } catch (e) {
        err = e;
      }
      // Without a driver: CUDA_DRIVER_NOT_FOUND after the checks; on a GPU it loads, or the driver
      // itself declines (an sm_75 CUBIN on another arch), never nodecuda's check.
      if (err !== null) expect((err as Error).message).not.toMatch(/damaged or truncated/);
    }
  });
});

describeGpu('damaged images and names on a GPU: typed errors, no crash', () => {
  test.each(lies)('%s', (_, lie) => {
    expectCode(() => driver.moduleFromBuffer(lie(cubin())), CudaError, 'CUDA_ERROR_INVALID_IMAGE');
  });

  test('random bytes and bad PTX text are the driver\'s CudaError', () => {
    for (const img of [randomBytes(4096), Buffer.from('.version 99.0\n.target sm_90\nnot ptx'), Buffer.from('x')]) {
      let err: unknown = null;
      try {
        driver.moduleFromBuffer(img);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(CudaError);
    }
  });

  test('kernel and global names: strings without NUL, checked natively too', () => {
    const t = tag();
    const mod = new SourceModule(`__global__ void k_${t}(int *x) { x[0] = 1; }\n__device__ int g_${t};`);
    expect(mod.getFunction(`k_${t}`)).toBeDefined();
    expectCode(() => mod.getFunction(`k_${t}\0tail`), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => mod.getGlobal(`g_${t}\0`), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => native.moduleFunction(mod.handle, 42 as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => native.moduleGlobal(mod.handle, {} as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => mod.getFunction('no_such_kernel'), CudaError, 'CUDA_ERROR_NOT_FOUND');
  });
});
