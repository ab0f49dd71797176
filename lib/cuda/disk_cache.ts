/**
 * The on-disk kernel cache: one file per key, `<key>.entry`, holding a header (magic, format
 * version, key, kind, payload length, SHA-256 of the payload, lowered names, log) and the image.
 *
 * Safety model. Keys are SHA-256 of public inputs, so anyone who can write the directory can plant
 * an entry that verifies; the header's hash only catches damage (truncation, bit flips, swapped
 * files). What keeps other users out is the directory: it must be a real directory (not a symlink),
 * owned by this process's user and not writable by group or others, and each entry file must be a
 * regular file owned by the user and not writable by others. A default directory is created 0700
 * (and an existing one owned by the user is tightened to 0700); a configured one that fails the
 * check is refused with ERR_NODECUDA_CACHE_UNSAFE rather than used or silently skipped.
 */
import { createHash, randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { typeError } from '../base/errors';

/** What an entry holds besides the key. */
export interface CachedImage {
  image: Uint8Array;
  log: string;
  loweredNames: string[];
}

const MAGIC = Buffer.from('NCKCACHE');
const FORMAT = 1;
const PREFIX = MAGIC.length + 8; // magic, u32 format, u32 header length
const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
const STALE_TMP_MS = 60 * 60 * 1000;
/** Files this cache owns in a directory; nothing else there is ever read or removed. */
const ENTRY = /^[0-9a-f]{64}\.entry$/;
const TMP = /^[0-9a-f]{64}\.entry\.\d+\.[0-9a-f]+\.tmp$/;
const LEGACY = /^[0-9a-f]{64}\.(?:cubin|ptx|names\.json)$/; // nodecuda 0.1 files: never read again
/** The V8 code caches of nodecuda's own modules (code_cache.ts), one per Node version and flags. */
export const codeCacheFile = (tag: string): string => `v8-code-cache-${tag}.bin`;
const CODE_CACHE = /^v8-code-cache-[0-9a-f]{16}\.bin$/;
const CODE_CACHE_TMP = /^v8-code-cache-[0-9a-f]{16}\.bin\.\d+\.[0-9a-f]+\.tmp$/;
/** A file of this cache kept across processes (counted against the cap), or a temporary one. */
const isKept = (name: string) => ENTRY.test(name) || LEGACY.test(name) || CODE_CACHE.test(name);
const isTmp = (name: string) => TMP.test(name) || CODE_CACHE_TMP.test(name);

/** The regular files of `dir` whose names pass `test`: path, name, size, mtime; [] when unlistable. */
function listFiles(dir: string, test: (name: string) => boolean): Array<{ file: string; name: string; bytes: number; used: number }> {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out = [];
  for (const name of names) {
    if (!test(name)) continue;
    const file = path.join(dir, name);
    try {
      const st = fs.lstatSync(file);
      if (st.isFile()) out.push({ file, name, bytes: st.size, used: st.mtimeMs });
    } catch {
      // removed by another process meanwhile
    }
  }
  return out;
}

/** The default cache directory: $XDG_CACHE_HOME/nodecuda, else ~/.cache/nodecuda. */
export function defaultDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'nodecuda');
}

/** NODECUDA_CACHE_MAX_BYTES (default 256 MiB; 0 keeps nothing on disk). */
export function maxBytes(): number {
  const v = process.env.NODECUDA_CACHE_MAX_BYTES;
  if (v === undefined || v === '') return DEFAULT_MAX_BYTES;
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(Number(v))) {
    throw typeError('ERR_INVALID_ARG_VALUE',
      `NODECUDA_CACHE_MAX_BYTES must be a non-negative integer number of bytes. Received ${JSON.stringify(v)}`);
  }
  return Number(v);
}

function unsafe(dir: string, why: string): Error {
  const e = new Error(`The kernel cache directory ${dir} ${why}, so another user could plant kernels in it; ` +
    'nodecuda refuses to use it. Use a directory only you can write (e.g. mkdir -m 700), point ' +
    'NODECUDA_CACHE_DIR (or the cacheDir option) elsewhere, or set NODECUDA_CACHE=0.');
  Object.assign(e, { code: 'ERR_NODECUDA_CACHE_UNSAFE', dir, reason: why });
  return e;
}

