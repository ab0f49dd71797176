/**
 * V8's code cache for nodecuda's own modules, kept beside the kernels in the kernel cache
 * directory, so that a process's first operations do not pay V8's lazy compilation of the
 * library's JavaScript (issue 18: warm-cache first use). One file, `v8-code-cache-<tag>.bin`, per
 * Node version, architecture, package directory and Node/V8 flags (processes run with other flags
 * do not overwrite each other's); at most 4 in a directory.
 *
 * How: nodecuda's modules (this package's dist/, nothing else) get a module._compile of their own
 * that compiles them with vm.Script and the cached data of the last process that wrote the file
 * (other loaders and transforms in the chain still run). V8 checks the data against its version,
 * flags and the source's length, and this file against each module's size, mtime, ctime and
 * inode; anything that does not match is compiled as usual. When the process exits, the code cache
 * of every module is taken *after* the run, so it holds the functions the run compiled lazily (the
 * ones a first operation needs), and written when the file was missing or stale, or when this
 * process built a kernel the file's writers did not (its code paths may be new): freely for the
 * first 8 writes, then at most every 10 minutes, about 10 ms each at exit.
 *
 * Safety: the file is read only from the kernel cache directory under the same rules as kernels
 * (disk_cache.ts: the directory and the file owned by the user, not writable by others).
 * Off with NODECUDA_CODE_CACHE=0, NODECUDA_CACHE=0, NODECUDA_CACHE_MAX_BYTES=0, or when the process
 * maps stack traces through source maps or checks module integrity (--enable-source-maps,
 * --experimental-policy: Node's own compile does those).
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
/** A module file's identity: size, mtime, ctime (not settable: cp -p, touch -r) and inode. */
type Stamp = [number, number, number, number];
interface Header {
  node: string;
  v8: string;
  arch: string;
  root: string;
  /** [path under dist/, stamp, bytes of cached data] per module. */
  modules: Array<[string, Stamp, number]>;
  /** Key prefixes of the kernels built by the processes that wrote the file. */
  kernels: string[];
  /** How many times the file was written, and when last (ms). */
  writes: number;
  time: number;
}

const stampOf = (st: fs.Stats): Stamp => [st.size, st.mtimeMs, st.ctimeMs, st.ino];
const sameStamp = (a: unknown, b: Stamp) => Array.isArray(a) && a.length === b.length && a.every((v, i) => v === b[i]);
// A file a process rewrites because it built new kernels: freely for its first writes, then at
// most every 10 minutes (a program that generates kernels from its data builds new ones each run).
const FREE_WRITES = 8;
const REWRITE_MS = 10 * 60 * 1000;
const KEEP_FILES = 4; // code cache files (Node versions and flag sets) kept in a directory

const state = {
  enabled: false,
  dir: null as string | null,
  file: '',
  configured: false,
  cached: new Map<string, { stamp: Stamp; data: Buffer }>(),
  writes: 0,
  time: 0,
  kernels: new Set<string>(),
  used: new Set<string>(),
  scripts: [] as Array<{ rel: string; stamp: Stamp; script: vm.Script }>,
  stale: true,
  loaded: 0,
  rejected: 0,
};

