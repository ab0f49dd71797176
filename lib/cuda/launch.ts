/**
 * Kernel functions and user launches: `__global__` signature parsing, argument checks and packing
 * (into the function's own ArgPacker, args.ts, launched in one N-API call), prepare/preparedCall,
 * In/Out/InOut.
 */
import { FUNCTION_ATTRIBUTES, attributeNumber } from './attributes';
import { DTYPES, DType, Scalar, coerce, coerceArg, dtypeOfCName, own } from '../base/dtype';
import { checkSize, describe, knownOptions, rangeError, typeError } from '../base/errors';
import { Stream, streamHandle } from './driver';
import { DeviceAllocation, DeviceLike, HostRange, deviceRange, hostRange, isDeviceMemory, useOn } from './memory';
import { native } from './native';
import { ArgPacker } from './args';
import { stripComments } from '../base/c_source';
import { debug } from '../base/debug';

/** A kernel parameter: a pointer, a scalar of known dtype, or a type we cannot pack from a number. */
export type ParamType =
  | {
    /** A pointer: takes device memory, In/Out/InOut, null or a bigint address. */
    kind: 'ptr';
    /** The parameter's name, or `#i` (its index) when it has none. */
    name: string;
  }
  | {
    /** A scalar of a C type nodecuda knows: a plain number is converted to `dtype`. */
    kind: 'scalar';
    /** The dtype of the parameter's C type. */
    dtype: DType;
    /** The parameter's name, or `#i` (its index) when it has none. */
    name: string;
  }
  | {
    /** A type nodecuda cannot pack from a plain number: pass a typed Scalar (cuda.int32(n), …) or a bigint. */
    kind: 'unknown';
    /** The C type as written, or what differs from the compiled kernel ("float32 (8 bytes in the kernel)"). */
    ctype: string;
    /** The parameter's name, or `#i` (its index) when it has none. */
    name: string;
  };

// Texture and surface objects (cuda/texture.ts) are 64-bit handles: parameters of that type take a uint64.
const HANDLE_TYPES = new Set(['cudaTextureObject_t', 'cudaSurfaceObject_t', 'CUtexObject', 'CUsurfObject']);

/** The dtype of a C type name in a kernel parameter list (the dtype table's `cNames`, and handles). @internal */
export function paramDType(ctype: string): DType | undefined {
  return dtypeOfCName(ctype) ?? (HANDLE_TYPES.has(ctype) ? DTYPES.uint64 : undefined);
}

/** Parses one C parameter declaration ("const float * __restrict__ x"). */
export function parseParam(decl: string, index: number): ParamType {
  const d = decl.trim().replace(/\s+/g, ' ');
  const isPtr = d.includes('*') || d.includes('[');
  // Array bounds and a function pointer's parameters are not names (`float (*x)[4]`,
  // `void (*f)(int)`); parentheses group declarators.
  const words = d.replace(/\)\s*\(.*\)$/, ')').replace(/\[[^\]]*\]/g, '[]').replace(/[*&[\]()]/g, ' ').split(' ').filter(Boolean)
    .filter((w) => !['const', 'volatile', '__restrict__', '__restrict', 'restrict', 'struct'].includes(w));
  // The last word is the name unless the words already form a type ("unsigned char").
  const unnamed = words.length <= 1 || paramDType(words.join(' ')) !== undefined;
  const name = unnamed ? `#${index}` : words[words.length - 1];
  const typeWords = unnamed ? words : words.slice(0, -1);
  if (isPtr) return { kind: 'ptr', name };
  const ctype = typeWords.join(' ');
  const dt = paramDType(ctype);
  return dt ? { kind: 'scalar', dtype: dt, name } : { kind: 'unknown', ctype, name };
}

