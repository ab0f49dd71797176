/**
 * Layer 32: the precompiled built-in kernels shipped in the package (lib/cuda/prebuilt.ts,
 * scripts/build-kernels.js). Without a GPU: the archive format round-trips real NVRTC images, the
 * file chosen for each compute capability, damaged or foreign archives are misses (never a
 * throw), NODECUDA_PREBUILT=0. On a GPU: an engine kernel comes from an archive without NVRTC
 * (libnvrtc never mapped, the disk cache left empty) and computes the right values, and an image
 * the driver refuses falls back to NVRTC, and so do damaged entries of the compaction and quantile kernels.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compiler, driver } from '../lib';
import { filesFor, findPrebuilt, packArchive, prebuiltKey, resetPrebuilt } from '../lib/cuda/prebuilt';
import { DIST, describeGpu } from './helpers';
import { spawnSync } from 'child_process';

const SRC = 'extern "C" __global__ void nc_prebuilt_probe(int *x) { x[threadIdx.x] = 7 * threadIdx.x; }';
const OPTS = ['--std=c++17'];

let tmp: string;
const saved = { ...process.env };
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-32-'));
});
afterEach(() => {
  for (const k of ['NODECUDA_PREBUILT', 'NODECUDA_PREBUILT_DIR']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  resetPrebuilt();
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function archiveDir(files: Record<string, Map<string, Uint8Array>>): string {
  const dir = fs.mkdtempSync(path.join(tmp, 'a-'));
  for (const [arch, images] of Object.entries(files)) fs.writeFileSync(path.join(dir, `${arch}.bin`), packArchive(arch, '13.0', images, arch.startsWith('compute') ? 'z' : 'br'));
  process.env.NODECUDA_PREBUILT_DIR = dir;
  resetPrebuilt();
  return dir;
}

describe('archives (no GPU)', () => {
  const key = prebuiltKey(SRC, OPTS);

  test('the key follows the source and the options', () => {
    expect(prebuiltKey(SRC, OPTS)).toBe(key);
    expect(prebuiltKey(SRC + ' ', OPTS)).not.toBe(key);
    expect(prebuiltKey(SRC, [...OPTS, '-use_fast_math'])).not.toBe(key);
  });

  test('a real NVRTC cubin and PTX round-trip byte for byte', () => {
    const cubin = compiler.compile(SRC, { arch: 'sm_90', noExternC: true, options: OPTS }).image;
    const ptx = compiler.compile(SRC, { arch: 'compute_90', noExternC: true, options: OPTS }).image;
    archiveDir({ sm_90: new Map([[key, cubin]]), compute_90: new Map([[key, ptx]]) });
    const hit = findPrebuilt(key, 9, 0)!;
    expect(path.basename(hit.file)).toBe('sm_90.bin');
    expect(Buffer.from(hit.image).equals(Buffer.from(cubin))).toBe(true);
    // A device newer than every cubin gets the PTX; an older one nothing.
    const newer = findPrebuilt(key, 12, 0)!;
    expect(path.basename(newer.file)).toBe('compute_90.bin');
    expect(Buffer.from(newer.image).equals(Buffer.from(ptx))).toBe(true);
    expect(findPrebuilt(key, 8, 9)).toBeNull();
    expect(findPrebuilt(prebuiltKey(SRC, ['-G']), 9, 0)).toBeNull();
  });

  test('files per compute capability: exact cubin, same major lower minor, newest PTX not newer', () => {
    const one = new Map([['k', new Uint8Array([1])]]);
    const dir = archiveDir({ sm_80: one, sm_86: one, sm_90: one, sm_100: one, compute_90: one, compute_120: one });
    const names = (ma: number, mi: number) => filesFor(dir, ma, mi).map((f) => path.basename(f));
    expect(names(8, 0)).toEqual(['sm_80.bin']);
    expect(names(8, 6)).toEqual(['sm_86.bin', 'sm_80.bin']);
    expect(names(8, 9)).toEqual(['sm_86.bin', 'sm_80.bin']);
    expect(names(9, 0)).toEqual(['sm_90.bin', 'compute_90.bin']);
    expect(names(10, 3)).toEqual(['sm_100.bin', 'compute_90.bin']);
    expect(names(12, 1)).toEqual(['compute_120.bin']);
    expect(names(7, 5)).toEqual([]);
  });

  test('an archive is packed with a codec the reader takes, or not at all', () => {
    const images = new Map([[key, new Uint8Array(64).fill(7)]]);
    for (const codec of ['br', 'z'] as const) expect(packArchive('sm_90', '13.0', images, codec).subarray(0, 8).toString('latin1')).toBe('NCKPRE01');
    // NODECUDA_KERNEL_CODEC=zlib once built archives that every process ignored (open() takes 'br' and 'z').
    expect(() => packArchive('sm_90', '13.0', images, 'zlib' as never)).toThrow(/codec must be 'br' or 'z'/);
  });

  test('damaged or foreign archives are misses, not errors', () => {
    const image = new Uint8Array(4096).map((_, i) => (i * 31) & 255);
    const dir = archiveDir({ sm_90: new Map([[key, image]]) });
    const file = path.join(dir, 'sm_90.bin');
    const good = fs.readFileSync(file);
    expect(findPrebuilt(key, 9, 0)).not.toBeNull();
    const cases: Array<[string, Buffer]> = [
      ['truncated', good.subarray(0, good.length - 10)],
      ['empty', Buffer.alloc(0)],
      ['bad magic', Buffer.concat([Buffer.from('XXXXXXXX'), good.subarray(8)])],
      ['flipped payload byte', Buffer.from(good.map((b, i) => (i === good.length - 5 ? b ^ 0xff : b)))],
      ['another package version', Buffer.from(good.toString('latin1').replace(/"version":"[^"]*"/, '"version":"0.0.0-other"'), 'latin1')],
    ];
    for (const [what, bytes] of cases) {
      fs.writeFileSync(file, bytes);
      resetPrebuilt();
      expect([what, findPrebuilt(key, 9, 0)]).toEqual([what, null]);
    }
  });

  test('NODECUDA_PREBUILT=0 turns the lookup off', () => {
    archiveDir({ sm_90: new Map([[key, new Uint8Array([1, 2, 3])]]) });
    expect(findPrebuilt(key, 9, 0)).not.toBeNull();
    process.env.NODECUDA_PREBUILT = '0';
    expect(findPrebuilt(key, 9, 0)).toBeNull();
  });
});

/** Runs `script` in a fresh process with `env`; returns its last JSON line. */
function child(script: string, env: Record<string, string>): Record<string, unknown> {
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 120000, env: { ...process.env, NODECUDA_DIST: DIST, ...env } });
  const line = r.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if (r.status !== 0 || !line) throw new Error(`child failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return JSON.parse(line);
}

// An int16 multiply: a kernel no other test file ships or caches.
const OP = `
const cuda = require(process.env.NODECUDA_DIST);
const x = cuda.gpuarray.toGpu(new Int16Array([1, 2, 3, -4, 5]));
const y = x.mul(3);
const fs = require('fs');
const maps = fs.readFileSync('/proc/self/maps', 'utf8');
const dir = process.env.NODECUDA_CACHE_DIR;
console.log(JSON.stringify({ y: Array.from(y.get()), nvrtc: maps.includes('libnvrtc'),
  cached: fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.entry')).length : 0 }));
`;

describeGpu('engine kernels from a shipped archive', () => {
  let arch: string;
  let recorded: Array<{ source: string; options: string[] }>;
  beforeAll(() => {
    const [major, minor] = new driver.Device(0).computeCapability();
    arch = `sm_${major}${minor}`;
    const log = path.join(tmp, 'recorded.jsonl');
    child(OP, { NODECUDA_RECORD_KERNELS: log, NODECUDA_PREBUILT: '0', NODECUDA_CACHE_DIR: fs.mkdtempSync(path.join(tmp, 'c-')) });
    recorded = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  });

  test('the recorded kernel loads from the archive: no NVRTC, nothing cached, right values', () => {
    expect(recorded.length).toBeGreaterThan(0);
    const images = new Map(recorded.map((k) => [prebuiltKey(k.source, k.options),
      compiler.compile(k.source, { arch, noExternC: true, options: k.options }).image]));
    const dir = archiveDir({ [arch]: images });
    const out = child(OP, { NODECUDA_PREBUILT_DIR: dir, NODECUDA_CACHE_DIR: fs.mkdtempSync(path.join(tmp, 'c-')) });
    expect(out).toEqual({ y: [3, 6, 9, -12, 15], nvrtc: false, cached: 0 });
  });

  test('an image the driver refuses falls back to NVRTC', () => {
    const junk = new Uint8Array(256).fill(0x5a);
    const dir = archiveDir({ [arch]: new Map(recorded.map((k) => [prebuiltKey(k.source, k.options), junk])) });
    const out = child(OP, { NODECUDA_PREBUILT_DIR: dir, NODECUDA_CACHE_DIR: fs.mkdtempSync(path.join(tmp, 'c-')) });
    expect(out.y).toEqual([3, 6, 9, -12, 15]);
    expect(out.nvrtc).toBe(true);
  });
});

// nonzero, flatnonzero, argwhere and extract (the compaction kernels: count, scan, write) and
// median/quantile/percentile: short rows sorted (int32, a float64 result), a long float32 row whose
// ranks are found by selection and picked (nc_select_pick_), each read by the quantile kernel.
const ORDER_OP = `
const cuda = require(process.env.NODECUDA_DIST);
const { gpuarray } = cuda;
const ints = (x) => Array.from(x.get(), Number);
const m = gpuarray.toGpu(new Int16Array([0, 3, 0, -1, 0, 0, 5, 0, 0, 2, 0, 0]), { shape: [3, 4] });
const [r, c] = gpuarray.nonzero(m);
const compact = { rows: ints(r), cols: ints(c), flat: ints(gpuarray.flatnonzero(m)), argwhere: ints(gpuarray.argwhere(m)),
  extract: Array.from(gpuarray.extract(m, m).get()) };
// Rows i: 10i + (0, 3, 1, 4, 2); the long row: 0..6000 permuted (7919 is prime to 6001).
const short = gpuarray.toGpu(Int32Array.from({ length: 20 }, (_, k) => 10 * Math.floor(k / 5) + ((k % 5) * 3) % 5), { shape: [4, 5] });
const long = gpuarray.toGpu(Float32Array.from({ length: 6001 }, (_, k) => (k * 7919) % 6001));
const order = { median: Array.from(gpuarray.median(short, { axis: 1 }).get()),
  quantile: Array.from(gpuarray.quantile(short, [0.25, 1], { axis: 1 }).get()),
  longMedian: gpuarray.median(long).item(), longQuantile: Array.from(gpuarray.quantile(long, [0.25, 0.5, 0.75]).get()),
  longPercentile: gpuarray.percentile(long, 10, { method: 'nearest' }).item() };
const fs = require('fs');
const maps = fs.readFileSync('/proc/self/maps', 'utf8');
const dir = process.env.NODECUDA_CACHE_DIR;
console.log(JSON.stringify({ compact, order, nvrtc: maps.includes('libnvrtc'),
  cached: fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.entry')).length : 0 }));
`;

const ORDER_WANT = {
  compact: { rows: [0, 0, 1, 2], cols: [1, 3, 2, 1], flat: [1, 3, 6, 9], argwhere: [0, 1, 0, 3, 1, 2, 2, 1], extract: [3, -1, 5, 2] },
  order: { median: [2, 12, 22, 32], quantile: [1, 11, 21, 31, 4, 14, 24, 34], longMedian: 3000, longQuantile: [1500, 3000, 4500],
    longPercentile: 600 },
};

/**
 * Damages the entries `keys` of the archive `file` in turn three ways: bytes flipped inside the
 * compressed image, the image's digest in the header changed, the offset moved past the file's end.
 */
function damageEntries(file: string, keys: readonly string[]): void {
  const bytes = fs.readFileSync(file);
  const len = bytes.readUInt32LE(8);
  const header = JSON.parse(bytes.subarray(12, 12 + len).toString('utf8')) as { entries: Record<string, [number, number, string]> };
  const payload = Buffer.from(bytes.subarray(12 + len));
  keys.forEach((key, i) => {
    const e = header.entries[key];
    if (!e) throw new Error(`no entry ${key}`);
    if (i % 3 === 0) {
      for (const at of [Math.floor(e[1] / 3), Math.floor((2 * e[1]) / 3), e[1] - 1]) payload[e[0] + at] ^= 0x5a;
    } else if (i % 3 === 1) {
      e[2] = e[2].replace(/^./, (ch) => (ch === '0' ? '1' : '0'));
    } else {
      e[0] = payload.length + 4096;
    }
  });
  const h = Buffer.from(JSON.stringify(header));
  const prefix = Buffer.from(bytes.subarray(0, 12));
  prefix.writeUInt32LE(h.length, 8);
  fs.writeFileSync(file, Buffer.concat([prefix, h, payload]));
}

describe('damaged entries (no GPU)', () => {
  test('each damaged entry is a miss, the others still hit', () => {
    const images = new Map(Array.from({ length: 7 }, (_, i) => [prebuiltKey(`${SRC} // ${i}`, OPTS), new Uint8Array(3000).map((_, j) => (j * (i + 3)) & 255)]));
    const keys = [...images.keys()];
    const dir = archiveDir({ sm_90: images });
    for (const key of keys) expect(findPrebuilt(key, 9, 0)).not.toBeNull();
    const bad = [keys[0], keys[2], keys[3], keys[5], keys[6]]; // each damage twice, the third once
    damageEntries(path.join(dir, 'sm_90.bin'), bad);
    resetPrebuilt();
    for (const key of keys) {
      const hit = findPrebuilt(key, 9, 0);
      if (bad.includes(key)) expect([key, hit]).toEqual([key, null]);
      else expect(Buffer.from(hit!.image).equals(Buffer.from(images.get(key)!))).toBe(true);
    }
  });
});

describeGpu('damaged entries of the compaction and quantile kernels', () => {
  let arch: string;
  let recorded: Array<{ source: string; options: string[] }>;
  beforeAll(() => {
    const [major, minor] = new driver.Device(0).computeCapability();
    arch = `sm_${major}${minor}`;
    const log = path.join(tmp, 'recorded-order.jsonl');
    const out = child(ORDER_OP, { NODECUDA_RECORD_KERNELS: log, NODECUDA_PREBUILT: '0', NODECUDA_CACHE_DIR: fs.mkdtempSync(path.join(tmp, 'c-')) });
    expect({ compact: out.compact, order: out.order }).toEqual(ORDER_WANT);
    recorded = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  });

  test('rejected, compiled with NVRTC instead: nonzero and median still right, no crash', async () => {
    const images = new Map(await Promise.all(recorded.map(async (k) => [prebuiltKey(k.source, k.options),
      (await compiler.compileAsync(k.source, { arch, noExternC: true, options: k.options })).image] as const)));
    const dir = archiveDir({ [arch]: images });
    // Intact: every kernel of the run comes from the archive (so the damaged ones below are looked up).
    const intact = child(ORDER_OP, { NODECUDA_PREBUILT_DIR: dir, NODECUDA_CACHE_DIR: fs.mkdtempSync(path.join(tmp, 'c-')) });
    expect(intact).toEqual({ ...ORDER_WANT, nvrtc: false, cached: 0 });
    // The compaction kernels and the quantile family's (nc_quantile_, nc_select_pick_) damaged.
    const KERNEL = /__global__ void (?:__launch_bounds__\([^)]*\) )?(nc_\w+)/;
    const targets = recorded.filter((k) => /^nc_(compact_|quantile_|select_pick_)/.test(KERNEL.exec(k.source)?.[1] ?? ''));
    const names = targets.map((k) => KERNEL.exec(k.source)![1]);
    // count, scan, and the writes of indices and of extract's values; int32 → float64 and float32; float32.
    expect(names.filter((n) => n.startsWith('nc_compact_')).length).toBeGreaterThanOrEqual(4);
    expect(names.filter((n) => n.startsWith('nc_quantile_')).length).toBeGreaterThanOrEqual(2);
    expect(names.filter((n) => n.startsWith('nc_select_pick_')).length).toBeGreaterThanOrEqual(1);
    damageEntries(path.join(dir, `${arch}.bin`), targets.map((k) => prebuiltKey(k.source, k.options)));
    const damaged = child(ORDER_OP, { NODECUDA_PREBUILT_DIR: dir, NODECUDA_CACHE_DIR: fs.mkdtempSync(path.join(tmp, 'c-')) });
    // The same values; exactly the damaged kernels compiled by NVRTC (and written to the disk cache).
    expect(damaged).toEqual({ ...ORDER_WANT, nvrtc: true, cached: targets.length });
  });
});
