/**
 * numpy.fft over cuFFT: fft/ifft/rfft/irfft and their 2-D and N-D forms, with NumPy's `n`/`s`
 * (crop or zero-pad), `axis`/`axes` and `norm`. Any axis works without moving data when cuFFT's
 * advanced layout can describe it (strides and distances); otherwise the axes go last through a
 * copy. Results are new C-contiguous arrays.
 */
import { DTYPES, DType } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { normalizeAxis, sizeOf } from '../base/shape';
import { Stream, streamHandle } from '../cuda/driver';
import { useOn } from '../cuda/memory';
import { CUFFT_TYPE, cufftVersion } from '../cuda/cufft';
import { GPUArray, arrayArg } from '../array/gpuarray';
import { apply, assign } from '../array/operators';
import { zeros } from '../array/creation';
import { PlanGeometry, execute } from './plan';

/** NumPy's normalization modes: which direction is scaled (by 1/n, or both by 1/√n). */
export type FftNorm = 'backward' | 'ortho' | 'forward';

/** Options of the 1-D transforms. */
export interface FftOptions {
  /** Length of the transformed axis of the input (cropped or zero-padded); irfft: the output length. */
  n?: number | null;
  /** The axis to transform (default -1). */
  axis?: number;
  /** Default 'backward': forward unscaled, inverse scaled by 1/n. */
  norm?: FftNorm | null;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of the 2-D and N-D transforms. */
export interface FftNOptions {
  /** Sizes along `axes` (like `n` per axis). */
  s?: readonly number[] | null;
  /** Axes to transform (fft2: [-2, -1]; fftn: the last `s.length`, or all). */
  axes?: readonly number[] | null;
  /** Default 'backward': forward unscaled, inverse scaled by 1/n (n: the product of the transformed sizes). */
  norm?: FftNorm | null;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** @internal */
export type Kind = 'c2c' | 'r2c' | 'c2r';

// Axes a step of a transform may loop over with pointer offsets before the axes are moved last
// through a copy instead (each execution costs a few microseconds of CPU).
const LOOP_MAX = 32;

const REAL_OF: Partial<Record<string, DType>> = { complex64: DTYPES.float32, complex128: DTYPES.float64 };
const COMPLEX_OF: Partial<Record<string, DType>> = { float32: DTYPES.complex64, float64: DTYPES.complex128 };

/**
 * The dtype a transform computes in. Complex stays; float32, float16 and bfloat16 go to complex64
 * (like CuPy and NumPy 2; cuFFT has no general bfloat16 transform); float64, integers and bool go
 * to complex128 (NumPy). rfft takes real input only (complex is a TypeError, as in CuPy). @internal
 */
export function workDtype(kind: Kind, dt: DType, name: string): DType {
  const single = dt.name === 'float32' || dt.name === 'float16' || dt.name === 'bfloat16';
  if (kind === 'r2c') {
    if (dt.kind === 'c') {
      throw typeError('ERR_INVALID_ARG_TYPE', `${name}: the input must be real, not ${dt.name} (use fft for complex input)`);
    }
    return single ? DTYPES.float32 : DTYPES.float64;
  }
  if (dt.kind === 'c') return dt;
  return single ? DTYPES.complex64 : DTYPES.complex128;
}

function cufftType(kind: Kind, w: DType): number {
  const double = w.name === 'float64' || w.name === 'complex128';
  if (kind === 'c2c') return double ? CUFFT_TYPE.Z2Z : CUFFT_TYPE.C2C;
  if (kind === 'r2c') return double ? CUFFT_TYPE.D2Z : CUFFT_TYPE.R2C;
  return double ? CUFFT_TYPE.Z2D : CUFFT_TYPE.C2R;
}

function normArg(norm: unknown, name: string): FftNorm {
  if (norm === undefined || norm === null) return 'backward';
  if (norm === 'backward' || norm === 'ortho' || norm === 'forward') return norm;
  throw typeError('ERR_INVALID_ARG_VALUE',
    `${name}: norm must be 'backward', 'ortho' or 'forward'. Received ${describe(norm)}`);
}

function sizeArg(v: unknown, name: string): number {
  if (typeof v !== 'number') throw typeError('ERR_INVALID_ARG_TYPE', `${name} must be a number. Received ${describe(v)}`);
  if (!Number.isInteger(v) || v < 1) {
    // NumPy: ValueError "Invalid number of FFT data points (0) specified."
    throw rangeError('ERR_OUT_OF_RANGE', `Invalid number of FFT data points (${v}) specified (${name})`);
  }
  if (!Number.isSafeInteger(v)) throw rangeError('ERR_OUT_OF_RANGE', `${name} must be at most 2^53 - 1. Received ${v}`);
  return v;
}

/** Normalized axes (unique) and sizes per axis, NumPy's defaults filled in. @internal */
export function resolve(x: { ndim: number; shape: readonly number[] }, kind: Kind, axesIn: readonly number[] | null | undefined,
  sIn: readonly number[] | null | undefined, name: string): { axes: number[]; s: number[] } {
  if (sIn !== undefined && sIn !== null && !Array.isArray(sIn)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `${name}: s must be an array of sizes. Received ${describe(sIn)}`);
  }
  if (axesIn !== undefined && axesIn !== null && !Array.isArray(axesIn)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `${name}: axes must be an array of integers. Received ${describe(axesIn)}`);
  }
  if (x.ndim === 0) throw rangeError('ERR_AXIS_OUT_OF_RANGE', `${name}: the input must have at least one dimension`);
  // Array.from: a hole reads as undefined, which the checks below reject (map and Set skip holes).
  if (sIn) sIn = Array.from(sIn);
  const axes = axesIn ? Array.from(axesIn) : sIn ? sIn.map((_, i) => i - sIn!.length) : x.shape.map((_, i) => i);
  const norm = axes.map((a) => normalizeAxis(a, x.ndim));
  if (new Set(norm).size !== norm.length) throw rangeError('ERR_INVALID_ARG_VALUE', `${name}: repeated axis in [${axes.join(', ')}]`);
  if (norm.length === 0) throw rangeError('ERR_INVALID_ARG_VALUE', `${name}: no axes to transform`);
  if (sIn && sIn.length !== norm.length) {
    throw rangeError('ERR_INVALID_ARG_VALUE', `${name}: s has ${sIn.length} sizes for ${norm.length} axes`);
  }
  const s = norm.map((ax, i) => {
    if (sIn) return sizeArg(sIn[i], `${name}: s[${i}]`);
    const len = x.shape[ax];
    return sizeArg(kind === 'c2r' && i === norm.length - 1 ? 2 * (len - 1) : len, `${name}: the length of axis ${ax}`);
  });
  return { axes: norm, s };
}