/** Parameter lists of the `__global__` functions declared in `source`, by function name. */
export function parseKernelSignatures(source: string): Map<string, ParamType[]> {
  const out = new Map<string, ParamType[]>();
  const src = stripComments(source);
  // Linear time: `[^()]*` stops at the next parenthesis, and the parameter list is found with
  // indexOf (a `[^)]*` run from every `__global__` made unclosed lists quadratic: 40k chars, 1 s).
  const re = /__global__\s+(?:__launch_bounds__\s*\([^()]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^()]*\)\s*)?([A-Za-z_]\w*)\s*\(/g;
  for (let m; (m = re.exec(src));) {
    // The matching ')' and the top-level commas: declarators have parentheses of their own
    // (`float (*x)[4]`, a pointer to arrays of 4) and template arguments have commas.
    const parts: string[] = [];
    let depth = 0;
    let start = re.lastIndex;
    let close = -1;
    for (let i = re.lastIndex; i < src.length && close < 0; i++) {
      const c = src[i];
      if (c === '(' || c === '[' || c === '<') depth++;
      else if ((c === ']' || c === '>') && depth > 0) depth--;
      else if (c === ')' && depth > 0) depth--;
      else if (c === ')') close = i;
      else if (c === ',' && depth === 0) {
        parts.push(src.slice(start, i));
        start = i + 1;
      }
    }
    if (close < 0) break; // unclosed: no later declaration can be complete either
    parts.push(src.slice(start, close));
    re.lastIndex = close + 1;
    const params = parts.join(',').trim();
    const list = params === '' || params === 'void' ? [] : parts.map((p, i) => parseParam(p, i));
    out.set(m[1], list);
  }
  return out;
}

/** PyCUDA's struct letters for prepare(), and 'E' (ours; struct has none) for bfloat16. */
const LETTERS: Record<string, DType | 'ptr'> = {
  P: 'ptr', '?': DTYPES.bool, b: DTYPES.int8, B: DTYPES.uint8, h: DTYPES.int16, H: DTYPES.uint16,
  i: DTYPES.int32, I: DTYPES.uint32, l: DTYPES.int64, L: DTYPES.uint64, q: DTYPES.int64,
  Q: DTYPES.uint64, e: DTYPES.float16, E: DTYPES.bfloat16, f: DTYPES.float32, d: DTYPES.float64, F: DTYPES.complex64,
  D: DTYPES.complex128,
};

/** Host arrays passed to a launch: copied in before, out after, device memory freed. */
export class HostArg {
  /**
   * @internal The byte range, read once here: byteOffset/byteLength are getters a subclass or an
   * own property can override, so later reads could disagree (native copies re-check the range).
   */
  readonly range: HostRange;
  constructor(
    /** The host buffer. */
    readonly array: ArrayBufferView | ArrayBuffer,
    /** Copied to a temporary device buffer before the launch. */
    readonly copyIn: boolean,
    /** Copied back from the device buffer after the launch. */
    readonly copyOut: boolean,
  ) {
    this.range = Object.freeze(hostRange(array, 'array'));
  }
}
/** Copies `a` to the device before the launch. @example fn(driver.In(a), ...) */
export function In(a: ArrayBufferView | ArrayBuffer): HostArg { return new HostArg(a, true, false); }
/** Copies the device buffer back into `a` after the launch. @example fn(driver.Out(b), ...) */
export function Out(a: ArrayBufferView | ArrayBuffer): HostArg { return new HostArg(a, false, true); }
/** Copies in before and back after the launch. @example fn(driver.InOut(a), ...) */
export function InOut(a: ArrayBufferView | ArrayBuffer): HostArg { return new HostArg(a, true, true); }

/** Launch options: the last argument of a call. */
export interface LaunchOptions {
  /** Threads per block, [x, y?, z?] (missing ones 1): x and y up to 1024, z up to 64, at most 1024 in all. */
  block: number[] | readonly number[];
  /** Blocks in the grid, [x, y?, z?] (missing ones 1; default [1]): x up to 2^31 - 1, y and z up to 65535. */
  grid?: number[] | readonly number[];
  /** Dynamic shared memory per block in bytes (sharedMemBytes of cuLaunchKernel); default 0. */
  shared?: number;
  /** Stream to launch on; default (or null): the legacy default stream. */
  stream?: Stream | null;
}

export type KernelArg = DeviceLike | HostArg | Scalar | number | boolean | null;

function dims(v: unknown, name: string, max: number[]): [number, number, number] {
  if (!Array.isArray(v) || v.length < 1 || v.length > 3) {
    throw typeError('ERR_INVALID_ARG_TYPE', `"${name}" must be an array of 1 to 3 positive integers. Received ${describe(v)}`);
  }
  const out: [number, number, number] = [1, 1, 1];
  v.forEach((x, i) => {
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 1 || x > max[i]) {
      throw rangeError('ERR_OUT_OF_RANGE', `${name}[${i}] must be an integer in [1, ${max[i]}]. Received ${describe(x)}`);
    }
    out[i] = x;
  });
  return out;
}

