/**
 * Precompiled built-in kernels shipped inside the package: `dist/kernel-images/<arch>.bin`, one file per
 * target (`sm_75` … `sm_120` cubins and one `compute_NN` PTX for devices newer than all of them),
 * written at pack time by `npm run build:kernels` (scripts/build-kernels.js). generatedKernel()
 * (compiler.ts) looks a kernel up here after the per-process images and before the disk cache and
 * NVRTC, so a user's first run pays no NVRTC for the common dtypes (see docs/design/caches.md).
 *
 * Key: SHA-256 of the package version, the generated source and its NVRTC options (not the arch,
 * which picks the file, and not the NVRTC version: the image is whatever the build machine's
 * toolkit made, and a load failure falls back to NVRTC). Nothing here touches NVRTC: opening
 * libnvrtc costs more than a cubin load on a cold page cache.
 *
 * File: 'NCKPRE01', u32 LE header length, a JSON header { format, version, arch, nvrtc, codec,
 * entries: { key: [offset, length, sha256 of the image, 16 hex digits] } }, then each image
 * compressed on its own (codec 'br':
 * brotli, 'z': zlib; offsets from the end of the header), so a lookup reads one entry.
 * NODECUDA_PREBUILT=0 disables the lookup; NODECUDA_PREBUILT_DIR points at another directory.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants, deflateSync, inflateSync } from 'zlib';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const PACKAGE_VERSION: string = require('../../package.json').version;

export const PREBUILT_MAGIC = 'NCKPRE01';
export const PREBUILT_FORMAT = 1;

/** The directory the package's kernels live in (dist/kernels next to dist/cuda). */
export function prebuiltDir(): string | null {
  if (process.env.NODECUDA_PREBUILT === '0') return null;
  return process.env.NODECUDA_PREBUILT_DIR || path.join(__dirname, '..', 'kernel-images');
}

/** The lookup key of a generated kernel: its source and options (the arch picks the file). */
export function prebuiltKey(source: string, options: readonly string[]): string {
  return createHash('sha256').update([PACKAGE_VERSION, source, options.join('\0')].join('\u0001')).digest('hex');
}

type Codec = 'br' | 'z';

const digest = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex').slice(0, 16);

interface Archive {
  fd: number;
  base: number;
  codec: Codec;
  entries: Record<string, [number, number, string]>;
}

// Opened archives by file (null: missing or unreadable), and the files chosen per compute capability.
const archives = new Map<string, Archive | null>();
const chosen = new Map<string, string[]>();
let disabled = false;

function open(file: string): Archive | null {
  let a = archives.get(file);
  if (a !== undefined) return a;
  a = null;
  let fd = -1;
  try {
    fd = fs.openSync(file, 'r');
    const head = Buffer.alloc(12);
    if (fs.readSync(fd, head, 0, 12, 0) === 12 && head.toString('latin1', 0, 8) === PREBUILT_MAGIC) {
      const len = head.readUInt32LE(8);
      const json = Buffer.alloc(len);
      if (fs.readSync(fd, json, 0, len, 12) === len) {
        const h = JSON.parse(json.toString('utf8')) as { format?: unknown; version?: unknown; codec?: unknown; entries?: unknown };
        if (h.format === PREBUILT_FORMAT && h.version === PACKAGE_VERSION && (h.codec === 'br' || h.codec === 'z') &&
          h.entries && typeof h.entries === 'object') {
          a = { fd, base: 12 + len, codec: h.codec, entries: h.entries as Record<string, [number, number, string]> };
        }
      }
    }
  } catch {
    a = null;
  }
  if (!a && fd >= 0) fs.closeSync(fd);
  archives.set(file, a);
  return a;
}

/**
 * The files to search for a device of compute capability major.minor, best first: the exact cubin,
 * else a cubin of the same major and a lower minor (binary compatible), else the newest PTX not
 * newer than the device (the driver JIT-compiles it).
 */
