/**
 * ElementwiseKernel: PyCUDA's form (C declarator arguments, an `operation` over `i`, a
 * grid-stride loop, `range`/`slice`) and CuPy's form (`ElementwiseKernel.generic`: type
 * placeholders, broadcasting, strided operands, `raw` arguments, allocated outputs) built on the
 * elementwise engine. Kernels include no headers, compile on first call and are cached per
 * process (memory), per machine (disk) and per context (loaded modules).
 */
import { Complex, DTYPES, DType, Scalar, checkStorable, coerce, coerceArg } from '../base/dtype';
import { describe, rangeError, typeError } from '../base/errors';
import { Stream, currentContext, multiprocessorCount, streamHandle } from '../cuda/driver';
import { envNumber } from '../base/env';
import { generatedKernel } from '../cuda/modules';
import { GPUArray } from '../array/gpuarray';
import { useOn } from '../cuda/memory';
import * as cu from '../cuda/door';
import { Slice } from '../base/indexing';
import { ArrayOperand, ScalarOperand, runElementwise } from '../engine/elementwise';
import { assign } from '../array/operators';
import { canCast } from '../base/promote';
import { broadcastShapes, broadcastStrides } from '../base/shape';
import { ElementwiseSpec, InputSpec, OutputSpec } from '../engine/templates/elementwise';
import {
  CArg, IDENT, LoopMode, ResolvedParam, UNROLL, cTypeDType, genericBody, helpers, loopKernelSource, parseCArgs, unrollable,
} from '../engine/templates/elementwise_kernel';
import { checkContext, checkDevices } from '../array/devices';
import { ArgPacker } from '../cuda/args';

/** A range or slice: a Slice, `{ start?, stop?, step? }` or `[start, stop, step?]`. */
export type RangeLike = Slice | {
  /** First index; null or omitted: 0 (for `slice` with a negative step, the last index). */
  start?: number | null;
  /** Index to stop before; `range` needs one, `slice` takes null or omitted as Python does (to the end, in the step's direction). */
  stop?: number | null;
  /** Index increment, nonzero; null or omitted: 1. */
  step?: number | null;
} | readonly (number | null | undefined)[];

/** Call options of a PyCUDA-form kernel (the last argument, optional). */
export interface ElementwiseCallOptions {
  /** Literal index range (PyCUDA `range=slice(start, stop, step)`): i = start, start+step, … before stop. */
  range?: RangeLike;
  /** Like `range`, resolved against n as Python's `slice.indices(n)` (negative values count from the end). */
  slice?: RangeLike;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Construction options of the PyCUDA form. */
export interface ElementwiseKernelOptions {
  /** Device code placed before the kernel (helper functions, #defines, #includes). */
  preamble?: string;
  /** Statements run by every thread before the loop. */
  loopPrep?: string;
  /** Statements run by every thread after the loop. */
  afterLoop?: string;
  /** Extra NVRTC options, e.g. ['-use_fast_math']. */
  options?: string[];
  /** Accepted for PyCUDA compatibility; the source is always available from `generatedSource()`. */
  keep?: boolean;
}

const BLOCK = 256;
const MAX_GRID = 2 ** 20;
// The PyCUDA-form loop runs one element per thread up to MAX_GRID blocks. NODECUDA_EK_WAVES=W
// (a sweep knob, bench/sweep.js) caps the grid at W waves of the device's resident blocks (SMs ×
// occupancy of the kernel) instead, so each thread loops over several elements.
const EK_WAVES = envNumber('NODECUDA_EK_WAVES', 0, { min: 0, max: 256 });
const resident = new WeakMap<object, number>();
function gridFor(fn: NativeAddon.FunctionHandle, count: number): number {
  const blocks = Math.ceil(count / BLOCK);
  if (!EK_WAVES) return Math.min(MAX_GRID, blocks);
  let r = resident.get(fn);
  if (r === undefined) resident.set(fn, (r = multiprocessorCount() * Math.max(1, cu.occupancyMaxActiveBlocks(fn, BLOCK, 0))));
  return Math.max(1, Math.min(MAX_GRID, blocks, r * EK_WAVES));
}
const INT31 = 2 ** 31;

function str(v: unknown, what: string): string {
  if (v === undefined) return '';
  if (typeof v !== 'string') throw typeError('ERR_INVALID_ARG_TYPE', `ElementwiseKernel: ${what} must be a string. Received ${describe(v)}`);
  return v;
}

function strings(v: unknown): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw typeError('ERR_INVALID_ARG_TYPE', `ElementwiseKernel: options.options must be an array of strings. Received ${describe(v)}`);
  }
  return v as string[];
}