const GRID_MAX = [2 ** 31 - 1, 65535, 65535];
const BLOCK_MAX = [1024, 1024, 64];
const FN = Symbol('nodecuda.function');

interface FunctionState {
  handle: NativeAddon.FunctionHandle;
  name: string;
  params: ParamType[] | null; // null: signature unknown
  prepared: ParamType[] | null;
  /**
   * The Module it came from, for the disposed check (the native function handle itself holds
   * the native module, so launches never run on an unloaded one).
   */
  module: { readonly disposed: boolean } | null;
  /** This function's own packer: packing may run user code (getters), which may launch too. */
  args: ArgPacker;
  /**
   * Block shape, shared bytes and attribute epoch of the last launch made in place (so checked by
   * the driver), and its stream: later launches with the same may be queued (launch_queue.cc).
   */
  ok: [number, number, number, number, number];
  okStream: unknown;
}

/** Bumped by every setAttribute (of any Function: two may share a native handle). */
let attributeEpoch = 1;

function isOptions(v: unknown): v is LaunchOptions {
  return typeof v === 'object' && v !== null && !isDeviceMemory(v) && !(v instanceof HostArg) &&
    !(v instanceof Scalar) && !ArrayBuffer.isView(v) && 'block' in v;
}

/**
 * A kernel (pycuda.driver.Function), callable:
 * `fn(...args, { block: [x, y?, z?], grid: [x, y?, z?], shared?, stream? })`.
 * @example
 * const fn = mod.getFunction('scale');
 * fn(alloc, cuda.float32(2), n, { block: [256], grid: [Math.ceil(n / 256)] });
 */
export interface CudaFunction {
  (...args: unknown[]): void;
  /** The kernel's name. */
  readonly functionName: string;
  /** Parameters parsed from the source, or null when unknown. */
  readonly params: readonly ParamType[] | null;
  /** Registers per thread (CU_FUNC_ATTRIBUTE_NUM_REGS). */
  readonly numRegs: number;
  /** Bytes of statically allocated shared memory per block (SHARED_SIZE_BYTES); dynamic shared memory not included. */
  readonly sharedSizeBytes: number;
  /** Bytes of local memory per thread (LOCAL_SIZE_BYTES). */
  readonly localSizeBytes: number;
  /** Bytes of user-allocated constant memory (CONST_SIZE_BYTES). */
  readonly constSizeBytes: number;
  /** The most threads per block a launch of this kernel can have on its device (MAX_THREADS_PER_BLOCK). */
  readonly maxThreadsPerBlock: number;
  /**
   * One attribute (cuFuncGetAttribute), by name ('NUM_REGS', 'numRegs' or 'CU_FUNC_ATTRIBUTE_NUM_REGS')
   * or CUfunction_attribute number. TypeError ERR_INVALID_ARG_VALUE for an unknown name.
   */
  getAttribute(name: string | number): number;
  /**
   * Sets an attribute (cuFuncSetAttribute), e.g. 'MAX_DYNAMIC_SHARED_SIZE_BYTES', named as for
   * getAttribute; `value` is an integer in [0, 2^31 - 1].
   */
  setAttribute(name: string | number, value: number): void;
  /** Declares argument types with PyCUDA letters ('PiF'); returns this. */
  prepare(letters: string): CudaFunction;
  /**
   * Launches with the argument types given to prepare() (pycuda's prepared_call) on the legacy
   * default stream. Arguments need prepare() first (TypeError ERR_INVALID_STATE otherwise).
   */
  preparedCall(grid: number[], block: number[], ...args: unknown[]): void;
  /** preparedCall on `stream` (null: the legacy default stream); pycuda's prepared_async_call. */
  preparedAsyncCall(grid: number[], block: number[], stream: Stream | null, ...args: unknown[]): void;
  /** Blocks per SM at `blockSize` threads (cuOccupancyMaxActiveBlocksPerMultiprocessor). */
  maxActiveBlocksPerMultiprocessor(blockSize: number, sharedBytes?: number): number;
  /** [minGridSize, blockSize] that maximises occupancy (cuOccupancyMaxPotentialBlockSize). */
  maxPotentialBlockSize(sharedBytes?: number, blockSizeLimit?: number): [number, number];
  /**
   * Offset and size in bytes of each parameter as the compiled kernel declares them
   * (cuFuncGetParamInfo). Needs a driver for CUDA 12.4 or newer: CudaError CUDA_ERROR_NOT_SUPPORTED
   * otherwise.
   */
  paramInfo(): {
    /** Byte offset of the parameter in the kernel's parameter buffer. */
    offset: number;
    /** Size of the parameter in bytes. */
    size: number;
  }[];
}

