/**
 * NVRTC compilation (compile, compileAsync), SourceModule and Module, with three caches: images
 * per process (by key), loaded modules per context (by key and context generation), and CUBIN
 * files on disk (NODECUDA_CACHE_DIR, default $XDG_CACHE_HOME/nodecuda or ~/.cache/nodecuda;
 * NODECUDA_CACHE=0 disables), keyed by SHA-256 of everything that affects the output.
 */
import { types } from 'util';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEVICE_ATTRIBUTES } from './attributes';
import { NvrtcError, describe, typeError } from './errors';
import { DeviceAllocation } from './memory';
import { CudaFunction, ParamType, makeFunction, parseKernelSignatures } from './launch';
import { native } from './native';
import { currentContext } from './driver';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const PACKAGE_VERSION: string = require('../package.json').version;

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

/** What NVRTC (or the cache) gives back: lowered names in `nameExpressions` order. */
interface RawResult {
  image: Uint8Array;
  log: string;
  loweredNames: string[];
}

function publicResult(p: Prepared, r: RawResult): CompileResult {
  return { image: r.image, log: r.log, loweredNames: Object.fromEntries(p.nameExpressions.map((e, i) => [e, r.loweredNames[i]])) };
}

interface Prepared {
  source: string;
  options: string[];
  cubin: boolean;
  nameExpressions: string[];
  key: string;
  cacheDir: string | null;
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

/** The architecture of the current device, as NVRTC can target it: ['sm_90', cubin?]. */
function deviceArch(): { arch: string; cubin: boolean } {
  const ord = native.currentDevice();
  const major = native.deviceAttribute(ord, DEVICE_ATTRIBUTES.COMPUTE_CAPABILITY_MAJOR);
  const minor = native.deviceAttribute(ord, DEVICE_ATTRIBUTES.COMPUTE_CAPABILITY_MINOR);
  const cc = major * 10 + minor;
  supported ??= native.supportedArchs();
  if (supported.includes(cc)) return { arch: `sm_${cc}`, cubin: true };
  // A device newer than this NVRTC: PTX for the newest arch it knows; the driver JIT-compiles it.
  const best = Math.max(...supported.filter((a) => a <= cc));
  return { arch: `compute_${Number.isFinite(best) ? best : supported[0]}`, cubin: false };
}

function defaultCacheDir(): string | null {
  if (process.env.NODECUDA_CACHE === '0') return null;
  if (process.env.NODECUDA_CACHE_DIR) return process.env.NODECUDA_CACHE_DIR;
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'nodecuda');
}

/**
 * Contents of user headers reached through #include (quoted includes are looked up next to their
 * includer first, as NVRTC does), so editing one changes the cache key.
 */