function kernelName(v: unknown): string {
  if (v === undefined) return 'kernel';
  if (typeof v !== 'string' || !IDENT.test(v)) {
    throw typeError('ERR_INVALID_ARG_VALUE', `ElementwiseKernel: name must be a C identifier. Received ${describe(v)}`);
  }
  return v;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof GPUArray || v instanceof Scalar) return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && !('re' in v && 'im' in v);
}

function contiguityError(what: string): TypeError {
  return typeError('ERR_NOT_CONTIGUOUS', `${what} must be C-contiguous; pass a contiguous copy (a.copy())`);
}

function toSlice(r: RangeLike, what: string): Slice {
  if (r instanceof Slice) return r;
  if (Array.isArray(r)) return new Slice(r[0], r[1], r[2]);
  if (typeof r === 'object' && r !== null) {
    const o = r as { start?: number | null; stop?: number | null; step?: number | null };
    return new Slice(o.start, o.stop, o.step);
  }
  throw typeError('ERR_INVALID_ARG_TYPE', `ElementwiseKernel: ${what} must be a Slice, {start, stop, step} or [start, stop, step]. Received ${describe(r)}`);
}

/** PyCUDA's literal range: [start, stop, step, count]. */
function literalRange(r: RangeLike): [number, number, number, number] {
  const s = toSlice(r, 'range');
  if (s.stop === null) throw typeError('ERR_INVALID_ARG_VALUE', 'ElementwiseKernel: range needs a stop');
  const start = s.start ?? 0, stop = s.stop, step = s.step ?? 1;
  const span = step > 0 ? stop - start : start - stop;
  return [start, stop, step, span > 0 ? Math.ceil(span / Math.abs(step)) : 0];
}

interface Loaded { generation: number; ctx: number; fn: NativeAddon.FunctionHandle }

/** The call signature of an ElementwiseKernel. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface ElementwiseKernel {
  /** Runs the kernel: one value per declared argument, then optionally `{ range?, slice?, stream? }`. */
  (...args: unknown[]): void;
}