const methods = {
  get functionName(): string { return state(this).name; },
  get params(): readonly ParamType[] | null { return state(this).params; },
  get numRegs(): number { return (this as unknown as CudaFunction).getAttribute('NUM_REGS'); },
  get sharedSizeBytes(): number { return (this as unknown as CudaFunction).getAttribute('SHARED_SIZE_BYTES'); },
  get localSizeBytes(): number { return (this as unknown as CudaFunction).getAttribute('LOCAL_SIZE_BYTES'); },
  get constSizeBytes(): number { return (this as unknown as CudaFunction).getAttribute('CONST_SIZE_BYTES'); },
  get maxThreadsPerBlock(): number { return (this as unknown as CudaFunction).getAttribute('MAX_THREADS_PER_BLOCK'); },
  getAttribute(name: string | number): number {
    return native.funcAttribute(live(state(this)).handle, attributeNumber(FUNCTION_ATTRIBUTES, name, 'function'));
  },
  setAttribute(name: string | number, value: number): void {
    const st = live(state(this));
    native.funcSetAttribute(st.handle, attributeNumber(FUNCTION_ATTRIBUTES, name, 'function'),
      checkSize(value, 'value', 2 ** 31 - 1));
    attributeEpoch++; // the driver checks the next launch of every Function again
  },
  prepare(letters: string): CudaFunction {
    if (typeof letters !== 'string') throw typeError('ERR_INVALID_ARG_TYPE', 'prepare() takes a string of struct letters');
    state(this).prepared = [...letters.replace(/\s/g, '')].map((c, i): ParamType => {
      const t = own(LETTERS, c);
      if (!t) throw typeError('ERR_INVALID_ARG_VALUE', `prepare(): unknown letter "${c}" (known: ${Object.keys(LETTERS).join('')})`);
      return t === 'ptr' ? { kind: 'ptr', name: `#${i}` } : { kind: 'scalar', dtype: t, name: `#${i}` };
    });
    return this as unknown as CudaFunction;
  },
  preparedCall(grid: number[], block: number[], ...args: unknown[]): void {
    call(state(this), args, { grid, block }, true);
  },
  preparedAsyncCall(grid: number[], block: number[], stream: Stream | null, ...args: unknown[]): void {
    call(state(this), args, { grid, block, stream }, true);
  },
  maxActiveBlocksPerMultiprocessor(blockSize: number, sharedBytes = 0): number {
    return native.occupancyMaxActiveBlocks(live(state(this)).handle, checkSize(blockSize, 'blockSize', 1024),
      checkSize(sharedBytes, 'sharedBytes'));
  },
  paramInfo(): { offset: number; size: number }[] {
    const flat = native.funcParamInfo(live(state(this)).handle, true)!;
    return Array.from({ length: flat.length / 2 }, (_, i) => ({ offset: flat[2 * i], size: flat[2 * i + 1] }));
  },
  maxPotentialBlockSize(sharedBytes = 0, blockSizeLimit = 0): [number, number] {
    return native.occupancyMaxPotentialBlockSize(live(state(this)).handle, checkSize(sharedBytes, 'sharedBytes'),
      checkSize(blockSizeLimit, 'blockSizeLimit', 1024));
  },
};

function state(f: unknown): FunctionState {
  const s = (f as { [FN]?: FunctionState })[FN];
  if (!s) throw typeError('ERR_INVALID_THIS', 'Not a nodecuda kernel function');
  return s;
}

/**
 * `st`, unless its module was disposed (TypeError ERR_USE_AFTER_DISPOSE): for what reaches the
 * driver (launches, attributes); the name and parameters stay readable.
 */
function live(st: FunctionState): FunctionState {
  if (st.module?.disposed) throw typeError('ERR_USE_AFTER_DISPOSE', `${st.name}(): its module was disposed`);
  return st;
}

