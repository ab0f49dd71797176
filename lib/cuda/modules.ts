/**
 * Loaded modules: Module (a CUBIN or PTX image in the current context), SourceModule (CUDA C++
 * compiled by compiler.ts, then loaded) and generatedKernel (the library's own kernels: a shipped
 * prebuilt image, else compiled), with the per-context cache of loaded modules (by key and
 * context generation) that they share.
 */
import { types } from 'util';
import * as fs from 'fs';
import { noteKernel } from './code_cache';
import { disablePrebuilt, findPrebuilt, prebuiltKey } from './prebuilt';
import { CudaError, describe, typeError } from '../base/errors';
import { DeviceAllocation } from './memory';
import { CudaFunction, ParamType, makeFunction, parseKernelSignatures } from './launch';
import { native } from './native';
import { cudaVersionString, currentContext } from './driver';
import { syncDevice } from './scope';
import { abortable } from '../base/abort';
import {
  CompileOptions, Prepared, RawResult, checkCompileOptions, compilePrepared, compilePreparedAsync, deviceCapability, moduleKey, prepare,
  publicResult,
} from './compiler';

/**
 * A loaded module (CUBIN or PTX) in the current context.
 * @example
 * const mod = driver.moduleFromBuffer(image); const fn = mod.getFunction('k');
 */
