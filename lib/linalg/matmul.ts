/**
 * matmul on cuBLAS (NumPy semantics): 1-D/2-D/N-D operands with broadcast batch dimensions, one
 * strided batched GEMM per call. Views cuBLAS can read (one unit stride, see plan.ts) are passed
 * as they are; other layouts and other dtypes are copied first, on the call's stream.
 */
import { DType } from '../base/dtype';
import { checkedOptions, optionsArg, rangeError, typeError } from '../base/errors';
import { canCast, resultType } from '../base/promote';
import { formatShape, isCContiguous, sizeOf } from '../base/shape';
import { Stream, streamHandle } from '../cuda/driver';
import { useOn } from '../cuda/memory';
import { gemm, gemmCall } from '../cuda/cublas';
import { GPUArray, arrayArg } from '../array/gpuarray';
import { assign, fill } from '../array/operators';
import { checkWritable } from '../array/overlap';
import {
  MatmulShape, OperandPlan, Precision, computeType, gemmParams, gemmType, matmulShape, operandPlan,
} from './plan';
import { PlanMemo } from './plan_cache';

/** Options of matmul (and the products built on it). */
export interface MatmulOptions {
  /** Write the result here: exactly the result's shape, a dtype the result casts to ('same_kind'). */
  out?: GPUArray;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
  /**
   * float32/complex64 only: 'exact' (default, like NumPy: float32 products accumulated in float32,
   * no TF32) or 'tf32' (tensor cores with TF32 inputs: faster, about 10 mantissa bits). 'tf32' is
   * a permission, not a demand: other dtypes ignore it, and the 1-D·1-D products of dot and inner
   * (a dot reduction) and their products with a 0-d operand (an elementwise multiply) are always
   * computed exactly. Any other value is a TypeError ERR_INVALID_ARG_VALUE, on every path.
   */
  precision?: Precision;
}

/** @internal The option names of matmul, dot and inner: any other (NumPy's dtype or casting) is a TypeError. */
export const MATMUL_KEYS = ['out', 'stream', 'precision'];

/** Element strides of an array (byte strides divided by the itemsize; exact for aligned views). */
function elementStrides(x: GPUArray): number[] {
  return x.strides.map((s) => s / x.dtype.bytes);
}

/** `out` checked against the result: shape exactly, dtype castable 'same_kind'. */
function checkOut(out: unknown, s: MatmulShape, dt: DType, what: string): GPUArray {
  const o = arrayArg(out, 'out');
  if (o.shape.length !== s.out.length || o.shape.some((n, i) => n !== s.out[i])) {
    throw rangeError('ERR_SHAPE_MISMATCH', `${what}: out has shape ${formatShape(o.shape)}; the result has shape ${formatShape(s.out)}`);
  }
  checkOutCast(dt, o, what);
  checkWritable(o, what);
  return o;
}

/** @internal TypeError ERR_INVALID_DTYPE unless a `dt` result can be stored in `out` (same_kind). */
export function checkOutCast(dt: DType, out: GPUArray, what: string): void {
  if (!canCast(dt, out.dtype, 'same_kind')) {
    throw typeError('ERR_INVALID_DTYPE', `${what}: cannot store a ${dt.name} result in a ${out.dtype.name} out array (same_kind casting)`);
  }
}

/**
 * What a product does, decided by the operands' layouts alone (memoized: plan_cache.ts): the
 * result's dtype and shape, the packed cuBLAS call and whether cuBLAS may write `out` itself.
 */
interface ProductPlan {
  readonly dt: DType;
  /** The result's shape (frozen: shared by the results of this plan). */
  readonly shape: readonly number[];
  /** The cublasGemm parameters (gemmCall); null when there is nothing to multiply (empty result, or K = 0). */
  readonly call: Float64Array | null;
  /** K = 0 with a non-empty result: zeros (NumPy's empty sum). */
  readonly zero: boolean;
  /** `out` is what cuBLAS writes: C order in the result's dtype (false without `out`). */
  readonly outDirect: boolean;
}

/** Plans of the products that ran on their operands as they are (no conversion, no copy). */
const plans = new PlanMemo<ProductPlan>(16);

/** @internal For tests: the memo of product plans. */
export const productPlans_: { readonly size: number; clear(): void } = plans;

/**
 * @internal The product behind matmul, dot, inner and vdot: C = A·B with NumPy's matmul shapes,
 * `conjA` conjugating A (vdot; A must be 1-D).
 */