/**
 * The parsed parameters checked against the kernel's own (cuFuncGetParamInfo, where the driver
 * has it: CUDA 12.4): a different count drops the parsed list (bare numbers then need typed
 * scalars, rather than being packed at the wrong offsets), a scalar of a different size becomes
 * unknown. Without the entry point the parse is used as is.
 */
function crossChecked(handle: NativeAddon.FunctionHandle, name: string, params: ParamType[] | null): ParamType[] | null {
  if (!params) return params;
  let flat: number[] | null;
  try {
    flat = native.funcParamInfo(handle, false);
  } catch {
    return params;
  }
  if (!flat) return params;
  if (flat.length / 2 !== params.length) {
    debug(`${name}: the parsed signature has ${params.length} parameters, the kernel ${flat.length / 2}: not used`);
    return null;
  }
  return params.map((p, i) => {
    const size = flat[2 * i + 1];
    if (p.kind === 'scalar' && p.dtype.bytes !== size) return { kind: 'unknown', ctype: `${p.dtype.name} (${size} bytes in the kernel)`, name: p.name };
    if (p.kind === 'ptr' && size !== 8) return { kind: 'unknown', ctype: `pointer (${size} bytes in the kernel)`, name: p.name };
    return p;
  });
}

/** @internal Wraps a native function handle as a callable CudaFunction. */
export function makeFunction(handle: NativeAddon.FunctionHandle, name: string, parsed: ParamType[] | null,
  module: { readonly disposed: boolean } | null): CudaFunction {
  const params = crossChecked(handle, name, parsed);
  const st: FunctionState = {
    handle, name, params, prepared: null, module, args: new ArgPacker(256), ok: [0, 0, 0, 0, 0], okStream: null,
  };
  const fn = function (...args: unknown[]): void {
    const last = args[args.length - 1];
    if (!isOptions(last)) {
      throw typeError('ERR_MISSING_OPTION',
        `${name}(): the last argument must be the launch options { block, grid, shared?, stream? }`);
    }
    call(st, args.slice(0, -1), last, false);
  } as unknown as CudaFunction;
  Object.defineProperty(fn, 'name', { value: name });
  Object.defineProperty(fn, FN, { value: st });
  Object.defineProperties(fn, Object.getOwnPropertyDescriptors(methods));
  return fn;
}

interface Temp { alloc: DeviceAllocation; arg: HostArg }

function typeOf(st: FunctionState, i: number, prepared: boolean): ParamType | null {
  if (prepared) {
    if (!st.prepared) throw typeError('ERR_INVALID_STATE', `${st.name}: call prepare() before preparedCall()`);
    return st.prepared[i];
  }
  return st.params ? st.params[i] : null;
}

function packArg(st: FunctionState, i: number, a: unknown, t: ParamType | null, temps: Temp[]): void {
  const where = `${st.name}() argument ${i}${t && !t.name.startsWith('#') ? ` ("${t.name}")` : ''}`;
  const want: DType | 'ptr' | null = !t ? null : t.kind === 'ptr' ? 'ptr' : t.kind === 'scalar' ? t.dtype : null;

  // Device memory → pointer.
  let ptr: bigint | null = null;
  if (isDeviceMemory(a)) {
    ptr = deviceRange(a, where).ptr; // throws for freed/disposed memory
  } else if (a instanceof HostArg) {
    const h = a.range;
    const d = new DeviceAllocation(h.byteLength);
    temps.push({ alloc: d, arg: a });
    if (a.copyIn) native.memcpyHtod(d.ptr, h.buffer, h.byteOffset, h.byteLength, h.pinned);
    ptr = d.ptr;
  } else if (a === null) {
    ptr = 0n;
  }
  if (ptr !== null) {
    if (want && want !== 'ptr') {
      throw typeError('ERR_INVALID_ARG_TYPE', `${where} is a ${want.name} scalar; got device memory`);
    }
    st.args.ptr(ptr);
    return;
  }
  // Scalars.
  let dt: DType;
  let value: unknown = a;
  if (want === 'ptr') {
    if (typeof a === 'bigint') {
      st.args.ptr(BigInt.asUintN(64, a));
      return;
    }
    throw typeError('ERR_INVALID_ARG_TYPE',
      `${where} is a pointer: pass a DeviceAllocation, a GPUArray, driver.In/Out/InOut(hostArray) or a bigint address. Received ${describe(a)}`);
  }
  if (want) {
    // Declared C type: a plain number must fit it (RangeError naming the parameter); a Scalar is a cast.
    const v = coerceArg(want, a, where);
    st.args.scalar(want, v);
    return;
  }
  if (a instanceof Scalar) {
    dt = a.dtype;
    value = a.value;
  } else if (typeof a === 'bigint') {
    dt = DTYPES.int64;
  } else {
    const unknown = t?.kind === 'unknown' ? ` (C type "${t.ctype}")` : '';
    throw typeError('ERR_INVALID_ARG_TYPE',
      `${where}${unknown}: the parameter type is unknown, so a plain ${typeof a} cannot be converted. ` +
      `Wrap it, e.g. cuda.int32(n) or cuda.float32(x), or use a BigInt for 64-bit integers. Received ${describe(a)}`);
  }
  const v = coerce(dt, value, where);
  st.args.scalar(dt, v);
}

