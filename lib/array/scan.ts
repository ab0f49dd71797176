/**
 * cumsum/cumprod and nancumsum/nancumprod (NumPy, with axis) on the scan engine (engine/scan.ts), and their GPUArray methods.
 */
import { DTYPES, DTypeLike, dtype as toDType } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { Stream } from '../cuda/driver';
import { GPUArray } from './gpuarray';
import { registerArrayMethods } from './methods';
import { assign } from './operators';
import { canCast } from '../base/promote';
import { normalizeAxis } from '../base/shape';
import { ParamValue } from '../cuda/args';
import { cumSpec, runScan } from '../engine/scan';
import { checkDevices } from './devices';
import { checkWritable } from './overlap';

/** Options of cumsum/cumprod. */
export interface ScanOptions {
  /** Axis to scan along; the flattened array when null/undefined (NumPy). */
  axis?: number | null;
  /** Accumulate and return in this dtype. */
  dtype?: DTypeLike;
  /** Write the result here (same shape; dtype castable 'same_kind'). */
  out?: GPUArray;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

function cumulative(what: 'cumsum' | 'cumprod' | 'nancumsum' | 'nancumprod') {
  const nan = what.startsWith('nan');
  const op = nan ? (what.slice(3) as 'cumsum' | 'cumprod') : (what as 'cumsum' | 'cumprod');
  return (a: GPUArray, opts?: ScanOptions): GPUArray => {
    if (!(a instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${what}: expected a GPUArray. Received ${describe(a)}`);
    a.check();
    opts = checkedOptions(opts, what, ['axis', 'dtype', 'out', 'stream']);
    const d = a.dtype;
    const acc = opts.dtype !== undefined ? toDType(opts.dtype)
      : d.kind === 'b' || d.kind === 'i' ? DTYPES.int64 : d.kind === 'u' ? DTYPES.uint64 : d;
    const flat = opts.axis === undefined || opts.axis === null;
    const axis = flat ? 0 : normalizeAxis(opts.axis as number, a.ndim);
    const shape = flat ? [a.size] : a.shape.slice();
    const temps: GPUArray[] = [];
    try {
      // The scanned axis last and contiguous.
      let src = a;
      let perm: number[] | null = null;
      if (!flat && axis !== a.ndim - 1) {
        perm = a.shape.map((_, i) => i).filter((i) => i !== axis).concat([axis]);
        src = a.transpose(perm);
      }
      if (!src.flags.cContiguous) temps.push((src = src.copy({ stream: opts.stream }))); // on the scan's stream: no race with it
      const len = flat ? a.size : a.shape[axis];
      const segmented = !flat && len !== a.size;
      const out = opts.out;
      if (out !== undefined) {
        if (!(out instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${what}: out must be a GPUArray`);
        out.check();
        checkWritable(out, what);
        if (out.shape.length !== shape.length || out.shape.some((n, i) => n !== shape[i])) {
          throw rangeError('ERR_SHAPE_MISMATCH', `${what}: out has shape (${out.shape.join(',')}); the result has shape (${shape.join(',')})`);
        }
        if (!canCast(acc, out.dtype, 'same_kind')) {
          throw typeError('ERR_INVALID_DTYPE', `${what}: cannot store a ${acc.name} result in a ${out.dtype.name} out array (same_kind casting)`);
        }
      }
      checkDevices(what, [a], out);
      const direct = out && !perm && out.dtype === acc && out.flags.cContiguous && !overlapping(out, a);
      // Without `out` or a transposition the scanned buffer is the result (C order, the result's shape).
      const own = !out && !perm;
      const dst = direct ? out! : GPUArray.allocate(own ? shape : src.shape, acc, opts.stream);
      if (!direct) temps.push(dst);
      const spec = cumSpec(op, src.dtype, acc, acc, segmented, nan);
      const args: ParamValue[] = [{ ptr: dst.address }, { ptr: src.address }];
      if (segmented) args.push({ dtype: DTYPES.int64, value: BigInt(len) });
      runScan(spec, src.size, args, opts.stream, [dst, src]);
      if (direct) return out!;
      if (own) {
        temps.splice(temps.indexOf(dst), 1); // scanned: it is the result, not a temporary
        return dst;
      }
      const result = out ?? GPUArray.allocate(shape, acc, opts.stream);
      let view = flat ? dst.reshape(shape) : dst;
      if (perm) view = view.transpose(perm.map((_, i) => perm!.indexOf(i)));
      assign(result, view, opts.stream);
      return result;
    } finally {
      for (const t of temps) t.dispose();
    }
  };
}

function overlapping(x: GPUArray, y: GPUArray): boolean {
  return x.alloc === y.alloc;
}

/**
 * Cumulative sum (NumPy): flattened without `axis`; ints accumulate in 64 bits.
 * @example
 * gpuarray.cumsum(a, { axis: 1 });
 */
export const cumsum = cumulative('cumsum');
/** Cumulative product. @example gpuarray.cumprod(a) */
export const cumprod = cumulative('cumprod');
/** Cumulative sum with NaN counted as 0 (NumPy nancumsum). @example gpuarray.nancumsum(a, { axis: 0 }) */
export const nancumsum = cumulative('nancumsum');
/** Cumulative product with NaN counted as 1 (NumPy nancumprod). @example gpuarray.nancumprod(a) */
export const nancumprod = cumulative('nancumprod');

registerArrayMethods({ cumsum, cumprod });