let cufftLoaded = false;

/** A C-contiguous copy of `x` as `dt` with each dimension cropped or zero-padded to `shape`. */
function stage(x: GPUArray, dt: DType, shape: number[], stream: Stream | null | undefined): GPUArray {
  const pad = shape.some((n, d) => n > x.shape[d]);
  const out = pad ? zeros(shape, dt, { stream }) : GPUArray.allocate(shape, dt, stream);
  try {
    const common = shape.map((n, d) => Math.min(n, x.shape[d]));
    if (sizeOf(common) === 0) return out;
    const part = (a: GPUArray): GPUArray => (common.every((n, d) => n === a.shape[d]) ? a : a.index(...common.map((n) => `0:${n}`)));
    assign(part(out), part(x), stream);
    return out;
  } catch (e) {
    out.dispose();
    throw e;
  }
}

const prod = (xs: readonly number[]): number => xs.reduce((p, n) => p * n, 1);

/** One cuFFT execution: a plan geometry and element offsets into the input and output. @internal */
export interface Exec { g: PlanGeometry; ioff: number; ooff: number }

/**
 * Which pointer of a transform of this cufftType is real: R2C/D2Z's input, C2R/Z2D's output.
 * cuFFT rejects a real pointer not aligned to the complex type at execution (CUFFT_INVALID_VALUE),
 * so it must lie an even number of real elements from an aligned start. @internal
 */
export function realSide(type: number): 'input' | 'output' | null {
  if (type === CUFFT_TYPE.R2C || type === CUFFT_TYPE.D2Z) return 'input';
  if (type === CUFFT_TYPE.C2R || type === CUFFT_TYPE.Z2D) return 'output';
  return null;
}