/**
 * An elementwise kernel from a C argument list and a loop body, as in PyCUDA. Pointer arguments
 * are GPUArrays (C-contiguous, of the declared dtype, all of one size n), plain ones scalars
 * (numbers, bigints, booleans, {re, im}, typed Scalars; converted to the declared type). The
 * operation sees `i` (the index) and `n` (the size). Compiles on first call (no headers), once
 * per process for identical kernels; disk-cached across processes.
 * @example
 * const lin = new ElementwiseKernel('float a, float *x, float b, float *y, float *z',
 *   'z[i] = a*x[i] + b*y[i]', 'linear_combination');
 * lin(2, x, 3, y, z);                            // z = 2x + 3y
 * lin(2, x, 3, y, z, { slice: cuda.slice(0, null, 2) }); // even indices only
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class ElementwiseKernel {
  /** @internal */ declare readonly args: readonly CArg[];
  /** @internal */ declare readonly kernel: string;
  /** @internal */ declare readonly operation: string;
  /** @internal */ declare readonly opts: ElementwiseKernelOptions & { options: string[] };
  /** @internal */ declare readonly loaded: Map<LoopMode, Loaded>;
  /** @internal */ declare readonly packer: ArgPacker;
  /** @internal True when the unrolled loop may run it (see `unrollable`). */ declare readonly unrollable: boolean;

  constructor(args: string, operation: string, name?: string, options: ElementwiseKernelOptions = {}) {
    if (!isPlainObject(options)) throw typeError('ERR_INVALID_ARG_TYPE', `ElementwiseKernel: options must be an object. Received ${describe(options)}`);
    const parsed = parseCArgs(args);
    const op = str(operation, 'operation');
    const opts = {
      preamble: str(options.preamble, 'preamble'), loopPrep: str(options.loopPrep, 'loopPrep'),
      afterLoop: str(options.afterLoop, 'afterLoop'), options: strings(options.options), keep: !!options.keep,
    };
    const k = kernelName(name);
    const fn = function (...a: unknown[]): void { callLoop(fn as unknown as ElementwiseKernel, a); };
    Object.setPrototypeOf(fn, new.target.prototype);
    const ro = (value: unknown) => ({ value, enumerable: false, writable: false, configurable: false });
    Object.defineProperties(fn, {
      name: { value: k, configurable: true }, args: ro(Object.freeze(parsed)), kernel: ro(k), operation: ro(op),
      opts: ro(opts), loaded: ro(new Map()), packer: ro(new ArgPacker(64 + parsed.length * 16)),
      unrollable: ro(unrollable(op, opts)),
    });
    return fn as unknown as ElementwiseKernel;
  }

  /** The declared arguments: name, dtype, pointer (array) or scalar. */
  get arguments(): ReadonlyArray<{
    /** The argument's C name. */
    name: string;
    /** Its dtype name, e.g. 'float32'. */
    dtype: string;
    /** True for a pointer (a GPUArray argument), false for a scalar. */
    pointer: boolean;
  }> {
    return this.args.map((a) => ({ name: a.name, dtype: a.dtype.name, pointer: a.pointer }));
  }

  /**
   * The CUDA source generated for a loop mode ('narrow': 32-bit index, 'wide': 64-bit, 'range',
   * 'rangeWide', and 'unrolled'/'unrolledWide': several elements a thread with `__restrict__`
   * pointers, what a whole-array call runs when its arrays do not overlap and the code does not
   * use the loop's locals); what PyCUDA's `keep` was for.
   * @example
   * console.log(k.generatedSource());
   */
  generatedSource(mode: LoopMode = 'narrow'): {
    /** The CUDA C++ source of the kernel. */
    source: string;
    /** Its `extern "C"` function name: the kernel's name plus the mode's suffix (`_range`, `_u`, then `_w` when wide). */
    name: string;
  } {
    if (!['narrow', 'wide', 'range', 'rangeWide', 'unrolled', 'unrolledWide'].includes(mode)) {
      throw typeError('ERR_INVALID_ARG_VALUE',
        `mode must be 'narrow', 'wide', 'range', 'rangeWide', 'unrolled' or 'unrolledWide'. Received ${describe(mode)}`);
    }
    return loopKernelSource(this.args as CArg[], this.operation, this.kernel, this.opts, mode);
  }

  /**
   * The CuPy form: typed or placeholder (`T x`) parameters, NumPy broadcasting, strided operands,
   * `raw` parameters (C-contiguous, indexed by the user: `a[j]`, `a.size()`), outputs allocated
   * when omitted. See GenericElementwiseKernel.
   * @example
   * const sqdiff = ElementwiseKernel.generic('T x, T y', 'T z', 'z = (x - y) * (x - y)', 'sqdiff');
   * const z = sqdiff(a, b);           // broadcasting; z allocated with a's dtype
   */
  static generic(inParams: string, outParams: string, operation: string, name?: string,
    options: GenericKernelOptions = {}): GenericElementwiseKernel {
    return new GenericElementwiseKernel(inParams, outParams, operation, name, options);
  }
}
Object.setPrototypeOf(ElementwiseKernel.prototype, Function.prototype);

function loopKernel(k: ElementwiseKernel, mode: LoopMode): NativeAddon.FunctionHandle {
  const { generation, id } = currentContext();
  const hit = k.loaded.get(mode);
  if (hit && hit.generation === generation && hit.ctx === id) return hit.fn;
  const { source, name } = k.generatedSource(mode);
  const fn = generatedKernel(source, name, k.opts.options);
  k.loaded.set(mode, { generation, ctx: id, fn });
  return fn;
}