const euid = () => (typeof process.geteuid === 'function' ? process.geteuid() : null);

/**
 * Checks (and when missing, creates 0700) the cache directory. Returns false when it cannot be
 * created (read-only disk: the kernel is just not saved); throws ERR_NODECUDA_CACHE_UNSAFE when it
 * exists but is not safe. `configured`: given by the user rather than the default location.
 */
export function openDir(dir: string, configured: boolean): boolean {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      st = fs.lstatSync(dir);
    } catch {
      return false;
    }
  }
  if (st.isSymbolicLink()) throw unsafe(dir, 'is a symbolic link');
  if (!st.isDirectory()) throw unsafe(dir, 'is not a directory');
  const uid = euid();
  if (uid !== null && st.uid !== uid) throw unsafe(dir, `is owned by uid ${st.uid}, not by this user (uid ${uid})`);
  if (uid !== null && st.mode & 0o077 && !configured) {
    // The default directory, ours but made by an older nodecuda with the umask's mode: tighten it.
    // Entries other users could have written are then refused one by one (ownership, mode).
    try {
      fs.chmodSync(dir, 0o700);
      st = fs.lstatSync(dir);
    } catch {
      // fall through to the check below
    }
  }
  if (uid !== null && st.mode & 0o022) {
    const who = [st.mode & 0o020 ? 'its group' : '', st.mode & 0o002 ? 'others' : ''].filter(Boolean).join(' and ');
    throw unsafe(dir, `is writable by ${who} (mode ${(st.mode & 0o777).toString(8)})`);
  }
  return true;
}

const entryFile = (dir: string, key: string) => path.join(dir, `${key}.entry`);

function remove(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // already gone, or not ours to remove (a directory in its place): either way not used
  }
}

/** The entry's content when `buf` is a complete, intact entry for `key`; null otherwise. */
function parse(buf: Buffer, key: string, kind: string, names: number): CachedImage | null {
  if (buf.length < PREFIX || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  if (buf.readUInt32LE(MAGIC.length) !== FORMAT) return null;
  const headerBytes = buf.readUInt32LE(MAGIC.length + 4);
  if (headerBytes > buf.length - PREFIX) return null;
  let h: { key?: unknown; kind?: unknown; length?: unknown; sha256?: unknown; loweredNames?: unknown; log?: unknown };
  try {
    h = JSON.parse(buf.toString('utf8', PREFIX, PREFIX + headerBytes));
  } catch {
    return null;
  }
  const payload = buf.subarray(PREFIX + headerBytes);
  const lowered = h.loweredNames;
  if (h === null || typeof h !== 'object' || h.key !== key || h.kind !== kind || h.length !== payload.length ||
    typeof h.log !== 'string' || !Array.isArray(lowered) || lowered.length !== names ||
    lowered.some((n) => typeof n !== 'string') ||
    h.sha256 !== createHash('sha256').update(payload).digest('hex')) return null;
  return { image: new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength), log: h.log, loweredNames: lowered };
}

/**
 * The bytes of `file` when it is a regular file owned by this user and not writable by others
 * (opened without following a symlink), else null. `touch` refreshes its time (LRU).
 */
export function readOwnedFile(file: string, touch: boolean): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') remove(file); // e.g. ELOOP: a symlink
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    const uid = euid();
    if (!st.isFile() || (uid !== null && (st.uid !== uid || st.mode & 0o022))) return null;
    const buf = fs.readFileSync(fd);
    if (touch) {
      try {
        const now = new Date();
        fs.futimesSync(fd, now, now);
      } catch {
        // a read-only disk: still read, only not marked as recently used
      }
    }
    return buf;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Reads and verifies the entry of `key`. A damaged, foreign or mismatched entry is deleted (the
 * caller compiles and writes a new one), never returned. A hit refreshes the file's time (LRU).
 */