function includedHeaders(source: string, dirs: string[], includer: string | null = null,
  seen = new Set<string>()): string {
  let out = '';
  for (const m of source.matchAll(/^\s*#\s*include\s*([<"])([^>"]+)[>"]/gm)) {
    const search = m[1] === '"' && includer ? [path.dirname(includer), ...dirs] : dirs;
    for (const d of search) {
      const p = path.resolve(d, m[2]);
      if (seen.has(p)) break;
      let text: string;
      try {
        text = fs.readFileSync(p, 'utf8');
      } catch {
        continue;
      }
      seen.add(p);
      out += `\0${p}\0${text}${includedHeaders(text, dirs, p, seen)}`;
      break;
    }
  }
  return out;
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

/** Include directories named by options (-I dir, -Idir, --include-path=dir). */
function optionIncludeDirs(options: string[]): string[] {
  const dirs: string[] = [];
  options.forEach((o, i) => {
    const m = /^(?:-I|--include-path=?)(.*)$/.exec(o);
    if (m) dirs.push(m[1] || options[i + 1] || '');
  });
  return dirs.filter(Boolean);
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

function prepare(source: string, opts: CompileOptions, defaultArch: boolean): Prepared {
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
  const key = createHash('sha256')
    .update([PACKAGE_VERSION, nvrtcVersion(), wrapped, options.join('\0'), nameExpressions.join('\0'),
      includedHeaders(wrapped, [...includeDirs, ...optionIncludeDirs(extra)])].join('\u0001'))
    .digest('hex');
  const cacheDir = opts.cacheDir ?? defaultCacheDir();
  return { source: wrapped, options, cubin, nameExpressions, key, cacheDir };
}

// In-process images by key (compiled once per process).
const images = new Map<string, RawResult>();

function readCache(p: Prepared): RawResult | null {
  const hit = images.get(p.key);
  if (hit) return hit;
  if (!p.cacheDir) return null;
  try {
    const buf = fs.readFileSync(path.join(p.cacheDir, p.key + (p.cubin ? '.cubin' : '.ptx')));
    let loweredNames: string[] = [];
    if (p.nameExpressions.length) {
      loweredNames = JSON.parse(fs.readFileSync(path.join(p.cacheDir, p.key + '.names.json'), 'utf8'));
    }
    const r = { image: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), log: '', loweredNames };
    images.set(p.key, r);
    return r;
  } catch {
    return null;
  }
}

function writeAtomic(file: string, data: Uint8Array | string): void {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

function writeCache(p: Prepared, r: RawResult): void {
  images.set(p.key, r);
  if (!p.cacheDir) return;
  try {
    fs.mkdirSync(p.cacheDir, { recursive: true });
    if (p.nameExpressions.length) writeAtomic(path.join(p.cacheDir, p.key + '.names.json'), JSON.stringify(r.loweredNames));
    writeAtomic(path.join(p.cacheDir, p.key + (p.cubin ? '.cubin' : '.ptx')), r.image);
  } catch {
    // A read-only or full disk only costs the next process a compile.
  }
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

function compilePrepared(p: Prepared): RawResult {
  const hit = readCache(p);
  if (hit) return hit;
  let r: RawResult;
  try {
    r = native.compile(p.source, 'kernel.cu', p.options, p.nameExpressions, p.cubin);
  } catch (e) {
    explain(e, p);
  }
  writeCache(p, r);
  return r;
}

async function compilePreparedAsync(p: Prepared): Promise<RawResult> {
  const hit = readCache(p);
  if (hit) return hit;
  let r: RawResult;
  try {
    r = await native.compileAsync(p.source, 'kernel.cu', p.options, p.nameExpressions, p.cubin);
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
    const p = prepare(source, opts, true);
    return compilePreparedAsync(p).then((r) => publicResult(p, r));
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * A loaded module (CUBIN or PTX) in the current context.
 * @example
 * const mod = driver.moduleFromBuffer(image); const fn = mod.getFunction('k');
 */
export class Module {
  /** @internal */
  readonly handle: NativeAddon.ModuleHandle;
  /** @internal */
  protected signatures: Map<string, ParamType[]> | null;
  /** @internal */
  constructor(handle: NativeAddon.ModuleHandle, signatures: Map<string, ParamType[]> | null = null) {
    this.handle = handle;
    this.signatures = signatures;
  }
  /** The kernel `name` (extern "C" name or lowered C++ name); callable. */
  getFunction(name: string): CudaFunction {
    if (typeof name !== 'string') throw typeError('ERR_INVALID_ARG_TYPE', `Kernel name must be a string. Received ${describe(name)}`);
    const h = native.moduleFunction(this.handle, name);
    return makeFunction(h, name, this.signatures?.get(name) ?? null, this);
  }
  /** A `__device__`/`__constant__` global: [allocation (not owned: free() does nothing), bytes]. */
  getGlobal(name: string): [DeviceAllocation, number] {
    if (typeof name !== 'string') throw typeError('ERR_INVALID_ARG_TYPE', `Global name must be a string. Received ${describe(name)}`);
    const [ptr, bytes] = native.moduleGlobal(this.handle, name);
    return [new DeviceAllocation(bytes, null, { ptr, owner: this }), bytes];
  }
}

/**
 * Loads a CUBIN or PTX image (e.g. from compiler.compile) into the current context.
 * @example
 * const mod = driver.moduleFromBuffer(fs.readFileSync('k.cubin'));
 */
export function moduleFromBuffer(image: ArrayBufferView | ArrayBuffer): Module {
  const view = ArrayBuffer.isView(image) ? image : types.isAnyArrayBuffer(image) ? new Uint8Array(image) : null;
  if (!view) throw typeError('ERR_INVALID_ARG_TYPE', `moduleFromBuffer() takes a Uint8Array/Buffer/ArrayBuffer. Received ${describe(image)}`);
  return new Module(native.moduleLoad(view.buffer as ArrayBuffer, view.byteOffset, view.byteLength));
}

// Loaded modules per context: context id → generation → key → handle.
const loaded = new Map<number, { generation: number; modules: Map<string, NativeAddon.ModuleHandle> }>();

function loadCached(key: string, image: Uint8Array): NativeAddon.ModuleHandle {
  const { generation, id } = currentContext();
  let entry = loaded.get(id);
  if (!entry || entry.generation !== generation) {
    entry = { generation, modules: new Map() };
    loaded.set(id, entry);
  }
  let h = entry.modules.get(key);
  if (!h) {
    h = native.moduleLoad(image.buffer as ArrayBuffer, image.byteOffset, image.byteLength);
    entry.modules.set(key, h);
  }
  return h;
}

/** Options of SourceModule. */
export type SourceModuleOptions = Omit<CompileOptions, 'target'> & { target?: 'cubin' | 'ptx' };

/**
 * CUDA C++ compiled with NVRTC for the current device and loaded (pycuda.compiler.SourceModule).
 * Kernel signatures are parsed, so plain JS numbers convert to the declared parameter types.
 * @example
 * const mod = new SourceModule(`__global__ void twice(float *a, int n) {
 *   int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= 2; }`);
 * mod.getFunction('twice')(alloc, n, { block: [256], grid: [Math.ceil(n / 256)] });
 */
export class SourceModule extends Module {
  /** The compiled image (CUBIN or PTX). */
  readonly image: Uint8Array;
  /** NVRTC's log. */
  readonly log: string;
  /** Lowered names of `nameExpressions`, by expression. */
  readonly loweredNames: Record<string, string>;
  constructor(source: string, opts: SourceModuleOptions = {}) {
    const p = prepare(source, opts, true);
    const r = compilePrepared(p);
    super(loadCached(p.key, r.image), opts.noExternC ? null : parseKernelSignatures(source));
    this.image = r.image;
    this.log = r.log;
    this.loweredNames = publicResult(p, r).loweredNames;
  }
  /**
   * Compiles off the main thread, then loads.
   * @example
   * const mod = await SourceModule.compileAsync(src);
   */
  static async compileAsync(source: string, opts: SourceModuleOptions = {}): Promise<SourceModule> {
    const p = prepare(source, opts, true);
    await compilePreparedAsync(p); // fills the in-process cache, so the constructor only loads
    return new SourceModule(source, opts);
  }
}

/**
 * @internal A kernel of generated source (which declares its own extern "C" names) for the current
 * context, compiled once per process (memory + disk cache) and loaded once per context.
 */
export function generatedKernel(source: string, name: string, options: readonly string[] = []): NativeAddon.FunctionHandle {
  const p = prepare(source, { noExternC: true, options: ['--std=c++17', ...options] }, true);
  const r = compilePrepared(p);
  return native.moduleFunction(loadCached(p.key, r.image), name);
}