const LAUNCH_KEYS = ['block', 'grid', 'shared', 'stream'];

function call(st: FunctionState, args: unknown[], opts: LaunchOptions, prepared: boolean): void {
  live(st);
  // PyCUDA's time_kernel (or a misspelt key) would be dropped without a word: refused instead.
  if (!prepared) {
    try {
      knownOptions(opts, `${st.name}()`, LAUNCH_KEYS);
    } catch (e) {
      const o = opts as { time_kernel?: unknown; timeKernel?: unknown };
      if (o.time_kernel === undefined && o.timeKernel === undefined) throw e;
      throw typeError('ERR_INVALID_ARG_VALUE', `${st.name}(): time_kernel is not supported: record a driver.Event before ` +
        'and after the launch and read end.timeSince(start)');
    }
  }
  const expected = prepared ? st.prepared?.length : st.params?.length;
  if (expected !== undefined && args.length !== expected) {
    throw typeError('ERR_INVALID_ARG_COUNT', `${st.name}() takes ${expected} kernel argument(s), got ${args.length}`);
  }
  const block = dims(opts.block, 'block', BLOCK_MAX);
  const grid = dims(opts.grid ?? [1], 'grid', GRID_MAX);
  if (block[0] * block[1] * block[2] > 1024) {
    throw rangeError('ERR_OUT_OF_RANGE', `block has ${block[0] * block[1] * block[2]} threads; the maximum is 1024`);
  }
  const shared = opts.shared === undefined ? 0 : checkSize(opts.shared, 'shared', 2 ** 32 - 1);
  const stream = streamHandle(opts.stream);
  const temps: Temp[] = [];
  try {
    st.args.reset();
    for (let i = 0; i < args.length; i++) packArg(st, i, args[i], typeOf(st, i, prepared), temps);
    if (stream && temps.length) {
      // Copies and allocations of temporaries ran on the legacy stream; order the launch after them.
      const ev = native.eventCreate(2 /* DISABLE_TIMING */);
      native.eventRecord(ev, null);
      native.streamWaitEvent(stream, ev);
      native.eventDestroy(ev);
    }
    // A configuration the driver accepted once may be queued: its errors would come later.
    const ok = st.ok;
    const queue = !temps.length && ok[0] === block[0] && ok[1] === block[1] && ok[2] === block[2] &&
      ok[3] === shared && ok[4] === attributeEpoch && st.okStream === stream;
    for (const a of args) useOn(a, stream); // memory of another stream: its free waits (memory.ts)
    st.args.launch(st.handle, stream, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, queue);
    if (!queue) {
      ok[0] = block[0]; ok[1] = block[1]; ok[2] = block[2]; ok[3] = shared; ok[4] = attributeEpoch;
      st.okStream = stream;
    }
    if (stream && temps.some((t) => t.arg.copyOut)) native.streamSynchronize(stream);
    for (const t of temps) {
      if (t.arg.copyOut) {
        const h = t.arg.range;
        native.memcpyDtoh(h.buffer, h.byteOffset, h.byteLength, t.alloc.ptr, h.pinned);
      }
    }
  } finally {
    for (const t of temps) t.alloc.free(opts.stream ?? null);
  }
}
