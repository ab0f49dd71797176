/**
 * User scan kernels on the scan engine (engine/scan.ts): PyCUDA's InclusiveScanKernel /
 * ExclusiveScanKernel and PyOpenCL's GenericScanKernel (input expression, output statement,
 * segments).
 */
import { DType, DTypeLike, dtype as toDType } from '../base/dtype';
import { checkedOptions, describe, knownOptions, rangeError, typeError } from '../base/errors';
import { Stream } from '../cuda/driver';
import { GPUArray } from '../array/gpuarray';
import { ScanSpec } from '../engine/templates/scan';
import { runScan } from '../engine/scan';
import { UserArgs, isOptions, parseArguments, userPreamble } from './user_args';
import { checkDevices } from '../array/devices';
import { overlaps } from '../array/overlap';

// ---- kernel builders --------------------------------------------------------------------------

let builderCount = 0;
// The one option the PyCUDA-form builders read (PyCUDA's options or keep: refused, not ignored).
const BUILDER_KEYS = ['preamble'];

function scanCall(spec: ScanSpec, dt: DType, what: string) {
  return (input: GPUArray, output?: GPUArray | { stream?: Stream | null }, opts: { stream?: Stream | null } = {}): GPUArray => {
    if (output !== undefined && !(output instanceof GPUArray)) {
      opts = output;
      output = undefined;
    }
    opts = checkedOptions(opts, what, ['stream']);
    for (const [x, name] of [[input, 'input'], [output ?? input, 'output']] as const) {
      if (!(x instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${what}: ${name} must be a GPUArray. Received ${describe(x)}`);
      x.check();
      if (x.dtype !== dt) throw typeError('ERR_INVALID_DTYPE', `${what}: ${name} is ${x.dtype.name}; this kernel scans ${dt.name}`);
      if (!x.flags.cContiguous) throw typeError('ERR_NOT_CONTIGUOUS', `${what}: ${name} must be C-contiguous (make a contiguous copy with .copy())`);
    }
    const out = (output as GPUArray | undefined) ?? input;
    if (out.size !== input.size) throw rangeError('ERR_SHAPE_MISMATCH', `${what}: output has ${out.size} elements; input has ${input.size}`);
    checkDevices(what, [input], out);
    // An output over the input's bytes, other than in place, scans a copy: a tile could store
    // over input elements a later tile has yet to read.
    const src = out.ptr !== input.ptr && overlaps(out, input) ? input.copy({ stream: opts.stream }) : input;
    try {
      runScan(spec, input.size, [{ ptr: out.address }, { ptr: src.address }], opts.stream, [out, src]);
    } finally {
      if (src !== input) src.dispose();
    }
    return out;
  };
}

function builderSpec(dt: DType, scanExpr: string, neutral: string | undefined, exclusive: boolean, preamble?: string): ScanSpec {
  if (typeof scanExpr !== 'string' || !scanExpr.trim()) {
    throw typeError('ERR_INVALID_ARG_TYPE', 'scanExpr must be a C expression in a and b');
  }
  const c = dt.accC;
  return {
    name: `nc_uscan${builderCount++}`, acc: c, accBytes: dt.accBytes, scan: scanExpr,
    neutral: neutral === undefined ? `${c}()` : `(${c})(${neutral})`,
    params: `${dt.storageC} *__restrict__ out0, const ${dt.storageC} *__restrict__ in0`,
    input: `NC_TO(${c}, nc_load(in0[i]))`, output: `out0[i] = NC_STORE(${dt.storageC}, ${exclusive ? 'prev_item' : 'item'});`,
    preamble,
    vector: { ptr: 'in0', storage: dt.storageC, bytes: dt.bytes, input: `NC_TO(${c}, nc_load(nc_x))` },
  };
}

/** A callable scan kernel: `k(input, output?, { stream })` → output (in place by default). */
export interface ScanKernel {
  (input: GPUArray, output?: GPUArray, opts?: { stream?: Stream | null }): GPUArray;
  (input: GPUArray, opts?: { stream?: Stream | null }): GPUArray;
}

/**
 * pycuda.scan.InclusiveScanKernel: out[i] = in[0] ⊕ … ⊕ in[i] for an associative `scanExpr` in
 * `a` and `b`.
 * @example
 * const k = new InclusiveScanKernel('int32', 'a + b');
 * k(x); // in place
 */
export const InclusiveScanKernel = function (this: unknown, dtype: DTypeLike, scanExpr: string, neutral?: string | number,
  opts: { preamble?: string } = {}): ScanKernel {
  opts = checkedOptions(opts, 'InclusiveScanKernel', BUILDER_KEYS);
  const dt = toDType(dtype);
  const spec = builderSpec(dt, scanExpr, neutral === undefined ? undefined : String(neutral), false, opts.preamble);
  return scanCall(spec, dt, 'InclusiveScanKernel') as ScanKernel;
} as unknown as {
  /**
   * An inclusive scan of `dtype` arrays with `scanExpr` (in `a` and `b`); `neutral` defaults to zero
   * (the accumulator type's `T()`); `opts.preamble`: device code before the kernel.
   */
  new (dtype: DTypeLike, scanExpr: string, neutral?: string | number, opts?: { preamble?: string }): ScanKernel;
};

/**
 * pycuda.scan.ExclusiveScanKernel: out[i] = neutral ⊕ in[0] ⊕ … ⊕ in[i-1].
 * @example
 * const k = new ExclusiveScanKernel('float32', 'a + b', 0);
 * const y = k(x, gpuarray.emptyLike(x));
 */
export const ExclusiveScanKernel = function (this: unknown, dtype: DTypeLike, scanExpr: string, neutral: string | number,
  opts: { preamble?: string } = {}): ScanKernel {
  if (neutral === undefined) throw typeError('ERR_MISSING_ARGS', 'ExclusiveScanKernel needs a neutral element');
  opts = checkedOptions(opts, 'ExclusiveScanKernel', BUILDER_KEYS);
  const dt = toDType(dtype);
  const spec = builderSpec(dt, scanExpr, String(neutral), true, opts.preamble);
  return scanCall(spec, dt, 'ExclusiveScanKernel') as ScanKernel;
} as unknown as {
  /**
   * An exclusive scan of `dtype` arrays with `scanExpr` (in `a` and `b`) starting from `neutral`
   * (required); `opts.preamble`: device code before the kernel.
   */
  new (dtype: DTypeLike, scanExpr: string, neutral: string | number, opts?: { preamble?: string }): ScanKernel;
};

/** GenericScanKernel options (PyOpenCL's names, camelCase). */
export interface GenericScanOptions {
  /** Scan value type. */
  dtype: DTypeLike;
  /** C declarator list of the kernel's arguments ("const float *x, int *out, int n"). */
  arguments: string;
  /** Expression (in `i` and the arguments) giving element i's input value. */
  inputExpr: string;
  /** Associative expression in `a` and `b`. */
  scanExpr: string;
  /** Neutral element (prev_item of the first element and at segment starts). */
  neutral: string | number;
  /** Statement run for each i with `item` (inclusive) and `prev_item` (exclusive). */
  outputStatement: string;
  /** Bool expression in `i`: element i starts a new segment. */
  isSegmentStartExpr?: string;
  /** Device code placed before the kernel (helper functions, #defines). */
  preamble?: string;
}

/** A callable generic scan: `k(...args, { size?, stream? })`. */
export type GenericScanCallable = (...args: unknown[]) => void;

/**
 * PyOpenCL's GenericScanKernel: a scan with an input expression, an output statement and
 * optional segments.
 * @example
 * const compact = new GenericScanKernel({ dtype: 'int32', arguments: 'const float *x, float *y',
 *   inputExpr: 'x[i] > 0 ? 1 : 0', scanExpr: 'a + b', neutral: 0,
 *   outputStatement: 'if (prev_item != item) y[prev_item] = x[i];' });
 * compact(x, y);
 */
export const GenericScanKernel = function (this: unknown, o: GenericScanOptions): GenericScanCallable {
  if (typeof o !== 'object' || o === null) throw typeError('ERR_INVALID_ARG_TYPE', 'GenericScanKernel takes an options object');
  knownOptions(o, 'GenericScanKernel', ['dtype', 'arguments', 'inputExpr', 'scanExpr', 'neutral', 'outputStatement',
    'isSegmentStartExpr', 'preamble']); // PyOpenCL's input_expr or is_segment_start_expr: refused, not ignored
  for (const k of ['arguments', 'inputExpr', 'scanExpr', 'outputStatement'] as const) {
    if (typeof o[k] !== 'string') throw typeError('ERR_INVALID_ARG_TYPE', `GenericScanKernel: ${k} must be a string`);
  }
  if (o.neutral === undefined) throw typeError('ERR_MISSING_ARGS', 'GenericScanKernel: neutral is required');
  const dt = toDType(o.dtype);
  const user: UserArgs = parseArguments(o.arguments, 'GenericScanKernel', ['i', 'n', 'item', 'prev_item']);
  const c = dt.accC;
  const spec: ScanSpec = {
    name: `nc_gscan${builderCount++}`, acc: c, accBytes: dt.accBytes, scan: o.scanExpr, neutral: `(${c})(${o.neutral})`,
    params: user.decls, input: o.inputExpr, output: o.outputStatement, segment: o.isSegmentStartExpr,
    preamble: userPreamble(user.decls, o.preamble),
  };
  return (...args: unknown[]) => {
    let opts: { size?: number; stream?: Stream | null } = {};
    if (args.length === user.params.length + 1 && isOptions(args[args.length - 1])) opts = args.pop() as typeof opts;
    knownOptions(opts, 'GenericScanKernel', ['size', 'stream']);
    const { values, arrays } = user.pack(args, 'GenericScanKernel');
    checkDevices('GenericScanKernel', arrays);
    const n = opts.size ?? (arrays[0]?.size);
    if (n === undefined || !Number.isSafeInteger(n) || n < 0) {
      throw typeError('ERR_INVALID_ARG_VALUE', 'GenericScanKernel: pass { size } when no array argument gives it');
    }
    runScan(spec, n, values, opts.stream, arrays);
  };
} as unknown as {
  /** A generic scan described by `o`: a function `k(...args, { size?, stream? })`, one value per declared argument. */
  new (o: GenericScanOptions): GenericScanCallable;
};