/**
 * The executions that transform the dimensions [d0, d0 + k) (k ≤ 3) of a C-contiguous array of
 * shape S into one of shape D (equal outside the block), with both arrays starting aligned to the
 * complex type; or null when the block must first be moved last (both the dimensions before and
 * after it are many, or a loop would put a real pointer at an odd element offset). @internal
 */
export function layouts(type: number, S: readonly number[], D: readonly number[], d0: number, k: number): Exec[] | null {
  const outer = prod(S.slice(0, d0)), inner = prod(S.slice(d0 + k));
  const inembed = S.slice(d0, d0 + k), onembed = D.slice(d0, d0 + k);
  const real = realSide(type);
  const n = real === 'output' ? onembed : inembed; // the real side's sizes
  const iblock = prod(inembed) * inner, oblock = prod(onembed) * inner;
  const at = (istride: number, idist: number, ostride: number, odist: number, batch: number, ioff: number, ooff: number): Exec =>
    ({ g: { type, n, inembed, istride, idist, onembed, ostride, odist, batch }, ioff, ooff });
  if (inner === 1) return [at(1, iblock, 1, oblock, outer, 0, 0)];
  // Batch along the inner dimensions, one execution per outer index.
  const byOuter = outer <= LOOP_MAX
    ? Array.from({ length: outer }, (_, o) => at(inner, 1, inner, 1, inner, o * iblock, o * oblock)) : null;
  // Batch along the outer dimensions, one execution per inner index (odd real offsets: never for R2C/C2R).
  const byInner = inner <= LOOP_MAX
    ? Array.from({ length: inner }, (_, i) => at(inner, iblock, inner, oblock, outer, i, i)) : null;
  const aligned = (runs: Exec[]): boolean => real === null || runs.every((r) => (real === 'input' ? r.ioff : r.ooff) % 2 === 0);
  for (const runs of outer <= inner ? [byOuter, byInner] : [byInner, byOuter]) if (runs && aligned(runs)) return runs;
  return null;
}

/**
 * One cuFFT transform of the dimensions [d0, d0 + k) (k ≤ 3) from `src` to `dst` (both
 * C-contiguous, equal outside the block; the same array: in place).
 */
function step(type: number, src: GPUArray, dst: GPUArray, d0: number, k: number, inverse: boolean,
  stream: Stream | null | undefined): void {
  const S = src.shape, D = dst.shape;
  // layouts() assumes both arrays start aligned to the complex type; a real view at an odd
  // element offset (rfft of a[1:]) goes through the aligned copies below.
  const real = realSide(type), realArray = real === 'input' ? src : real === 'output' ? dst : null;
  const runs = !realArray || realArray.align16 % (2 * realArray.dtype.bytes) === 0 ? layouts(type, S, D, d0, k) : null;
  if (runs) {
    const h = streamHandle(stream);
    useOn(src, h);
    useOn(dst, h);
    const ib = src.dtype.bytes, ob = dst.dtype.bytes;
    for (const r of runs) execute(r.g, src.ptr + BigInt(r.ioff * ib), dst.ptr + BigInt(r.ooff * ob), inverse, stream);
    return;
  }
  // Move the block last through copies.
  const nd = S.length;
  const perm = [...S.keys()].filter((d) => d < d0 || d >= d0 + k).concat(Array.from({ length: k }, (_, i) => d0 + i));
  const inv = perm.map((_, i) => perm.indexOf(i));
  const srcT = GPUArray.allocate(perm.map((d) => S[d]), src.dtype, stream);
  let dstT: GPUArray | null = null;
  try {
    assign(srcT, src.transpose(perm), stream);
    dstT = GPUArray.allocate(perm.map((d) => D[d]), dst.dtype, stream);
    step(type, srcT, dstT, nd - k, k, inverse, stream);
    assign(dst, dstT.transpose(inv), stream);
  } finally {
    srcT.dispose();
    dstT?.dispose();
  }
}

/** Sorted axes as runs of consecutive dimensions, each at most 3 long (cuFFT's largest rank). */
function blocks(axes: readonly number[]): Array<[number, number]> {
  const sorted = [...axes].sort((a, b) => a - b);
  const out: Array<[number, number]> = [];
  for (const a of sorted) {
    const last = out[out.length - 1];
    if (last && last[0] + last[1] === a && last[1] < 3) last[1]++;
    else out.push([a, 1]);
  }
  return out;
}