export function filesFor(dir: string, major: number, minor: number): string[] {
  const memo = `${dir}\0${major}.${minor}`;
  let files = chosen.get(memo);
  if (files) return files;
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    // no kernels shipped (a source checkout): every lookup misses
  }
  const cc = major * 10 + minor;
  const sm = names.map((n) => /^sm_(\d+)\.bin$/.exec(n)).filter((m) => m !== null).map((m) => Number(m[1]))
    .filter((a) => Math.floor(a / 10) === major && a <= cc).sort((a, b) => b - a);
  const ptx = names.map((n) => /^compute_(\d+)\.bin$/.exec(n)).filter((m) => m !== null).map((m) => Number(m[1]))
    .filter((a) => a <= cc).sort((a, b) => b - a);
  files = [...sm.map((a) => path.join(dir, `sm_${a}.bin`)), ...ptx.slice(0, 1).map((a) => path.join(dir, `compute_${a}.bin`))];
  chosen.set(memo, files);
  return files;
}

/** A shipped image of `key` for the device, or null. */
export function findPrebuilt(key: string, major: number, minor: number): { image: Uint8Array; file: string } | null {
  const dir = disabled ? null : prebuiltDir();
  if (!dir) return null;
  for (const file of filesFor(dir, major, minor)) {
    const a = open(file);
    const e = a?.entries[key];
    if (!a || !Array.isArray(e)) continue;
    try {
      const packed = Buffer.alloc(e[1]);
      if (fs.readSync(a.fd, packed, 0, e[1], a.base + e[0]) !== e[1]) continue;
      const image = a.codec === 'br' ? brotliDecompressSync(packed) : inflateSync(packed);
      if (digest(image) !== e[2]) continue; // damaged (brotli has no checksum of its own)
      return { image, file };
    } catch {
      continue; // a damaged entry: NVRTC makes it instead
    }
  }
  return null;
}

/**
 * Opens (reads the index of) the archives a device of compute capability major.minor would search,
 * and runs their decompressor once on an empty stream (its first use costs 1-2 ms).
 */
export function warmPrebuilt(major: number, minor: number): void {
  const dir = disabled ? null : prebuiltDir();
  if (!dir) return;
  for (const file of filesFor(dir, major, minor)) {
    const a = open(file);
    if (a?.codec === 'br') brotliDecompressSync(Buffer.from([0x3b])); // an empty brotli stream
    else if (a) inflateSync(Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])); // an empty zlib stream
  }
}

/**
 * Stops using shipped kernels in this process (a load failed: e.g. a driver older than the
 * toolkit that built them). Everything then compiles with NVRTC as before.
 */
export function disablePrebuilt(): void {
  disabled = true;
}

/** @internal Tests: forget opened files and the disabled flag (after changing the directory). */
export function resetPrebuilt(): void {
  for (const a of archives.values()) if (a) fs.closeSync(a.fd);
  archives.clear();
  chosen.clear();
  disabled = false;
}

/** Serializes an archive (scripts/build-kernels.js): images by key → file bytes. */
export function packArchive(arch: string, nvrtc: string, images: Map<string, Uint8Array>, codec: Codec = 'br'): Buffer {
  // An archive of another codec would be read by no process (open() takes 'br' and 'z' only).
  if (codec !== 'br' && codec !== 'z') throw new RangeError(`packArchive: codec must be 'br' or 'z'. Received ${JSON.stringify(codec)}`);
  const { BROTLI_PARAM_QUALITY, BROTLI_PARAM_LGWIN, BROTLI_PARAM_SIZE_HINT } = zlibConstants;
  const deflate = (b: Uint8Array): Buffer => (codec === 'br'
    ? brotliCompressSync(b, { params: { [BROTLI_PARAM_QUALITY]: 11, [BROTLI_PARAM_LGWIN]: 24, [BROTLI_PARAM_SIZE_HINT]: b.byteLength } })
    : deflateSync(b, { level: 9 }));
  const entries: Record<string, [number, number, string]> = {};
  const parts: Buffer[] = [];
  let off = 0;
  for (const [key, image] of [...images].sort((x, y) => (x[0] < y[0] ? -1 : 1))) {
    const z = deflate(image);
    entries[key] = [off, z.length, digest(image)];
    parts.push(z);
    off += z.length;
  }
  const header = Buffer.from(JSON.stringify({ format: PREBUILT_FORMAT, version: PACKAGE_VERSION, arch, nvrtc, codec, entries }));
  const prefix = Buffer.alloc(12);
  prefix.write(PREBUILT_MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(header.length, 8);
  return Buffer.concat([prefix, header, ...parts]);
}