export class Module {
  #handle: NativeAddon.ModuleHandle | null;
  /** @internal */
  protected signatures: Map<string, ParamType[]> | null;
  /** @internal */
  constructor(handle: NativeAddon.ModuleHandle, signatures: Map<string, ParamType[]> | null = null) {
    this.#handle = handle;
    this.signatures = signatures;
  }
  /** @internal The native handle; TypeError ERR_USE_AFTER_DISPOSE after dispose(). */
  get handle(): NativeAddon.ModuleHandle {
    if (!this.#handle) throw typeError('ERR_USE_AFTER_DISPOSE', `This ${this.constructor.name} was disposed`);
    return this.#handle;
  }
  /** True after dispose(). */
  get disposed(): boolean {
    return this.#handle === null;
  }
  /** The kernel `name` (extern "C" name or lowered C++ name); callable. */
  getFunction(name: string): CudaFunction {
    if (typeof name !== 'string') throw typeError('ERR_INVALID_ARG_TYPE', `Kernel name must be a string. Received ${describe(name)}`);
    const h = native.moduleFunction(this.handle, name);
    return makeFunction(h, name, this.signatures?.get(name) ?? null, this);
  }
  /**
   * A `__device__`/`__constant__` global: [allocation (not owned: free() does nothing), bytes].
   * The allocation keeps the module loaded (even after dispose()) until it is freed or collected.
   */
  getGlobal(name: string): [DeviceAllocation, number] {
    if (typeof name !== 'string') throw typeError('ERR_INVALID_ARG_TYPE', `Global name must be a string. Received ${describe(name)}`);
    const handle = this.handle;
    const [ptr, bytes] = native.moduleGlobal(handle, name);
    // The native handle, not this object: dispose() drops this object's hold, and the global's
    // memory must stay valid while the allocation may still be passed to copies and kernels.
    return [new DeviceAllocation(bytes, null, { ptr, owner: handle }), bytes];
  }
  /**
   * Lets go of the module (idempotent). From now on getFunction(), getGlobal() and every function
   * got from this module throw TypeError ERR_USE_AFTER_DISPOSE. Nothing is unloaded under work in
   * flight: natively each function handle and each queued launch holds its module, so it is
   * unloaded (cuModuleUnload) once the last of them is gone: launches queued or running, globals
   * got from it (until freed), functions got from it (until collected) and, for a SourceModule,
   * other SourceModules of the same source and options in this context.
   * @example
   * { using mod = new SourceModule(src); mod.getFunction('k')(a, { block: [256], grid: [4] }); }
   */
  dispose(): void {
    this.#handle = null;
  }
  /** dispose(), for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
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
  syncDevice();
  return new Module(native.moduleLoad(view.buffer as ArrayBuffer, view.byteOffset, view.byteLength));
}

/**
 * A module loaded in a context, shared by the SourceModules of one key and by generated kernels:
 * `holders` counts the SourceModules not disposed; `kept` marks one a generated kernel uses (kept
 * for the process). The last holder's dispose() drops it from the cache, so the module can be
 * unloaded; the next SourceModule of that key loads it again.
 */
interface Loaded { handle: NativeAddon.ModuleHandle; holders: number; kept: boolean }

// Loaded modules per context: context id → generation → key → module.
const loaded = new Map<number, { generation: number; modules: Map<string, Loaded> }>();

/** The module of `key` in the current context, loaded when needed; `holder`: a SourceModule. */
function loadCached(key: string, image: Uint8Array, holder: boolean): { modules: Map<string, Loaded>; m: Loaded } {
  const { generation, id } = currentContext();
  let entry = loaded.get(id);
  if (!entry || entry.generation !== generation) {
    entry = { generation, modules: new Map() };
    loaded.set(id, entry);
  }
  let m = entry.modules.get(key);
  if (!m) {
    m = { handle: native.moduleLoad(image.buffer as ArrayBuffer, image.byteOffset, image.byteLength), holders: 0, kept: false };
    entry.modules.set(key, m);
  }
  if (holder) m.holders++;
  else m.kept = true;
  return { modules: entry.modules, m };
}

/**
 * A driver JIT-compiles PTX no newer than itself: PTX from a newer NVRTC (13.0 with a 12.x driver)
 * is refused with a bare CUDA_ERROR_UNSUPPORTED_PTX_VERSION, so say why and what to do first.
 */
function checkPtxLoadable(p: Prepared): void {
  if (p.cubin) return;
  const drv = native.driverStatus().version;
  const [maj, min] = native.nvrtcVersion();
  if (!drv || maj * 1000 + min * 10 <= drv) return;
  throw new CudaError(`PTX from NVRTC ${maj}.${min} cannot be loaded by this driver (CUDA ${cudaVersionString(drv)}), ` +
    'which JIT-compiles PTX no newer than itself. Compile CUBIN for the GPU (the default where NVRTC knows its ' +
    `architecture), update the driver, or point NODECUDA_NVRTC at an NVRTC no newer than ${cudaVersionString(drv)}.`,
  { code: 'CUDA_ERROR_UNSUPPORTED_PTX_VERSION', status: 222, call: 'cuModuleLoadData' });
}

// compileAsync's result handed to the SourceModule constructor it calls (uncacheable sources
// would otherwise compile twice).
let asyncCompiled: { p: Prepared; r: RawResult } | null = null;

/** Options of SourceModule. */
export type SourceModuleOptions = Omit<CompileOptions, 'target'> & {
  /**
   * 'cubin' (default) or 'ptx' (the driver JIT-compiles it when loading). Without `arch`, a device
   * newer than NVRTC knows gets PTX either way.
   */
  target?: 'cubin' | 'ptx';
};

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
  /** This module's place in the per-context cache, until dispose(). */
  #cached: { modules: Map<string, Loaded>; m: Loaded; key: string } | null;
  constructor(source: string, opts: SourceModuleOptions = {}) {
    const pending = asyncCompiled;
    asyncCompiled = null;
    if (!pending) checkCompileOptions(opts, 'SourceModule', false); // compileAsync checked its own (with signal)
    const p = pending?.p ?? prepare(source, opts, true);
    const r = pending?.r ?? compilePrepared(p);
    checkPtxLoadable(p);
    const key = moduleKey(p, r);
    const c = loadCached(key, r.image, true);
    super(c.m.handle, opts.noExternC ? null : parseKernelSignatures(source));
    this.#cached = { ...c, key };
    this.image = r.image;
    this.log = r.log;
    this.loweredNames = publicResult(p, r).loweredNames;
  }
  override dispose(): void {
    const c = this.#cached;
    this.#cached = null;
    // The last SourceModule of its key takes the module out of the cache (unless a generated
    // kernel uses it), so the cache no longer keeps it loaded; after a reset `modules` is an old
    // map, and deleting from it changes nothing.
    if (c && --c.m.holders === 0 && !c.m.kept && c.modules.get(c.key) === c.m) c.modules.delete(c.key);
    super.dispose();
  }
  /**
   * Compiles off the main thread, then loads.
   * @example
   * const mod = await SourceModule.compileAsync(src);
   */
  static async compileAsync(source: string, opts: SourceModuleOptions = {}): Promise<SourceModule> {
    checkCompileOptions(opts, 'SourceModule.compileAsync()', true);
    const p = prepare(source, opts, true);
    const r = await abortable(() => compilePreparedAsync(p), opts.signal);
    asyncCompiled = { p, r }; // taken by the constructor right below (synchronous: nothing between)
    try {
      return new SourceModule(source, opts);
    } finally {
      asyncCompiled = null;
    }
  }
}

// Driver answers to loading a shipped image that mean "not this image", not "not now".
const IMAGE_ERRORS = new Set(['CUDA_ERROR_INVALID_IMAGE', 'CUDA_ERROR_NO_BINARY_FOR_GPU', 'CUDA_ERROR_INVALID_PTX',
  'CUDA_ERROR_UNSUPPORTED_PTX_VERSION', 'CUDA_ERROR_JIT_COMPILER_NOT_FOUND',
  'CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND', 'CUDA_ERROR_NOT_FOUND', 'CUDA_ERROR_INVALID_SOURCE']);
// NODECUDA_RECORD_KERNELS=file: every generated kernel a process builds is appended to `file` as
// one JSON line { source, options } (scripts/kernel-catalog.js lists what to ship prebuilt).
const recorded = new Set<string>();
function record(source: string, options: string[], key: string): void {
  const file = process.env.NODECUDA_RECORD_KERNELS;
  if (!file || recorded.has(key)) return;
  recorded.add(key);
  fs.appendFileSync(file, JSON.stringify({ source, options }) + '\n');
}


/**
 * @internal A kernel of generated source (which declares its own extern "C" names) for the current
 * context: a shipped prebuilt image when the package has one for this device (prebuilt.ts), else
 * compiled once per process (memory + disk cache) and loaded once per context.
 */
export function generatedKernel(source: string, name: string, options: readonly string[] = []): NativeAddon.FunctionHandle {
  const opts = ['--std=c++17', ...options];
  const pkey = prebuiltKey(source, opts);
  record(source, opts, pkey);
  noteKernel(pkey);
  const [major, minor] = deviceCapability();
  const pre = findPrebuilt(pkey, major, minor);
  if (pre) {
    try {
      return native.moduleFunction(loadCached(`prebuilt:${pre.file}:${pkey}`, pre.image, false).m.handle, name);
    } catch (e) {
      // An image this driver cannot use (older than the toolkit that built it, …): NVRTC from now
      // on. Anything else (a faulted context, out of memory) would fail NVRTC's image alike.
      if (!(e instanceof CudaError) || !IMAGE_ERRORS.has(String(e.code))) throw e;
      disablePrebuilt();
    }
  }
  const p = prepare(source, { noExternC: true, options: opts }, true);
  const r = compilePrepared(p);
  return native.moduleFunction(loadCached(moduleKey(p, r), r.image, false).m.handle, name);
}