/** The kernel cache directory when the disk cache is on (compiler.ts's rules, without options). */
function cacheDir(): { dir: string; configured: boolean } | null {
  if (process.env.NODECUDA_CACHE === '0' || process.env.NODECUDA_CODE_CACHE === '0') return null;
  // Node maps stack traces through source maps, or checks module integrity (policy), in its own
  // compile of each module.
  const args = [...process.execArgv, process.env.NODE_OPTIONS ?? ''];
  if ((process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled ||
    args.some((a) => /--(?:enable-source-maps|experimental-policy|policy-integrity)/.test(a))) return null;
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
  if (h.node !== process.version || h.v8 !== process.versions.v8 || h.arch !== process.arch || h.root !== ROOT) return;
  for (const [rel, stamp, len] of h.modules) {
    if (off + len > buf.length) return;
    state.cached.set(rel, { stamp, data: buf.subarray(off, off + len) });
    off += len;
  }
  state.kernels = new Set(h.kernels);
  state.writes = h.writes;
  state.time = h.time;
  state.stale = false;
}

// Options that take a value and do not change how V8 compiles: a script (-e), preloaded modules.
const NOT_FLAGS = /^(?:-e|--eval|-p|--print|-pe|-r|--require|--import|--loader|--experimental-loader|--input-type)$/;

/** Options less the eval'd script and preloads (two `node -e` scripts share a file). */
function flags(argv: string[]): string[] {
  const out: string[] = [];
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

/** Module.prototype._compile for one of our modules, with V8's cached data. */
function compileCached(module: NodeJS.Module, source: string, filename: string): unknown {
  const own = module as unknown as { _compile?: (c: string, f: string) => unknown };
  delete own._compile; // from here on module._compile is Node's (the prototype's)
  const nodeCompile = (): unknown => (own._compile as (c: string, f: string) => unknown).call(module, source, filename);
  let fn: (...a: unknown[]) => void;
  try {
    const stat = fs.statSync(filename);
    if (Buffer.byteLength(source) !== stat.size) return nodeCompile(); // transformed: not the file's bytes
    const rel = filename.slice(ROOT.length);
    const hit = state.cached.get(rel);
    state.cached.delete(rel);
    const stamp = stampOf(stat);
    const cachedData = hit && sameStamp(hit.stamp, stamp) ? hit.data : undefined;
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n});`,
      { filename, cachedData });
    if (!cachedData || script.cachedDataRejected) state.stale = true;
    if (cachedData && !script.cachedDataRejected) state.loaded++;
    if (cachedData && script.cachedDataRejected) state.rejected++;
    fn = script.runInThisContext({ displayErrors: true }) as typeof fn;
    state.scripts.push({ rel, stamp, script });
  } catch {
    state.stale = true; // e.g. a damaged record: rewritten at exit
    return nodeCompile(); // Node reports what is wrong
  }
  return fn.call(module.exports, module.exports, requireFor(module, filename), module, filename, path.dirname(filename));
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
  // Loaded by Node's own loader only: a test runner's registry (Jest) gives modules plain objects
  // and its own Module class per test file, whose loader table is Node's, shared.
  if (!extensions || typeof prior !== 'function' || !(module instanceof Module)) return;
  // Once per process and package copy.
  const mark = Symbol.for(`nodecuda.codeCache:${ROOT}`);
  const holder = extensions as unknown as Record<symbol, boolean>;
  if (holder[mark]) return;
  holder[mark] = true;
  const located = cacheDir();
  if (!located) return;
  state.dir = located.dir;
  const nodeOptions = flags((process.env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean));
  const tag = createHash('sha256').update([process.version, process.versions.v8, process.arch, ROOT,
    ...flags(process.execArgv), '\0', ...nodeOptions].join('\0')).digest('hex').slice(0, 16);
  state.file = path.join(located.dir, diskCache.codeCacheFile(tag));
  state.configured = located.configured;
  state.enabled = true;
  try {
    readFile(located.dir, located.configured);
  } catch {
    state.cached.clear(); // unsafe directory, damaged file: compiled as usual (kernels report the directory)
  }
  // Our modules get a module._compile of their own: every other loader and transform in the chain
  // (ts-node, pirates, nyc: they wrap module._compile or the loader) still runs, and Node's loader
  // reads the file and calls it. A transformed source (not the file's bytes) is compiled by Node.
  extensions['.js'] = function nodecudaModule(module, filename) {
    if (state.enabled && filename.startsWith(ROOT) && !Object.prototype.hasOwnProperty.call(module, '_compile')) {
      (module as unknown as { _compile: unknown })._compile = function (this: NodeJS.Module, content: string, name: string) {
        return compileCached(this, content, name);
      };
    }
    return prior.call(this, module, filename);
  };
  process.once('exit', save);
}

/** Writes the file at exit when it is missing, stale or this process built new kernels. */
function save(): void {
  // Only processes that built a kernel: one that merely loads nodecuda makes no cache directory.
  if (!state.enabled || !isMainThread || !state.dir || !state.scripts.length || !state.used.size) return;
  const fresh = [...state.used].filter((k) => !state.kernels.has(k));
  const now = Date.now();
  const due = fresh.length > 0 && (state.writes < FREE_WRITES || now - state.time > REWRITE_MS);
  if (!state.stale && !due) return;
  try {
    if (!diskCache.openDir(state.dir, state.configured)) return;
    const data = state.scripts.map((s) => s.script.createCachedData());
    const kernels = [...state.kernels, ...fresh].slice(-MAX_KERNELS);
    const header: Header = {
      node: process.version, v8: process.versions.v8, arch: process.arch, root: ROOT, kernels,
      modules: state.scripts.map((s, i) => [s.rel, s.stamp, data[i].length]),
      writes: state.writes + 1, time: now,
    };
    const head = Buffer.from(JSON.stringify(header));
    const len = Buffer.alloc(4);
    len.writeUInt32LE(head.length);
    if (diskCache.writeFileAtomic(state.file, [MAGIC, len, head, ...data])) diskCache.keepNewestCodeCaches(state.dir, KEEP_FILES);
  } catch {
    // an unsafe directory or a full disk: the next process compiles as usual
  }
}

/** @internal compiler.ts: a generated kernel this process built (its key). */
export function noteKernel(key: string): void {
  if (state.enabled && state.used.size < MAX_KERNELS) state.used.add(key.slice(0, 16));
}

/** @internal What the code cache did in this process (test/33). */
export function codeCacheStatus(): { enabled: boolean; modules: number; loaded: number; rejected: number; stale: boolean } {
  return { enabled: state.enabled, modules: state.scripts.length, loaded: state.loaded, rejected: state.rejected, stale: state.stale };
}

try {
  install();
} catch {
  // e.g. a bad NODECUDA_CACHE_MAX_BYTES: the compiler reports it; modules load as usual
}
