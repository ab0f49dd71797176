/**
 * V8's code cache for nodecuda's own modules, kept beside the kernels in the kernel cache
 * directory (`v8-code-cache-<tag>.bin`, one per Node version, architecture and Node/V8 flags, so
 * that processes run with different flags do not overwrite each other's), so that a process's first operations do not pay V8's lazy
 * compilation of the library's JavaScript (issue 18: warm-cache first use).
 *
 * How: nodecuda's modules (this package's dist/, nothing else) are compiled with vm.Script and
 * the cached data of the last process that wrote the file. V8 checks the data against its version,
 * flags and the source's length, and this file against each module's size and mtime; anything that
 * does not match is compiled as usual. When the process exits, the code cache of every module is
 * taken *after* the run, so it holds the functions the run compiled lazily (the ones a first
 * operation needs), and written when the file was missing or stale, or when this process built a
 * kernel the file's writer did not (its code paths may be new): at most a few writes per machine,
 * about 10 ms each at exit.
 *
 * Safety: the file is read only from the kernel cache directory under the same rules as kernels
 * (disk_cache.ts: the directory and the file owned by the user, not writable by others).
 * Off with NODECUDA_CODE_CACHE=0, NODECUDA_CACHE=0, NODECUDA_CACHE_MAX_BYTES=0, or when the process
 * maps stack traces through source maps (--enable-source-maps: those need Node's own compile).
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import Module from 'module';
import * as path from 'path';
import * as vm from 'vm';
import { isMainThread } from 'worker_threads';
import * as diskCache from './disk_cache';

const MAGIC = Buffer.from('NCV8CODE');
const MAX_KERNELS = 4096;
const ROOT = path.resolve(__dirname, '..') + path.sep;

type Loader = (this: unknown, module: NodeJS.Module, filename: string) => void;
interface Header {
  node: string;
  v8: string;
  arch: string;
  /** [path under dist/, size, mtime ms, bytes of cached data] per module. */
  modules: Array<[string, number, number, number]>;
  /** Key prefixes of the kernels built by the processes that wrote the file. */
  kernels: string[];
}

const state = {
  enabled: false,
  dir: null as string | null,
  file: '',
  configured: false,
  cached: new Map<string, { size: number; mtime: number; data: Buffer }>(),
  kernels: new Set<string>(),
  used: new Set<string>(),
  scripts: [] as Array<{ rel: string; size: number; mtime: number; script: vm.Script }>,
  stale: true,
  loaded: 0,
  rejected: 0,
  written: false,
};