export function product(x: GPUArray, y: GPUArray, opts: MatmulOptions, what: string, conjA = false): GPUArray {
  const o = optionsArg(opts);
  const given = o.out;
  if (x.context !== y.context || (given instanceof GPUArray && given.context !== x.context)) {
    throw typeError('ERR_DEVICE_MISMATCH', `${what}: arrays live on different devices/contexts; copy one over first`);
  }
  // A memoized plan: every check below that the layouts decide passed when it was made; `out`'s
  // own check (arrayArg: disposed) and the stream's remain, in the same order.
  const keyOut = given === undefined ? null : given instanceof GPUArray ? given : undefined;
  if (keyOut !== undefined) {
    const known = plans.get(x, y, keyOut, o.precision, conjA);
    if (known) return run(known, x, y, x, y, keyOut?.check(), o.stream, streamHandle(o.stream));
  }
  const s = matmulShape(x.shape, y.shape, what);
  const dt = resultType(x.dtype, y.dtype);
  const t = gemmType(dt, what);
  const compute = computeType(t, o.precision, what);
  const out = given === undefined ? undefined : checkOut(given, s, dt, what);
  const stream = o.stream;
  const sh = streamHandle(stream);
  const temps: GPUArray[] = [];
  const keep = (v: GPUArray): GPUArray => (temps.push(v), v);
  try {
    // Each operand in the result's dtype and in a layout cuBLAS reads: as it is when possible,
    // else a C-ordered copy (with its batch broadcast written out when it does not collapse).
    const prepare = (v: GPUArray, isA: boolean): [GPUArray, OperandPlan] => {
      let w = v.dtype === dt ? v : keep(v.astype(dt, { stream }));
      let p = operandPlan({ shape: w.shape, strides: elementStrides(w) }, s, isA, isA && conjA);
      if (!p) {
        const full = w.ndim > 2 ? w.broadcastTo([...s.batch, ...w.shape.slice(-2)]) : w;
        w = keep(full.copy({ stream }));
        p = operandPlan({ shape: w.shape, strides: elementStrides(w) }, s, isA, isA && conjA)!;
      }
      return [w, p];
    };
    const none = sizeOf(s.out) === 0 || s.k === 0;
    const [xa, pa] = none ? [x, null] : prepare(x, true);
    const [yb, pb] = none ? [y, null] : prepare(y, false);
    const plan: ProductPlan = {
      dt,
      shape: Object.freeze(s.out),
      call: none ? null : gemmCall(gemmParams(s, pa!, pb!, conjA), t.data, compute),
      zero: none && sizeOf(s.out) !== 0,
      outDirect: out !== undefined && out.dtype === dt && isCContiguous(out.shape, out.strides, dt.bytes),
    };
    if (xa === x && yb === y && keyOut !== undefined) plans.set(x, y, keyOut, o.precision, conjA, plan);
    return run(plan, x, y, xa, yb, out, stream, sh);
  } finally {
    for (const v of temps) v.dispose();
  }
}

/**
 * Runs `p` on `xa` and `yb` (`x` and `y`, or their converted copies) into `out`. Straight into
 * `out` when it is what cuBLAS writes and shares no memory with the operands; else into a new
 * array, then copied.
 */
function run(p: ProductPlan, x: GPUArray, y: GPUArray, xa: GPUArray, yb: GPUArray, out: GPUArray | undefined,
  stream: Stream | null | undefined, sh: NativeAddon.StreamHandle | null): GPUArray {
  const direct = p.outDirect && out!.alloc !== x.alloc && out!.alloc !== y.alloc;
  const dst = direct ? out! : GPUArray.allocate(p.shape, p.dt, stream);
  let returned = false;
  try {
    if (p.call) {
      useOn(xa, sh);
      useOn(yb, sh);
      useOn(dst, sh);
      gemm(sh, p.call, yb.ptr, xa.ptr, dst.ptr);
    } else if (p.zero) {
      fill(dst, 0, stream); // an empty sum: NumPy gives zeros
    }
    if (out !== undefined && dst !== out) assign(out, dst, stream);
    returned = true;
    return out ?? dst;
  } finally {
    if (dst !== out && (out !== undefined || !returned)) dst.dispose();
  }
}

/**
 * Matrix product with NumPy's semantics (`np.matmul`, `@`): the last two dimensions multiply,
 * earlier ones broadcast (a batch); a 1-D `a` is a row and a 1-D `b` a column, each dropped from
 * the result (1-D·1-D gives a 0-d array). Runs on cuBLAS for float16 and bfloat16 (float32 accumulation),
 * float32 (exact unless `{ precision: 'tf32' }`), float64, complex64 and complex128; mixed dtypes
 * promote like the operators. Integer and bool operands: TypeError `ERR_INVALID_DTYPE` (convert
 * with astype). Shapes that do not line up: RangeError `ERR_SHAPE_MISMATCH` naming both. 0-d
 * operands: TypeError `ERR_INVALID_ARG_VALUE`. A K of 0 gives zeros. cuBLAS failures are
 * CublasError (`CUBLAS_NOT_FOUND` when libcublas is not installed).
 * @example
 * const c = gpuarray.matmul(a, b);           // (M, K) · (K, N) → (M, N)
 * const y = x.matmul(w.T);                   // transposed views need no copy
 * gpuarray.matmul(batchA, batchB, { out: c, stream });
 */
export function matmul(a: GPUArray, b: GPUArray, opts?: MatmulOptions): GPUArray {
  return product(arrayArg(a, 'a'), arrayArg(b, 'b'), checkedOptions(opts, 'matmul', MATMUL_KEYS), 'matmul');
}