/** Whether `axes` (in the given order) are consecutive ascending dimensions, at most 3. */
function oneBlock(axes: readonly number[]): boolean {
  return axes.length <= 3 && axes.every((a, i) => a === axes[0] + i);
}

function scale(a: GPUArray, norm: FftNorm, inverse: boolean, n: number, stream: Stream | null | undefined): void {
  const f = norm === 'ortho' ? 1 / Math.sqrt(n) : (norm === 'forward') !== inverse ? 1 / n : 1;
  if (f !== 1) apply('mul', [a, f], { out: a, stream });
}

/** The transform behind every public function. @internal */
export function transform(name: string, kind: Kind, a: unknown, axesIn: readonly number[] | null | undefined,
  sIn: readonly number[] | null | undefined, inverse: boolean, normIn: unknown, stream: Stream | null | undefined): GPUArray {
  const x = arrayArg(a, 'a');
  const norm = normArg(normIn, name);
  const w = workDtype(kind, x.dtype, name);
  const { axes, s } = resolve(x, kind, axesIn, sIn, name);
  const last = axes.length - 1;
  const inShape = [...x.shape], outShape = [...x.shape];
  axes.forEach((ax, i) => {
    const half = Math.floor(s[i] / 2) + 1;
    inShape[ax] = kind === 'c2r' && i === last ? half : s[i];
    outShape[ax] = kind === 'r2c' && i === last ? half : s[i];
  });
  const outDt = kind === 'r2c' ? COMPLEX_OF[w.name]! : kind === 'c2r' ? REAL_OF[w.name]! : w;
  if (sizeOf(outShape) === 0) return GPUArray.allocate(outShape, outDt, stream); // nothing to transform
  // libcufft first, until it has loaded once: without it the call fails before staging a copy
  // (fft(v, { n: 2 ** 28 }) would otherwise allocate and zero 2 GiB, then fail).
  if (!cufftLoaded) {
    cufftVersion();
    cufftLoaded = true;
  }
  // C2R overwrites its input: it always gets a copy. Otherwise a copy only to convert or reshape.
  const copy = kind === 'c2r' || w !== x.dtype || !x.flags.cContiguous || inShape.some((n, d) => n !== x.shape[d]);
  const src = copy ? stage(x, w, inShape, stream) : x;
  let out: GPUArray | null = null;
  try {
    const type = cufftType(kind, w);
    if (kind === 'c2c') {
      const runs = blocks(axes); // separable: any order, any grouping
      out = copy ? src : GPUArray.allocate(outShape, outDt, stream);
      runs.forEach(([d0, k], i) => step(type, i === 0 ? src : out!, out!, d0, k, inverse, stream));
    } else {
      out = GPUArray.allocate(outShape, outDt, stream);
      const single = oneBlock(axes);
      const rest = single ? [] : blocks(axes.slice(0, last));
      const realStep = single ? [axes[0], axes.length] : [axes[last], 1];
      const c2c = w.name === 'float64' || w.name === 'complex128' ? CUFFT_TYPE.Z2Z : CUFFT_TYPE.C2C;
      // NumPy's order: rfftn = rfft on the last axis, then fft on the others; irfftn the reverse.
      if (kind === 'c2r') for (const [d0, k] of rest) step(c2c, src, src, d0, k, true, stream);
      step(type, src, out, realStep[0], realStep[1], inverse, stream);
      if (kind === 'r2c') for (const [d0, k] of rest) step(c2c, out, out, d0, k, false, stream);
    }
    scale(out, norm, inverse, prod(s), stream);
    return out;
  } catch (e) {
    if (out && out !== x) out.dispose();
    throw e;
  } finally {
    if (src !== x && src !== out) src.dispose();
  }
}

function axisOf(opts: FftOptions): number[] {
  return [opts.axis === undefined ? -1 : opts.axis];
}

function nOf(opts: FftOptions): number[] | null {
  return opts.n === undefined || opts.n === null ? null : [opts.n];
}