/** The kernel cache directory when the disk cache is on (compiler.ts's rules, without options). */
function cacheDir(): { dir: string; configured: boolean } | null {
  if (process.env.NODECUDA_CACHE === '0' || process.env.NODECUDA_CODE_CACHE === '0') return null;
  if ((process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled || process.execArgv.includes('--enable-source-maps')) return null;
  if (diskCache.maxBytes() === 0) return null;
  if (process.env.NODECUDA_CACHE_DIR) return { dir: process.env.NODECUDA_CACHE_DIR, configured: true };
  return { dir: diskCache.defaultDir(), configured: false };
}

function readFile(dir: string, configured: boolean): void {
  if (!fs.existsSync(dir) || !diskCache.openDir(dir, configured)) return;
  const buf = diskCache.readOwnedFile(state.file, true);
  if (!buf || buf.length < MAGIC.length + 4 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return;
  const headerBytes = buf.readUInt32LE(MAGIC.length);
  let off = MAGIC.length + 4 + headerBytes;
  if (off > buf.length) return;
  const h = JSON.parse(buf.toString('utf8', MAGIC.length + 4, off)) as Header;
  if (h.node !== process.version || h.v8 !== process.versions.v8 || h.arch !== process.arch) return;
  for (const [rel, size, mtime, len] of h.modules) {
    if (off + len > buf.length) return;
    state.cached.set(rel, { size, mtime, data: buf.subarray(off, off + len) });
    off += len;
  }
  state.kernels = new Set(h.kernels);
  state.stale = false;
}

// Options that take a value and do not change how V8 compiles: a script (-e), preloaded modules.
const NOT_FLAGS = /^(?:-e|--eval|-p|--print|-pe|-r|--require|--import|--loader|--experimental-loader|--input-type)$/;

/** process.execArgv less the eval'd script and preloads (two `node -e` scripts share a file). */
function flags(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const [name] = argv[i].split('=', 1);
    if (NOT_FLAGS.test(name)) {
      if (!argv[i].includes('=')) i++;
      continue;
    }
    out.push(argv[i]);
  }
  return out;
}

function requireFor(module: NodeJS.Module, filename: string): NodeJS.Require {
  const req = ((id: string) => module.require(id)) as NodeJS.Require;
  req.resolve = Module.createRequire(filename).resolve;
  req.cache = require.cache;
  req.main = require.main;
  return req;
}

function install(): void {
  const extensions = (Module as unknown as { _extensions?: Record<string, Loader> })._extensions;
  const prior = extensions?.['.js'];
  if (!extensions || typeof prior !== 'function') return;
  // Once per process and package copy: a test runner evaluates this module again for each test
  // file (its own module registry), and each would add a loader and an exit listener.
  const mark = Symbol.for(`nodecuda.codeCache:${ROOT}`);
  const holder = Module as unknown as Record<symbol, boolean>;
  if (holder[mark]) return;
  holder[mark] = true;
  const located = cacheDir();
  if (!located) return;
  state.dir = located.dir;
  const tag = createHash('sha256').update([process.version, process.versions.v8, process.arch, ...flags(),
    process.env.NODE_OPTIONS ?? ''].join('\0')).digest('hex').slice(0, 16);
  state.file = path.join(located.dir, diskCache.codeCacheFile(tag));
  state.configured = located.configured;
  state.enabled = true;
  try {
    readFile(located.dir, located.configured);
  } catch {
    state.cached.clear(); // unsafe directory, damaged file: compiled as usual (kernels report the directory)
  }
  extensions['.js'] = function nodecudaModule(module, filename) {
    if (!filename.startsWith(ROOT) || !state.enabled) return prior.call(this, module, filename);
    let fn: (...a: unknown[]) => void;
    const rel = filename.slice(ROOT.length);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(filename);
      const source = fs.readFileSync(filename, 'utf8');
      const hit = state.cached.get(rel);
      const cachedData = hit && hit.size === stat.size && hit.mtime === stat.mtimeMs ? hit.data : undefined;
      const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n});`,
        { filename, cachedData });
      if (!cachedData || script.cachedDataRejected) state.stale = true;
      if (cachedData && !script.cachedDataRejected) state.loaded++;
      if (cachedData && script.cachedDataRejected) state.rejected++;
      fn = script.runInThisContext({ displayErrors: true }) as typeof fn;
      state.scripts.push({ rel, size: stat.size, mtime: stat.mtimeMs, script });
    } catch {
      return prior.call(this, module, filename); // Node's loader reports what is wrong
    }
    fn.call(module.exports, module.exports, requireFor(module, filename), module, filename, path.dirname(filename));
  };
  process.once('exit', save);
}

/** Writes the file at exit when it is missing, stale or this process built new kernels. */
function save(): void {
  if (!state.enabled || !isMainThread || !state.dir || !state.scripts.length) return;
  const fresh = [...state.used].filter((k) => !state.kernels.has(k));
  if (!state.stale && !fresh.length) return;
  try {
    if (!diskCache.openDir(state.dir, state.configured)) return;
    const data = state.scripts.map((s) => s.script.createCachedData());
    const kernels = [...state.kernels, ...fresh].slice(-MAX_KERNELS);
    const header: Header = {
      node: process.version, v8: process.versions.v8, arch: process.arch, kernels,
      modules: state.scripts.map((s, i) => [s.rel, s.size, s.mtime, data[i].length]),
    };
    const head = Buffer.from(JSON.stringify(header));
    const len = Buffer.alloc(4);
    len.writeUInt32LE(head.length);
    state.written = diskCache.writeFileAtomic(state.file, [MAGIC, len, head, ...data]);
  } catch {
    // an unsafe directory or a full disk: the next process compiles as usual
  }
}

/** @internal compiler.ts: a generated kernel this process built (its key). */
export function noteKernel(key: string): void {
  if (state.enabled && state.used.size < MAX_KERNELS) state.used.add(key.slice(0, 16));
}

/** @internal What the code cache did in this process (tests, `nodecuda doctor`). */
export function codeCacheStatus(): { enabled: boolean; modules: number; loaded: number; rejected: number; stale: boolean } {
  return { enabled: state.enabled, modules: state.scripts.length, loaded: state.loaded, rejected: state.rejected, stale: state.stale };
}

/** @internal Tests: write the file now, as at exit; returns whether it was written. */
export function saveCodeCacheNow(): boolean {
  state.written = false;
  save();
  return state.written;
}

try {
  install();
} catch {
  // e.g. a bad NODECUDA_CACHE_MAX_BYTES: the compiler reports it; modules load as usual
}
