/**
 * pycuda.reduction.ReductionKernel: a user map expression over `i` and the declared arguments,
 * combined with a user reduce expression in `a` and `b`, whole-array or along `axis`.
 */
import { DTypeLike, dtype as toDType } from '../base/dtype';
import { describe, knownOptions, rangeError, typeError } from '../base/errors';
import { Stream, streamHandle } from '../cuda/driver';
import { useOn } from '../cuda/memory';
import { GPUArray } from '../array/gpuarray';
import { runReduction } from '../engine/reduce';
import { axesOf, finish, target } from '../array/reductions';
import { ReduceSpec } from '../engine/templates/reduction';
import { isOptions, parseArguments, userPreamble } from './user_args';
import { checkDevices } from '../array/devices';

/** ReductionKernel options (PyCUDA's names, camelCase). */
export interface ReductionKernelOptions {
  /** Neutral element of reduceExpr (C expression or number). */
  neutral: string | number;
  /** Associative, commutative expression in `a` and `b`. */
  reduceExpr: string;
  /** Expression in `i` and the arguments: the value of element i (default `in[i]`). */
  mapExpr?: string;
  /**
   * C declarator list (default `const <dtypeOut> *in`); `half`/`__half` and `__nv_bfloat16`/
   * `nv_bfloat16` are 16-bit float types converting to and from float.
   */
  arguments?: string;
  /** Kernel name prefix (default 'reduce'; characters other than letters, digits and `_` become `_`). */
  name?: string;
  /** Device code placed before the kernel (helper functions, #defines). */
  preamble?: string;
}

/** Call options. */
export interface ReductionCallOptions {
  /** Axis or axes of the array arguments to reduce (negative from the end); null or omitted: all of them. */
  axis?: number | readonly number[] | null;
  /** Keep the reduced axes as length 1 in the result (default false). */
  keepdims?: boolean;
  /**
   * Write the result here: its shape is the result's, with or without the reduced axes kept; the
   * `dtypeOut` result must cast to its dtype ('same_kind').
   */
  out?: GPUArray;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** A callable reduction: `k(...args, opts?)` → GPUArray (0-d without axis). */
export type ReductionCallable = (...args: unknown[]) => GPUArray;

let count = 0;

/**
 * A reduction kernel built from C expressions (PyCUDA's ReductionKernel). The reduce expression
 * must be associative and commutative: the order in which elements are combined is unspecified.
 * @example
 * const sumsq = new ReductionKernel('float32', { neutral: 0, reduceExpr: 'a + b',
 *   mapExpr: 'x[i] * x[i]', arguments: 'const float *x' });
 * sumsq(x).item();
 */
export const ReductionKernel = function (this: unknown, dtypeOut: DTypeLike, o: ReductionKernelOptions): ReductionCallable {
  if (typeof o !== 'object' || o === null) {
    throw typeError('ERR_INVALID_ARG_TYPE', 'ReductionKernel(dtypeOut, { neutral, reduceExpr, mapExpr?, arguments? })');
  }
  // PyCUDA's reduce_expr or map_expr (or a misspelt mapExpr, which would reduce in[i] instead) is refused.
  knownOptions(o, 'ReductionKernel', ['neutral', 'reduceExpr', 'mapExpr', 'arguments', 'name', 'preamble']);
  const out = toDType(dtypeOut);
  if (typeof o.reduceExpr !== 'string') {
    throw typeError('ERR_INVALID_ARG_TYPE', 'ReductionKernel: reduceExpr must be a C expression in a and b');
  }
  if (o.neutral === undefined) throw typeError('ERR_MISSING_ARGS', 'ReductionKernel: neutral is required');
  if (!['string', 'number', 'bigint', 'boolean'].includes(typeof o.neutral)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `ReductionKernel: neutral must be a C expression or a number. Received ${describe(o.neutral)}`);
  }
  if (o.mapExpr !== undefined && typeof o.mapExpr !== 'string') {
    throw typeError('ERR_INVALID_ARG_TYPE', 'ReductionKernel: mapExpr must be a string');
  }
  const user = parseArguments(o.arguments ?? `const ${out.storageC} *in`, 'ReductionKernel', ['i']);
  if (!user.params.some((p) => p.pointer)) {
    throw typeError('ERR_INVALID_ARG_VALUE', 'ReductionKernel: at least one array argument is needed');
  }
  const acc = out.accC;
  const base = (o.name ?? 'reduce').replace(/[^A-Za-z0-9_]/g, '_');
  const spec: ReduceSpec = {
    name: `${base}_u${count++}`, acc, neutral: `(${acc})(${o.neutral})`, reduce: o.reduceExpr, out: out.storageC,
    // The default `in` is of the storage type (nc_half, nc_bf16, nc_bool, nc_c64…): nc_load reads its value.
    params: user.decls, map: o.mapExpr ?? (o.arguments === undefined ? 'nc_load(in[i])' : 'in[i]'), post: 'nc_acc',
    preamble: userPreamble(user.decls, o.preamble),
  };
  const nargs = user.params.length;
  return (...args: unknown[]): GPUArray => {
    let opts: ReductionCallOptions = {};
    if (args.length === nargs + 1 && isOptions(args[nargs])) opts = args.pop() as ReductionCallOptions;
    knownOptions(opts, 'ReductionKernel', ['axis', 'keepdims', 'out', 'stream']);
    const { values, arrays } = user.pack(args, 'ReductionKernel');
    checkDevices('ReductionKernel', arrays);
    const shape = arrays[0].shape;
    for (const a of arrays) {
      if (a.shape.length !== shape.length || a.shape.some((n, j) => n !== shape[j])) {
        throw rangeError('ERR_SHAPE_MISMATCH', `ReductionKernel: array arguments must share one shape; got (${shape.join(',')}) and (${a.shape.join(',')})`);
      }
    }
    const axes = axesOf(opts.axis, shape.length);
    const keep = new Set(axes);
    const keptShape = shape.filter((_, d) => !keep.has(d));
    const resShape = opts.keepdims ? shape.map((n, d) => (keep.has(d) ? 1 : n)) : keptShape;
    const t = target(resShape, keptShape, out, opts, 'ReductionKernel', arrays);
    const strides: number[] = [];
    let s = 1;
    for (let d = shape.length - 1; d >= 0; d--) {
      strides[d] = s;
      s *= shape[d];
    }
    return finish(t, opts.stream, () => {
      const sh = streamHandle(opts.stream); // memory of another stream is recorded (memory.ts useOn)
      for (const x of arrays) useOn(x, sh);
      useOn(t.write, sh);
      runReduction(spec, {
        shape, strides, axes, orderFree: true, args: values, out: t.write.address,
        accBytes: out.kind === 'c' ? out.bytes : out.accBytes, stream: opts.stream,
      });
    });
  };
} as unknown as {
  /**
   * A reduction to `dtypeOut` values described by `o`: a function `k(...args, opts?)` taking one
   * value per declared argument (arrays of one shape) and returning a GPUArray.
   */
  new (dtypeOut: DTypeLike, o: ReductionKernelOptions): ReductionCallable;
};
