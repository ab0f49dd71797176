/**
 * ElementwiseKernel: PyCUDA's form (C declarator arguments, an `operation` over `i`, a
 * grid-stride loop, `range`/`slice`); CuPy's form (`ElementwiseKernel.generic`: type placeholders,
 * broadcasting, strided operands, `raw` arguments, allocated outputs) is in kernels/generic.ts.
 * Both are built on the elementwise engine. Kernels include no headers, compile on first call and
 * are cached per process (memory), per machine (disk) and per context (loaded modules).
 */
import { coerceArg } from '../base/dtype';
import { describe, knownOptions, rangeError, typeError } from '../base/errors';
import { Stream, currentContext, streamHandle } from '../cuda/driver';
import { envNumber } from '../base/env';
import { generatedKernel } from '../cuda/modules';
import { GPUArray } from '../array/gpuarray';
import { useOn } from '../cuda/memory';
import * as cu from '../cuda/door';
import { Slice } from '../base/indexing';
import { CArg, LoopMode, UNROLL, loopKernelSource, parseCArgs, unrollable } from '../engine/templates/elementwise_kernel';
import { checkContext } from '../array/devices';
import { ArgPacker } from '../cuda/args';
import { contiguityError, isPlainObject, kernelName, str, strings } from './user_args';
import { GenericElementwiseKernel, GenericKernelOptions } from './generic';

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
function gridFor(fn: NativeAddon.FunctionHandle, count: number): number {
  const blocks = Math.ceil(count / BLOCK);
  if (!EK_WAVES) return Math.min(MAX_GRID, blocks);
  return Math.max(1, Math.min(MAX_GRID, blocks, cu.residentBlocks(fn, BLOCK) * EK_WAVES));
}
const INT31 = 2 ** 31;

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
    knownOptions(options, 'ElementwiseKernel', ['preamble', 'loopPrep', 'afterLoop', 'options', 'keep']); // PyCUDA's loop_prep: refused
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
  knownOptions(opts, `${k.kernel}()`, ['range', 'slice', 'stream']);
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
