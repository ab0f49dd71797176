/**
 * NVRTC compilation (compile, compileAsync; modules.ts loads what it compiles), with two caches
 * here: images per process (by key) and verified entries on disk (disk_cache.ts:
 * NODECUDA_CACHE_DIR, default $XDG_CACHE_HOME/nodecuda or ~/.cache/nodecuda; NODECUDA_CACHE=0
 * disables), keyed by SHA-256 of everything that affects the output, including every user header
 * NVRTC can read.
 */
import { Hash, createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as diskCache from './disk_cache';
import { warmPrebuilt } from './prebuilt';
import { DEVICE_ATTRIBUTES } from './attributes';
import { CudaError, NvrtcError, describe, knownOptions, typeError } from '../base/errors';
import { native } from './native';
import { contextDevice, currentContext, onFirstContext } from './driver';
import { debug, kernelNames } from '../base/debug';
import { ABORT_KEYS, AbortSignalLike, abortable } from '../base/abort';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const PACKAGE_VERSION: string = require('../../package.json').version;

/** Options of compiler.compile(). */
export interface CompileOptions {
  /** Target architecture, e.g. 'sm_90' (default: the current device's). */
  arch?: string;
  /** Extra NVRTC options, e.g. ['-use_fast_math']. */
  options?: string[];
  /** 'cubin' (default) or 'ptx'. */
  target?: 'cubin' | 'ptx';
  /** Do not wrap the source in extern "C" { } (C++ names are then mangled). */
  noExternC?: boolean;
  /** Directories searched by #include. */
  includeDirs?: string[];
  /** C++ names whose lowered (mangled) names to report, e.g. ['kern<float>']. */
  nameExpressions?: string[];
  /** Disk cache directory for this compile (overrides NODECUDA_CACHE_DIR). */
  cacheDir?: string;
  /**
   * compileAsync only: rejects with an AbortError when aborted. NVRTC, once started, finishes in
   * the background (and its result still goes to the cache).
   */
  signal?: AbortSignalLike;
}

/** Result of compiler.compile(). */
export interface CompileResult {
  /** The CUBIN or PTX image. */
  image: Uint8Array;
  /** NVRTC's log (warnings); empty when none. */
  log: string;
  /** Lowered (mangled) name of each of `nameExpressions`, by expression. */
  loweredNames: Record<string, string>;
}

/** @internal What NVRTC (or the cache) gives back: lowered names in `nameExpressions` order. */
export interface RawResult {
  image: Uint8Array;
  log: string;
  loweredNames: string[];
}

/** @internal */
export function publicResult(p: Prepared, r: RawResult): CompileResult {
  return { image: r.image, log: r.log, loweredNames: Object.fromEntries(p.nameExpressions.map((e, i) => [e, r.loweredNames[i]])) };
}

/** @internal */
export interface Prepared {
  source: string;
  options: string[];
  cubin: boolean;
  nameExpressions: string[];
  key: string;
  /** False when the headers NVRTC reads cannot be known (a computed #include): never cached. */
  cacheable: boolean;
  cacheDir: string | null;
  /** cacheDir came from the options or NODECUDA_CACHE_DIR (an unsafe one is an error). */
  cacheConfigured: boolean;
}

let nvrtcVersionKey: string | null = null;
let supported: number[] | null = null;

function nvrtcVersion(): string {
  if (!nvrtcVersionKey) {
    const [maj, min] = native.nvrtcVersion();
    nvrtcVersionKey = `${maj}.${min}`;
  }
  return nvrtcVersionKey;
}

let compilerKeyPart: string | undefined;

/**
 * What a cache key says about the compiler. Opening libnvrtc only to ask its version costs more
 * than loading a cached image (39 ms on the 2-core CI machine; the warm-cache first add took 16 ms
 * on an H100 against 8 ms with shipped kernels, which never open it). So the key names the file
 * the addon would open (path, device, inode, size, mtime: another toolkit is another file): the
 * first existing one of its own candidates (native.nvrtcCandidates: $NODECUDA_NVRTC alone, else
 * the toolkit dirs, then bare sonames), found with stat. An NVRTC found only through the loader's
 * path is opened for its version. (Should the first existing candidate fail to load, the addon
 * takes the next one while the key still names the first: a rebuild is then missed only if that
 * next library changes alone.)
 */
function compilerKey(): string {
  return (compilerKeyPart ??= nvrtcFile() ?? `nvrtc ${nvrtcVersion()}`);
}

function nvrtcFile(): string | null {
  for (const c of native.nvrtcCandidates()) {
    if (!path.isAbsolute(c)) return null; // dlopen looks it up on the loader's path
    let st: fs.Stats;
    try {
      st = fs.statSync(c);
    } catch {
      continue;
    }
    if (st.isFile()) return `nvrtc file ${c} ${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  }
  return null;
}

/**
 * The compute capability of the current context's device (a pushed context's, else the
 * scope's), e.g. 90: kernels are compiled and loaded per device, whatever the thread's default is.
 */
function deviceCC(): number {
  const ord = contextDevice(currentContext().id).ordinal;
  const major = native.deviceAttribute(ord, DEVICE_ATTRIBUTES.COMPUTE_CAPABILITY_MAJOR);
  const minor = native.deviceAttribute(ord, DEVICE_ATTRIBUTES.COMPUTE_CAPABILITY_MINOR);
  return major * 10 + minor;
}

/** The architecture of the current device, as NVRTC can target it: ['sm_90', cubin?]. */
function deviceArch(): { arch: string; cubin: boolean } {
  const cc = deviceCC();
  supported ??= native.supportedArchs();
  if (supported.includes(cc)) return { arch: `sm_${cc}`, cubin: true };
  // A device newer than this NVRTC: PTX for the newest arch it knows; the driver JIT-compiles it.
  const best = Math.max(...supported.filter((a) => a <= cc));
  return { arch: `compute_${Number.isFinite(best) ? best : supported[0]}`, cubin: false };
}

/** The disk cache directory of a compile, and whether the user chose it. */
function cacheLocation(explicit: string | undefined): { dir: string | null; configured: boolean } {
  if (explicit !== undefined) return { dir: explicit, configured: true };
  if (process.env.NODECUDA_CACHE === '0') return { dir: null, configured: false };
  if (process.env.NODECUDA_CACHE_DIR) return { dir: process.env.NODECUDA_CACHE_DIR, configured: true };
  return { dir: diskCache.defaultDir(), configured: false };
}

/**
 * Feeds into `h` every file the preprocessor can read for `source` (the path each #include and
 * __has_include resolves to now, and the content of user headers, recursively), so that editing,
 * adding or removing a header changes the key. NVRTC 13 has no dependency output (-M, -MD, -MF are
 * rejected), so its lookup is reproduced; measured with NVRTC 13.0: a quoted include searches the
 * includer's directory first (for the source: the working directory, unless --no-source-include),
 * then the include paths in order; an angle include only the include paths; a pre-include the
 * working directory, then the include paths. Headers under the toolkit's include directory are
 * named, not read (the NVRTC version stands for them). Includes inside #if are hashed too (a
 * spurious miss at worst). Returns false when an include is computed (`#include MACRO`) or uses
 * #include_next: what NVRTC reads is then unknown and the result is not cached.
 */
function hashDependencies(h: Hash, source: string, options: string[]): boolean {
  const dirs = optionIncludeDirs(options);
  const toolkit = toolkitIncludeDir();
  const toolkitRoots = toolkit ? [toolkit, realpathOr(toolkit)].map((d) => d + path.sep) : [];
  const seen = new Set<string>();
  const resolve = (name: string, search: string[]): boolean => {
    for (const d of path.isAbsolute(name) ? ['/'] : search) {
      const p = path.resolve(d, name);
      if (seen.has(p)) {
        h.update(`\0${name}\0${p}`);
        return true;
      }
      if (toolkitRoots.some((r) => p.startsWith(r))) {
        if (!fs.existsSync(p)) continue;
        h.update(`\0${name}\0${p}`);
        return true;
      }
      let text: string;
      try {
        text = fs.readFileSync(p, 'utf8');
      } catch {
        continue;
      }
      seen.add(p);
      h.update(`\0${name}\0${p}\0${text.length}\0`).update(text);
      return scan(text, path.dirname(p));
    }
    h.update(`\0${name}\0?`); // not found now: found later, it changes the key
    return true;
  };
  const scan = (text: string, dir: string | null): boolean => {
    for (const m of text.matchAll(/^[ \t]*#[ \t]*include(_next)?\b[ \t]*(.*)$/gm)) {
      const lit = /^(?:"([^"\n]+)"|<([^>\n]+)>)/.exec(m[2]);
      if (m[1] || !lit) return false;
      if (!resolve(lit[1] ?? lit[2], lit[1] !== undefined && dir !== null ? [dir, ...dirs] : dirs)) return false;
    }
    for (const m of text.matchAll(/__has_include(_next)?\s*\(\s*(?:"([^"\n]+)"|<([^>\n]+)>)/g)) {
      if (m[1]) return false;
      if (!resolve(m[2] ?? m[3], m[2] !== undefined && dir !== null ? [dir, ...dirs] : dirs)) return false;
    }
    return true;
  };
  const cwd = process.cwd();
  for (let i = 0; i < options.length; i++) {
    const m = /^(?:--pre-include|-include)(?:=(.*))?$/.exec(options[i]);
    if (m) {
      const name = m[1] ?? options[++i];
      if (name === undefined || !resolve(name, [cwd, ...dirs])) return false;
    } else if (/^(?:--pre-include|-include)/.test(options[i])) {
      return false; // a spelling not understood here
    }
  }
  const sourceDir = options.some((o) => /^--?no-source-include$/.test(o)) ? null : cwd;
  return scan(source, sourceDir);
}

function realpathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

let toolkitInclude: string | null | undefined;

/**
 * The CUDA toolkit's include directory, when present: NVRTC 13 has no built-in cuda_fp16.h and
 * friends, so kernels that include them need it. Searched last; its headers are not hashed into
 * cache keys (the NVRTC version is).
 */
function toolkitIncludeDir(): string | null {
  if (toolkitInclude === undefined) {
    toolkitInclude = null;
    for (const root of [process.env.CUDA_HOME, process.env.CUDA_PATH, '/usr/local/cuda']) {
      if (root && fs.existsSync(path.join(root, 'include', 'cuda_fp16.h'))) {
        toolkitInclude = path.join(root, 'include');
        break;
      }
    }
  }
  return toolkitInclude;
}

/** Include directories named by options (-I dir, -Idir, --include-path=dir), in order. */
function optionIncludeDirs(options: string[]): string[] {
  const dirs: string[] = [];
  options.forEach((o, i) => {
    const m = /^(?:-I|--include-path=?)(.*)$/.exec(o);
    if (m) dirs.push(m[1] || options[i + 1] || '');
  });
  return dirs.filter(Boolean);
}

// The option names compile() and SourceModule read (and `signal`, their Async forms): any other
// (PyCUDA's keep, no_extern_c or cache_dir, a misspelt key) is a TypeError, not ignored. The sync
// forms take a `signal` unlisted: CompileOptions has it, so one options object may serve both.
const COMPILE_KEYS = ['arch', 'options', 'target', 'noExternC', 'includeDirs', 'nameExpressions', 'cacheDir'];
const COMPILE_ASYNC_KEYS = [...COMPILE_KEYS, ...ABORT_KEYS];

/** @internal Refuses an option `what` does not read (an object's; prepare() refuses a non-object). */
export function checkCompileOptions(opts: unknown, what: string, async: boolean): void {
  if (typeof opts !== 'object' || opts === null) return;
  knownOptions(opts, what, async ? COMPILE_ASYNC_KEYS : COMPILE_KEYS, async ? [] : ABORT_KEYS);
}

function stringArray(v: unknown, name: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "${name}" option must be an array of strings. Received ${describe(v)}`);
  }
  return v as string[];
}

/**
 * Wraps the source in extern "C" { } as PyCUDA does, leaving the leading #include lines outside
 * (C++ headers such as cuda_fp16.h cannot be included with C linkage).
 */
function wrapExternC(source: string): string {
  const lines = source.split('\n');
  let head = 0;
  while (head < lines.length && /^\s*(#\s*include\b.*|\/\/.*|)$/.test(lines[head])) head++;
  const includes = lines.slice(0, head).join('\n');
  return `${includes}${head ? '\n' : ''}extern "C" {\n${lines.slice(head).join('\n')}\n}\n`;
}

/** @internal */
export function prepare(source: string, opts: CompileOptions, defaultArch: boolean): Prepared {
  if (typeof source !== 'string') {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "source" argument must be a string. Received ${describe(source)}`);
  }
  if (opts === null || typeof opts !== 'object') {
    throw typeError('ERR_INVALID_ARG_TYPE', `The options must be an object. Received ${describe(opts)}`);
  }
  const includeDirs = stringArray(opts.includeDirs, 'includeDirs');
  const extra = stringArray(opts.options, 'options');
  const nameExpressions = stringArray(opts.nameExpressions, 'nameExpressions');
  if (opts.target !== undefined && opts.target !== 'cubin' && opts.target !== 'ptx') {
    throw typeError('ERR_INVALID_ARG_VALUE', `target must be 'cubin' or 'ptx'. Received ${describe(opts.target)}`);
  }
  let arch = opts.arch;
  let cubin = opts.target !== 'ptx';
  if (arch === undefined && defaultArch && cubin && supported === null) {
    // Before asking NVRTC which architectures it knows (that opens libnvrtc): a cached cubin for
    // the device's own sm_NN under this compiler's key can only exist if this NVRTC targets it.
    const p = prepare(source, { ...opts, arch: `sm_${deviceCC()}` }, false);
    if (readCache(p)) return p;
  }
  if (arch === undefined) {
    if (!defaultArch) throw typeError('ERR_MISSING_OPTION', 'compiler.compile() needs { arch } (e.g. "sm_90")');
    const d = deviceArch();
    arch = d.arch;
    cubin = cubin && d.cubin;
  }
  if (typeof arch !== 'string' || !/^(sm|compute)_\d+[af]?$/.test(arch)) {
    throw typeError('ERR_INVALID_ARG_VALUE', `arch must look like "sm_90" or "compute_90". Received ${describe(arch)}`);
  }
  if (!cubin || opts.target === 'ptx') arch = arch.replace(/^sm_/, 'compute_');
  if (arch.startsWith('compute_')) cubin = false;
  const wrapped = opts.noExternC ? source : wrapExternC(source);
  const toolkit = toolkitIncludeDir();
  const options = [`--gpu-architecture=${arch}`, ...includeDirs.map((d) => `--include-path=${d}`), ...extra,
    ...(toolkit ? [`--include-path=${toolkit}`] : [])];
  if (opts.cacheDir !== undefined && (typeof opts.cacheDir !== 'string' || opts.cacheDir === '')) {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "cacheDir" option must be a non-empty string. Received ${describe(opts.cacheDir)}`);
  }
  const h = createHash('sha256')
    .update([PACKAGE_VERSION, compilerKey(), wrapped, options.join('\0'), nameExpressions.join('\0')].join('\u0001'));
  const cacheable = hashDependencies(h, wrapped, options);
  const key = h.digest('hex');
  const { dir, configured } = cacheLocation(opts.cacheDir);
  if (dir !== null) diskCache.maxBytes(); // a bad NODECUDA_CACHE_MAX_BYTES fails every compile alike
  return { source: wrapped, options, cubin, nameExpressions, key, cacheable, cacheDir: dir, cacheConfigured: configured };
}

// In-process images by key (compiled once per process).
const images = new Map<string, RawResult>();

/** 'k1, k2 for sm_90' (NODE_DEBUG lines). */
function what(p: Prepared): string {
  const arch = p.options.find((o) => o.startsWith('--gpu-architecture='))?.slice(19) ?? '?';
  return `${kernelNames(p.source)} for ${arch}`;
}

function readCache(p: Prepared): RawResult | null {
  if (!p.cacheable) return null;
  const hit = images.get(p.key);
  if (hit) return hit;
  if (!p.cacheDir || !diskCache.openDir(p.cacheDir, p.cacheConfigured)) return null;
  const r = diskCache.readEntry(p.cacheDir, p.key, p.cubin ? 'cubin' : 'ptx', p.nameExpressions.length);
  if (r) images.set(p.key, r);
  if (debug.enabled) debug(`disk cache ${r ? 'hit' : 'miss'}: ${what(p)} (key ${p.key.slice(0, 12)} in ${p.cacheDir})`);
  return r;
}

/** Runs NVRTC (sync or async) and logs how long it took under NODE_DEBUG=nodecuda. */
function timed<T>(p: Prepared, run: () => T): T {
  if (!debug.enabled) return run();
  const t0 = performance.now();
  const log = (): void => debug(`compiling ${what(p)}: ${(performance.now() - t0).toFixed(0)} ms (NVRTC ${nvrtcVersion()})`);
  const r = run();
  if (r instanceof Promise) return r.finally(log) as T;
  log();
  return r;
}

function writeCache(p: Prepared, r: RawResult): void {
  if (!p.cacheable) return;
  images.set(p.key, r);
  // readCache checked (or created) the directory just before the compile.
  if (p.cacheDir && fs.existsSync(p.cacheDir)) diskCache.writeEntry(p.cacheDir, p.key, p.cubin ? 'cubin' : 'ptx', r);
}

/** @internal The key a compiled image is loaded under (per context): the cache key, or the image's hash. */
export function moduleKey(p: Prepared, r: RawResult): string {
  return p.cacheable ? p.key : 'image:' + createHash('sha256').update(r.image).digest('hex');
}

/**
 * Removes the compiled kernels of the disk cache in `dir` (default: NODECUDA_CACHE_DIR, else the
 * default directory, even when NODECUDA_CACHE=0) and forgets those compiled by this process, so
 * the next compile of each runs NVRTC. Only the cache's own files are removed. Returns how many.
 * @example
 * compiler.clearCache(); // e.g. after upgrading the CUDA toolkit's headers
 */
export function clearCache(dir?: string): number {
  if (dir !== undefined && (typeof dir !== 'string' || dir === '')) {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "dir" argument must be a non-empty string. Received ${describe(dir)}`);
  }
  images.clear();
  const configured = dir !== undefined || !!process.env.NODECUDA_CACHE_DIR;
  return diskCache.clearDir(dir ?? (process.env.NODECUDA_CACHE_DIR || diskCache.defaultDir()), configured);
}

/** @internal Forgets the images compiled in this process (tests: the next compile reads the disk). */
export function forgetCompiledImages(): void {
  images.clear();
}

/** Adds the numbered source around each error line and the options to an NvrtcError. */
function explain(e: unknown, p: Prepared): never {
  if (!(e instanceof NvrtcError) || e.code === 'NVRTC_NOT_FOUND') throw e;
  const lines = p.source.split('\n');
  const bad = new Set<number>();
  for (const m of e.log.matchAll(/\((\d+)\): (?:catastrophic )?error/g)) bad.add(Number(m[1]));
  const show = new Set<number>();
  for (const l of bad) for (let k = l - 2; k <= l + 2; k++) if (k >= 1 && k <= lines.length) show.add(k);
  const numbered = [...(show.size ? show : new Set(lines.map((_, i) => i + 1)))].sort((a, b) => a - b)
    .map((k) => `${bad.has(k) ? '>' : ' '}${String(k).padStart(5)} | ${lines[k - 1]}`).join('\n');
  e.source = p.source;
  e.options = p.options;
  e.message = `NVRTC compilation failed (${e.code}):\n${e.log.trim()}\n\nsource:\n${numbered}\n\noptions: ${p.options.join(' ')}`;
  throw e;
}

/** @internal */
export function compilePrepared(p: Prepared): RawResult {
  const hit = readCache(p);
  if (hit) return hit;
  let r: RawResult;
  try {
    r = timed(p, () => native.compile(p.source, 'kernel.cu', p.options, p.nameExpressions, p.cubin));
  } catch (e) {
    explain(e, p);
  }
  writeCache(p, r);
  return r;
}

/** @internal */
export async function compilePreparedAsync(p: Prepared): Promise<RawResult> {
  const hit = readCache(p);
  if (hit) return hit;
  let r: RawResult;
  try {
    r = await timed(p, () => native.compileAsync(p.source, 'kernel.cu', p.options, p.nameExpressions, p.cubin));
  } catch (e) {
    explain(e, p);
  }
  writeCache(p, r);
  return r;
}

/**
 * Compiles CUDA C++ with NVRTC. Needs no GPU when `arch` is given (for shipping precompiled
 * kernels). The source is wrapped in extern "C" unless `noExternC`.
 * @example
 * const { image } = compiler.compile('__global__ void k(float *x) { x[0] = 1; }', { arch: 'sm_90' });
 */
export function compile(source: string, opts: CompileOptions = {}): CompileResult {
  checkCompileOptions(opts, 'compiler.compile', false);
  const p = prepare(source, opts, true);
  return publicResult(p, compilePrepared(p));
}

/**
 * Like compile(), with NVRTC running off the main thread.
 * @example
 * const { image } = await compiler.compileAsync(src, { arch: 'sm_90' });
 */
export function compileAsync(source: string, opts: CompileOptions = {}): Promise<CompileResult> {
  try {
    checkCompileOptions(opts, 'compiler.compileAsync', true);
    const p = prepare(source, opts, true);
    return abortable(() => compilePreparedAsync(p), opts.signal).then((r) => publicResult(p, r));
  } catch (e) {
    return Promise.reject(e);
  }
}

const capabilities = new Map<number, [number, number]>();

/** @internal The current device's compute capability (no NVRTC: the shipped kernels must not need it). */
export function deviceCapability(): [number, number] {
  const ord = contextDevice(currentContext().id).ordinal; // the current context's device (a pushed one's too)
  let cc = capabilities.get(ord);
  if (!cc) {
    cc = [native.deviceAttribute(ord, DEVICE_ATTRIBUTES.COMPUTE_CAPABILITY_MAJOR),
      native.deviceAttribute(ord, DEVICE_ATTRIBUTES.COMPUTE_CAPABILITY_MINOR)];
    capabilities.set(ord, cc);
  }
  return cc;
}

/**
 * The one-time work of a process's first kernel lookup, done when its first context is made
 * (which takes 150 ms or more anyway) instead of in its first operation: the SHA-256 code's first
 * use, the shipped archives' indexes for the device, the compiler part of the cache key (when a
 * stat finds NVRTC; never opening it), the toolkit's include directory and a first include scan.
 * Best effort: anything that fails here is done (and reported) by the first kernel as before.
 */
function prewarm(): void {
  try {
    createHash('sha256').update('').digest();
    const [major, minor] = deviceCapability();
    warmPrebuilt(major, minor);
    if (compilerKeyPart === undefined) {
      const f = nvrtcFile();
      if (f !== null) compilerKeyPart = f;
    }
    // The include scan's regular expressions and the toolkit header lookups (every generated
    // kernel includes one): about 0.4 ms of a first operation's JavaScript on a 2-core machine.
    hashDependencies(createHash('sha256'), '#include <cuda_fp16.h>\n', []);
  } catch (e) {
    // The first kernel does it; but a CudaError (a queued launch's failure reported by the first
    // driver call here) is the caller's to see.
    if (e instanceof CudaError) throw e;
  }
}
onFirstContext(prewarm);