export function readEntry(dir: string, key: string, kind: 'cubin' | 'ptx', names: number): CachedImage | null {
  const file = entryFile(dir, key);
  const buf = readOwnedFile(file, true);
  const hit = buf && parse(buf, key, kind, names);
  if (!hit) remove(file);
  return hit;
}

/**
 * Writes `data` to `file` through a temporary file and a rename (mode 0600); false on any failure
 * (full or read-only disk), with the temporary file removed.
 */
export function writeFileAtomic(file: string, data: Uint8Array | Uint8Array[]): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(tmp, Array.isArray(data) ? Buffer.concat(data) : data, { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, file);
    return true;
  } catch {
    remove(tmp);
    return false;
  }
}

// Per directory: bytes believed to be in it, and writes since it was last listed.
const usage = new Map<string, { bytes: number; writes: number }>();

/**
 * Writes the entry of `key` (temporary file, then rename; the temporary file is removed on any
 * failure) and evicts the least recently used entries when the directory grows past the cap.
 * A failure (full or read-only disk) only costs a later process a compile.
 */
export function writeEntry(dir: string, key: string, kind: 'cubin' | 'ptx', r: CachedImage): void {
  const cap = maxBytes();
  if (cap === 0) return;
  const header = Buffer.from(JSON.stringify({
    key, kind, length: r.image.byteLength, sha256: createHash('sha256').update(r.image).digest('hex'),
    loweredNames: r.loweredNames, log: r.log,
  }));
  const prefix = Buffer.alloc(PREFIX);
  MAGIC.copy(prefix);
  prefix.writeUInt32LE(FORMAT, MAGIC.length);
  prefix.writeUInt32LE(header.length, MAGIC.length + 4);
  if (!writeFileAtomic(entryFile(dir, key), [prefix, header, r.image])) return;
  const u = usage.get(dir);
  const bytes = PREFIX + header.length + r.image.byteLength;
  // List the directory on the first write of this process, every 32 writes (other processes write
  // too) and whenever the estimate passes the cap; otherwise just count.
  if (!u || ++u.writes >= 32 || u.bytes + bytes > cap) {
    usage.set(dir, { bytes: sweep(dir, cap), writes: 0 });
  } else {
    u.bytes += bytes;
  }
}

/** Removes all but the `keep` most recently used code cache files of `dir` (code_cache.ts). */
export function keepNewestCodeCaches(dir: string, keep: number): void {
  const files = listFiles(dir, (name) => CODE_CACHE.test(name)).sort((a, b) => b.used - a.used);
  for (const f of files.slice(keep)) remove(f.file);
}

/**
 * Lists the directory's cache files, removes temporary files older than an hour, and when the
 * total is over `cap` removes the least recently used (oldest mtime) down to 90% of it.
 * Returns the bytes left.
 */
function sweep(dir: string, cap: number): number {
  const files = [];
  let total = 0;
  const now = Date.now();
  for (const f of listFiles(dir, (name) => isKept(name) || isTmp(name))) {
    if (isTmp(f.name)) {
      if (now - f.used > STALE_TMP_MS) remove(f.file); // left by a process that died mid-write
      continue;
    }
    files.push(f);
    total += f.bytes;
  }
  if (total <= cap) return total;
  files.sort((a, b) => a.used - b.used);
  for (const f of files) {
    if (total <= cap * 0.9) break;
    remove(f.file);
    total -= f.bytes;
  }
  return total;
}

/** Removes every file of this cache from `dir` (nothing else). Returns how many were removed. */
export function clearDir(dir: string, configured: boolean): number {
  if (!fs.existsSync(dir)) return 0;
  openDir(dir, configured);
  let n = 0;
  for (const { file } of listFiles(dir, (name) => isKept(name) || isTmp(name))) {
    try {
      fs.unlinkSync(file);
      n++;
    } catch {
      // removed by another process meanwhile
    }
  }
  usage.delete(dir);
  return n;
}