function callLoop(k: ElementwiseKernel, a: unknown[]): void {
  const args = k.args;
  let opts: ElementwiseCallOptions = {};
  if (a.length === args.length + 1 && isPlainObject(a[a.length - 1])) opts = a.pop() as ElementwiseCallOptions;
  if (a.length !== args.length) {
    throw typeError('ERR_INVALID_ARG_COUNT', `${k.kernel}() takes ${args.length} argument(s) (${args.map((x) => x.name).join(', ')}) ` +
      `and optionally { range, slice, stream }; got ${a.length}`);
  }
  for (const key of Object.keys(opts)) {
    if (key !== 'range' && key !== 'slice' && key !== 'stream') throw typeError('ERR_INVALID_ARG_VALUE', `${k.kernel}(): unknown option "${key}"`);
  }
  let n = -1;
  let ctx: number | undefined;
  const arrays: Array<[GPUArray, boolean]> = []; // (array, declared const)
  const P = k.packer.reset();
  a.forEach((v, j) => {
    const p = args[j];
    const where = `${k.kernel}() argument "${p.name}"`;
    if (p.pointer) {
      if (!(v instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${where} is a ${p.dtype.name} array: pass a GPUArray. Received ${describe(v)}`);
      v.check();
      if (v.dtype !== p.dtype) throw typeError('ERR_INVALID_DTYPE', `${where} must be a ${p.dtype.name} array; got ${v.dtype.name} (convert with a.astype('${p.dtype.name}'))`);
      if (!v.flags.cContiguous) throw contiguityError(where);
      if (n < 0) { n = v.size; ctx = v.context; }
      if (v.size !== n) throw rangeError('ERR_SHAPE_MISMATCH', `${where} has ${v.size} elements; the first array has ${n}`);
      if (v.context !== ctx) throw typeError('ERR_DEVICE_MISMATCH', `${where} lives on another device/context`);
      P.ptr(v.address);
      arrays.push([v, p.isConst]);
      return;
    }
    if (v instanceof GPUArray) throw typeError('ERR_INVALID_ARG_TYPE', `${where} is a ${p.dtype.name} scalar; got a GPUArray`);
    const x = coerceArg(p.dtype, v, where); // a plain number must fit the C type; a Scalar is a cast
    P.scalar(p.dtype, x, p.align);
  });
  if (n < 0) throw typeError('ERR_INVALID_ARG_TYPE', `${k.kernel}(): needs at least one array argument (n is the first array's size)`);
  checkContext(`${k.kernel}()`, ctx!);
  let mode: LoopMode;
  let count = n;
  if (opts.range !== undefined || opts.slice !== undefined) {
    if (opts.range !== undefined && opts.slice !== undefined) throw typeError('ERR_INVALID_ARG_VALUE', `${k.kernel}(): give range or slice, not both`);
    let start: number, stop: number, step: number;
    if (opts.slice !== undefined) {
      const r = toSlice(opts.slice, 'slice').indices(n);
      [start, stop, step, count] = [r.start, r.stop, r.step, r.length];
    } else {
      [start, stop, step, count] = literalRange(opts.range!);
    }
    const last = start + (count - 1) * step;
    if (count > 0 && (start < 0 || start >= n || last < 0 || last >= n)) {
      throw rangeError('ERR_OUT_OF_RANGE', `${k.kernel}(): range ${start}:${stop}:${step} visits indices outside [0, ${n})`);
    }
    const fits = [start, stop, step, n].every((x) => Math.abs(x) < INT31);
    mode = fits ? 'range' : 'rangeWide';
    if (fits) {
      P.i32(start).i32(stop).i32(step).u32(count).u32(n);
    } else {
      P.i64(start).i64(stop).i64(step).u64(BigInt(count)).u64(BigInt(n));
    }
  } else {
    const unroll = k.unrollable && disjoint(arrays);
    mode = n < INT31 ? (unroll ? 'unrolled' : 'narrow') : unroll ? 'unrolledWide' : 'wide';
    if (n < INT31) P.u32(n);
    else P.u64(BigInt(n));
  }
  const stream = streamHandle(opts.stream);
  if (count === 0) return;
  for (const v of a) if (v instanceof GPUArray && v.alloc.stream_ !== stream) useOn(v, stream);
  const fn = loopKernel(k, mode);
  const per = mode === 'unrolled' || mode === 'unrolledWide' ? UNROLL : 1;
  P.launch(fn, stream, gridFor(fn, Math.ceil(count / per)), 1, 1, BLOCK, 1, 1, 0, true); // 256 threads: always launchable
}

/**
 * True when no array that may be written (not declared const) overlaps another array argument:
 * then `__restrict__` pointers are safe. The same array passed twice, or views of one buffer,
 * take the plain loop.
 */
function disjoint(arrays: Array<[GPUArray, boolean]>): boolean {
  for (let x = 0; x < arrays.length; x++) {
    const [a, ca] = arrays[x];
    const a0 = a.address, a1 = a0 + BigInt(a.nbytes);
    for (let y = x + 1; y < arrays.length; y++) {
      const [b, cb] = arrays[y];
      if (ca && cb) continue;
      const b0 = b.address;
      if (a0 < b0 + BigInt(b.nbytes) && b0 < a1) return false;
    }
  }
  return true;
}

// ---- CuPy form --------------------------------------------------------------------------------

/** Construction options of the CuPy form. */
export interface GenericKernelOptions {
  /** Device code placed before the kernel. */
  preamble?: string;
  /** Extra NVRTC options. */
  options?: string[];
}

/** Call options of a CuPy-form kernel. */
export interface GenericCallOptions {
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
  /** Number of elements when no non-raw array gives the shape (as CuPy's `size=`). */
  size?: number;
}

interface Param { name: string; raw: boolean; type: DType | null; placeholder: string | null }

function parseParams(src: unknown, what: string): Param[] {
  const s = str(src, what).trim();
  if (s === '') return [];
  return s.split(',').map((d) => {
    const words = d.trim().split(/\s+/);
    const raw = words[0] === 'raw';
    if (raw) words.shift();
    const name = words.pop();
    const t = words.join(' ');
    if (!name || !IDENT.test(name) || t === '') {
      throw typeError('ERR_INVALID_ARG_VALUE', `ElementwiseKernel.generic: cannot parse ${what} parameter "${d.trim()}": expected "[raw] <type or placeholder> name"`);
    }
    const type = cTypeDType(t) ?? null;
    if (!type && !IDENT.test(t)) throw typeError('ERR_INVALID_ARG_VALUE', `ElementwiseKernel.generic: unknown type "${t}" in "${d.trim()}"`);
    return { name, raw, type, placeholder: type ? null : t };
  });
}

function readsOutput(op: string, name: string): boolean {
  const re = new RegExp(`(?<![\\w.>])${name}\\b`, 'g');
  for (let m; (m = re.exec(op));) {
    if (!/^\s*=(?!=)/.test(op.slice(m.index + name.length))) return true;
  }
  return false;
}

type Bound = GPUArray | { value: number | bigint | boolean | Complex; strong?: DType } | null;

/** The call signature of a GenericElementwiseKernel. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface GenericElementwiseKernel {
  /** Inputs, then optionally outputs (omitted or null: allocated), then optionally `{ stream?, size? }`. */
  (...args: unknown[]): GPUArray | GPUArray[];
}

/**
 * CuPy's ElementwiseKernel: `inParams`/`outParams` like `"T x, raw T a, float32 w"`; user code
 * sees each non-raw parameter as a value of its compute type (float16/bfloat16 as float, complex as
 * nc_complex), `i` the linear index in the (broadcast) output, `n` the element count, raw ones as
 * `a[j]`/`a.size()`. Returns the output (several: an array of them).
 * @example
 * const k = ElementwiseKernel.generic('T x, T y', 'T z', 'z = x > y ? x - y : T(0)', 'relu_diff');
 * const z = k(a, b.T);   // broadcast, strided
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class GenericElementwiseKernel {
  /** @internal */ declare readonly ins: readonly Param[];
  /** @internal */ declare readonly outs: readonly Param[];
  /** @internal */ declare readonly kernel: string;
  /** @internal */ declare readonly operation: string;
  /** @internal */ declare readonly preamble: string;
  /** @internal */ declare readonly options: string[];
  /** @internal */ declare readonly specs: Map<string, ElementwiseSpec>;
  /** @internal */ declare readonly reads: readonly boolean[];

  constructor(inParams: string, outParams: string, operation: string, name?: string, options: GenericKernelOptions = {}) {
    if (!isPlainObject(options)) throw typeError('ERR_INVALID_ARG_TYPE', `ElementwiseKernel.generic: options must be an object. Received ${describe(options)}`);
    const ins = parseParams(inParams, 'input'), outs = parseParams(outParams, 'output');
    const op = str(operation, 'operation');
    if (outs.length === 0) throw typeError('ERR_INVALID_ARG_VALUE', 'ElementwiseKernel.generic: needs at least one output parameter');
    const names = new Set<string>();
    const holders = new Set([...ins, ...outs].map((p) => p.placeholder).filter((p): p is string => !!p));
    for (const p of [...ins, ...outs]) {
      if (names.has(p.name) || p.name === 'i' || p.name === 'n' || holders.has(p.name) || p.name.startsWith('__ek_')) {
        throw typeError('ERR_INVALID_ARG_VALUE', `ElementwiseKernel.generic: parameter name "${p.name}" is repeated or reserved (i, n, placeholders)`);
      }
      names.add(p.name);
    }
    const fn = function (...a: unknown[]): GPUArray | GPUArray[] { return callGeneric(fn as unknown as GenericElementwiseKernel, a); };
    Object.setPrototypeOf(fn, new.target.prototype);
    const ro = (value: unknown) => ({ value, enumerable: false, writable: false, configurable: false });
    const preamble = str(options.preamble, 'preamble');
    Object.defineProperties(fn, {
      name: { value: kernelName(name), configurable: true }, kernel: ro(kernelName(name)), operation: ro(op),
      ins: ro(Object.freeze(ins)), outs: ro(Object.freeze(outs)), preamble: ro(preamble),
      options: ro(strings(options.options)), specs: ro(new Map()), reads: ro(outs.map((o) => !o.raw && readsOutput(op, o.name))),
    });
    return fn as unknown as GenericElementwiseKernel;
  }

  /**
   * The ElementwiseSpec (engine input) for the given dtypes: one per input (`null` for a JS
   * scalar bound to its placeholder's type) and per output. For inspection and compile tests.
   * @example
   * const spec = k.specFor(['float32', 'float32'], ['float32']);
   */
  specFor(inDtypes: ReadonlyArray<string | null>, outDtypes: ReadonlyArray<string>,
    scalarTypes: ReadonlyArray<string | null> = []): ElementwiseSpec {
    const dt = (s: string) => cTypeDType(s) ?? (() => { throw typeError('ERR_INVALID_DTYPE', `unknown dtype ${s}`); })();
    const ins: Bound[] = inDtypes.map((d, j) => d === null ? { value: 0, strong: scalarTypes[j] ? dt(scalarTypes[j]!) : undefined }
      : fakeArray(dt(d)));
    const outs: Bound[] = outDtypes.map((d) => fakeArray(dt(d)));
    return resolve(this, ins, outs).spec;
  }
}
Object.setPrototypeOf(GenericElementwiseKernel.prototype, Function.prototype);

/** A stand-in with just a dtype, for specFor(). */
function fakeArray(d: DType): GPUArray {
  return Object.assign(Object.create(GPUArray.prototype) as GPUArray, { dtype: d });
}

interface Resolution { spec: ElementwiseSpec; types: Map<string, DType>; outTypes: DType[] }

function bindType(k: GenericElementwiseKernel, types: Map<string, DType>, p: Param, d: DType, where: string): void {
  const h = p.placeholder!;
  const prev = types.get(h);
  if (prev && prev !== d) {
    throw typeError('ERR_INVALID_DTYPE', `${k.kernel}(): ${where} binds ${h} to ${d.name}, but ${h} is already ${prev.name} (same placeholder, same dtype)`);
  }
  types.set(h, d);
}

function weakType(v: number | bigint | boolean | Complex): DType {
  if (typeof v === 'boolean') return DTYPES.bool;
  if (typeof v === 'bigint') return DTYPES.int64;
  if (typeof v === 'number') return Number.isInteger(v) ? DTYPES.int64 : DTYPES.float64;
  return DTYPES.complex128;
}

/** Type resolution and the spec for bound arguments (arrays, scalars, or null for an omitted output). */
function resolve(k: GenericElementwiseKernel, ins: Bound[], outs: Bound[]): Resolution {
  const types = new Map<string, DType>();
  const all: Array<[Param, Bound, string]> = [
    ...k.ins.map((p, j): [Param, Bound, string] => [p, ins[j], `input "${p.name}"`]),
    ...k.outs.map((p, j): [Param, Bound, string] => [p, outs[j], `output "${p.name}"`]),
  ];
  for (const [p, b, where] of all) {
    const d = b instanceof GPUArray ? b.dtype : b?.strong;
    if (!d) continue;
    if (p.placeholder) bindType(k, types, p, d, where);
    else if (p.raw && b instanceof GPUArray && d !== p.type) {
      throw typeError('ERR_INVALID_DTYPE', `${k.kernel}(): raw ${where} must be a ${p.type!.name} array; got ${d.name}`);
    } else if (b instanceof GPUArray && !(where.startsWith('in') ? canCast(d, p.type!, 'same_kind') : canCast(p.type!, d, 'same_kind'))) {
      throw typeError('ERR_INVALID_DTYPE', `${k.kernel}(): ${where} is declared ${p.type!.name}; cannot convert a ${d.name} array (same_kind casting)`);
    }
  }
  for (const [p, b] of all) {
    if (p.placeholder && b && !(b instanceof GPUArray) && !types.has(p.placeholder)) types.set(p.placeholder, weakType(b.value));
  }
  const typeOf = (p: Param, where: string): DType => {
    const t = p.type ?? types.get(p.placeholder!);
    if (!t) throw typeError('ERR_INVALID_DTYPE', `${k.kernel}(): cannot infer the type ${p.placeholder} of ${where}: pass an array for it or give the output`);
    return t;
  };
  const inputs: InputSpec[] = [];
  const rp = (p: Param, t: DType, raw: boolean): ResolvedParam => {
    const r: ResolvedParam = { name: p.name, raw, type: t, slot: inputs.length };
    if (raw) {
      inputs.push({ dtype: DTYPES.uint64, compute: DTYPES.uint64, scalar: true },
        { dtype: DTYPES.uint64, compute: DTYPES.uint64, scalar: true });
      r.sizeSlot = r.slot + 1;
    }
    return r;
  };
  const resolvedIns = all.slice(0, k.ins.length).map(([p, b, where]) => {
    const t = typeOf(p, where);
    if (p.raw) return rp(p, t, true);
    const r = rp(p, t, false);
    inputs.push(b instanceof GPUArray ? { dtype: b.dtype, compute: t, scalar: false } : { dtype: t, compute: t, scalar: true });
    return r;
  });
  const outputs: OutputSpec[] = [];
  const outTypes: DType[] = [];
  const resolvedOuts = all.slice(k.ins.length).map(([p, b, where], j) => {
    const t = typeOf(p, where);
    outTypes.push(t);
    if (p.raw) return { ...rp(p, t, true), read: false };
    const store = b instanceof GPUArray ? b.dtype : t;
    outputs.push({ dtype: store, compute: t });
    const read = k.reads[j] && b instanceof GPUArray;
    const r = { ...rp(p, t, false), read };
    if (read) inputs.push({ dtype: store, compute: t, scalar: false });
    return r;
  });
  const key = JSON.stringify([
    inputs.map((x) => [x.dtype.name, x.compute.name, x.scalar]), outputs.map((o) => [o.dtype.name, o.compute.name]),
    resolvedOuts.map((o) => o.read), [...types].map(([h, d]) => h + d.name)]);
  let spec = k.specs.get(key);
  if (!spec) {
    const typedefs = new Map([...types].filter(([h]) => [...k.ins, ...k.outs].some((p) => p.placeholder === h)));
    spec = {
      name: k.kernel, inputs, outputs, options: k.options,
      body: genericBody(resolvedIns, resolvedOuts, typedefs, k.operation),
      preamble: `${helpers(k.preamble)}\n${k.preamble}`,
    };
    k.specs.set(key, spec);
  }
  return { spec, types, outTypes };
}

function asOperand(a: GPUArray, shape: readonly number[]): ArrayOperand {
  const same = a.shape.length === shape.length && a.shape.every((s, d) => s === shape[d]);
  const strides = same ? a.strides : broadcastStrides(a.shape, a.strides, shape);
  return { dtype: a.dtype, shape, strides, ptr: a.address, align16: a.align16, mem: a.alloc };
}

function callGeneric(k: GenericElementwiseKernel, a: unknown[]): GPUArray | GPUArray[] {
  const nIn = k.ins.length, nOut = k.outs.length;
  let opts: GenericCallOptions = {};
  if (a.length > nIn && isPlainObject(a[a.length - 1])) opts = a.pop() as GenericCallOptions;
  if (a.length !== nIn && a.length !== nIn + nOut) {
    throw typeError('ERR_INVALID_ARG_COUNT', `${k.kernel}() takes ${nIn} input(s) (${k.ins.map((p) => p.name).join(', ')}), ` +
      `optionally ${nOut} output(s) (${k.outs.map((p) => p.name).join(', ')}), then optional { stream, size }; got ${a.length}`);
  }
  const bind = (v: unknown, p: Param, where: string, output: boolean): Bound => {
    if (v instanceof GPUArray) {
      v.check();
      if (p.raw && !v.flags.cContiguous) throw contiguityError(`${k.kernel}() raw ${where}`);
      return v;
    }
    if (output && (v === undefined || v === null)) {
      if (p.raw) throw typeError('ERR_INVALID_ARG_TYPE', `${k.kernel}(): raw ${where} must be passed (it cannot be allocated)`);
      return null;
    }
    if (output || p.raw) throw typeError('ERR_INVALID_ARG_TYPE', `${k.kernel}(): ${p.raw ? 'raw ' : ''}${where} must be a GPUArray. Received ${describe(v)}`);
    if (v instanceof Scalar) return { value: v.value, strong: v.dtype };
    if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' ||
      (typeof v === 'object' && v !== null && typeof (v as Complex).re === 'number')) return { value: v as number };
    throw typeError('ERR_INVALID_ARG_TYPE', `${k.kernel}(): ${where} must be a GPUArray or a scalar. Received ${describe(v)}`);
  };
  const ins = k.ins.map((p, j) => bind(a[j], p, `input "${p.name}"`, false));
  const outs = k.outs.map((p, j) => bind(a[nIn + j], p, `output "${p.name}"`, true));
  const arrays = [...ins, ...outs].filter((b): b is GPUArray => b instanceof GPUArray);
  checkDevices(`${k.kernel}()`, arrays);
  const { spec, outTypes } = resolve(k, ins, outs);
  // Launch shape: broadcast of the non-raw input arrays (else of the given outputs); outputs must have it exactly.
  const inArrays = ins.filter((b, j) => b instanceof GPUArray && !k.ins[j].raw) as GPUArray[];
  const shaped = inArrays.length ? inArrays : outs.filter((b, j) => b instanceof GPUArray && !k.outs[j].raw) as GPUArray[];
  let shape: number[];
  if (shaped.length) {
    shape = broadcastShapes(...shaped.map((x) => x.shape));
    if (opts.size !== undefined && opts.size !== shape.reduce((x, y) => x * y, 1)) throw rangeError('ERR_SHAPE_MISMATCH', `${k.kernel}(): size ${opts.size} differs from the arrays' size`);
  } else {
    if (typeof opts.size !== 'number' || !Number.isInteger(opts.size) || opts.size < 0) {
      throw typeError('ERR_MISSING_OPTION', `${k.kernel}(): no non-raw array gives the size: pass { size: n }`);
    }
    shape = [opts.size];
  }
  const stream = opts.stream;
  const results: GPUArray[] = [];
  const temps: Array<[GPUArray, GPUArray]> = [];
  const outArrays = outs.map((b, j) => {
    const p = k.outs[j];
    if (b instanceof GPUArray) {
      if (!p.raw && (b.shape.length !== shape.length || b.shape.some((s, d) => s !== shape[d]))) {
        throw rangeError('ERR_SHAPE_MISMATCH', `${k.kernel}(): output "${p.name}" has shape (${b.shape.join(',')}); the broadcast shape is (${shape.join(',')})`);
      }
      results.push(b);
      // Partial overlap with an input: compute into a temporary, then copy.
      if (!p.raw && ins.some((x) => x instanceof GPUArray && x.alloc === b.alloc && !sameView(x, b))) {
        const t = GPUArray.allocate(shape, b.dtype, stream);
        temps.push([b, t]);
        return t;
      }
      return b;
    }
    const o = GPUArray.allocate(shape, outTypes[j], stream);
    results.push(o);
    return o;
  });
  const operands: Array<ArrayOperand | ScalarOperand> = [];
  const pushRaw = (x: GPUArray) => operands.push({ scalar: true, value: x.address }, { scalar: true, value: BigInt(x.size) });
  ins.forEach((b, j) => {
    if (k.ins[j].raw) pushRaw(b as GPUArray);
    else if (b instanceof GPUArray) operands.push(asOperand(b, shape));
    else {
      const c = spec.inputs[operands.length].compute, what = `${k.kernel}() input "${k.ins[j].name}"`;
      // A weak (plain) number must fit an integer compute type, as NumPy 2 requires; a Scalar is a cast.
      if (!b!.strong && (typeof b!.value === 'number' || typeof b!.value === 'bigint')) checkStorable(c, b!.value, what);
      operands.push({ scalar: true, value: coerce(c, b!.value, what) });
    }
  });
  const outOps: ArrayOperand[] = [];
  outArrays.forEach((o, j) => {
    if (k.outs[j].raw) pushRaw(o);
    else {
      outOps.push(asOperand(o, shape));
      if (k.reads[j] && outs[j] instanceof GPUArray) operands.push(asOperand(outs[j] as GPUArray, shape));
    }
  });
  runElementwise(spec, shape, outOps, operands, streamHandle(stream));
  for (const [dst, t] of temps) { assign(dst, t, stream); t.dispose(); }
  return results.length === 1 ? results[0] : results;
}

function sameView(a: GPUArray, b: GPUArray): boolean {
  return a.address === b.address && a.shape.length === b.shape.length && a.shape.every((s, d) => s === b.shape[d]) &&
    a.strides.every((s, d) => s === b.strides[d] || a.shape[d] === 1);
}