/** A 1-D transform: `a` transformed along `opts.axis`, as a new array. */
export type FftTransform = (a: GPUArray, opts?: FftOptions) => GPUArray;
/** A 2-D or N-D transform: `a` transformed along `opts.axes`, as a new array. */
export type FftTransformN = (a: GPUArray, opts?: FftNOptions) => GPUArray;

function oneD(name: string, kind: Kind, inverse: boolean): FftTransform {
  return (a, opts) => {
    const o = checkedOptions<FftOptions>(opts, name, ['n', 'axis', 'norm', 'stream']); // CuPy's or NumPy 2's out: refused, not ignored
    const n = nOf(o);
    if (n) {
      arrayArg(a, 'a'); // the input's errors first, as for the other arguments
      sizeArg(n[0], `${name}: n`); // named as the caller wrote it (resolve names s[0])
    }
    return transform(name, kind, a, axisOf(o), n, inverse, o.norm, o.stream);
  };
}

function nD(name: string, kind: Kind, inverse: boolean, twoD: boolean): FftTransformN {
  return (a, opts) => {
    const o = checkedOptions<FftNOptions>(opts, name, ['s', 'axes', 'norm', 'stream']);
    const axes = twoD ? (o.axes ?? [-2, -1]) : o.axes; // NumPy: fft2's axes default even with s
    return transform(name, kind, a, axes, o.s, inverse, o.norm, o.stream);
  };
}

/**
 * Discrete Fourier transform along one axis (numpy.fft.fft).
 * @example
 * const X = fft.fft(gpuarray.toGpu(new Float32Array([1, 0, 0, 0]))); // complex64, all ones
 */
export const fft = oneD('fft', 'c2c', false);
/**
 * Inverse DFT along one axis (numpy.fft.ifft).
 * @example
 * const x = fft.ifft(fft.fft(a)); // ≈ a
 */
export const ifft = oneD('ifft', 'c2c', true);
/**
 * DFT of real input, the n/2+1 non-negative frequencies (numpy.fft.rfft).
 * @example
 * fft.rfft(signal).shape; // [n / 2 + 1]
 */
export const rfft = oneD('rfft', 'r2c', false);
/**
 * Inverse of rfft: real output of length `n` (default 2·(m − 1)) (numpy.fft.irfft).
 * @example
 * fft.irfft(fft.rfft(x), { n: x.shape[0] }); // ≈ x, odd lengths too
 */
export const irfft = oneD('irfft', 'c2r', true);
/**
 * 2-D DFT over the last two axes, or `axes` (numpy.fft.fft2).
 * @example
 * fft.fft2(image);
 */
export const fft2 = nD('fft2', 'c2c', false, true);
/**
 * Inverse 2-D DFT (numpy.fft.ifft2).
 * @example
 * fft.ifft2(fft.fft2(image));
 */
export const ifft2 = nD('ifft2', 'c2c', true, true);
/**
 * 2-D DFT of real input (numpy.fft.rfft2).
 * @example
 * fft.rfft2(image).shape; // [h, w / 2 + 1]
 */
export const rfft2 = nD('rfft2', 'r2c', false, true);
/**
 * Inverse of rfft2 (numpy.fft.irfft2).
 * @example
 * fft.irfft2(fft.rfft2(image), { s: image.shape });
 */
export const irfft2 = nD('irfft2', 'c2r', true, true);
/**
 * N-D DFT over `axes` (default: all, or the last `s.length`) (numpy.fft.fftn).
 * @example
 * fft.fftn(volume, { axes: [0, 2] });
 */
export const fftn = nD('fftn', 'c2c', false, false);
/**
 * Inverse N-D DFT (numpy.fft.ifftn).
 * @example
 * fft.ifftn(fft.fftn(volume));
 */
export const ifftn = nD('ifftn', 'c2c', true, false);
/**
 * N-D DFT of real input; the last of `axes` is halved (numpy.fft.rfftn).
 * @example
 * fft.rfftn(volume);
 */
export const rfftn = nD('rfftn', 'r2c', false, false);
/**
 * Inverse of rfftn (numpy.fft.irfftn).
 * @example
 * fft.irfftn(fft.rfftn(volume), { s: volume.shape });
 */
export const irfftn = nD('irfftn', 'c2r', true, false);
