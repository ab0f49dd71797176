/**
 * numpy.fft's helpers: sample frequencies (computed on the host, then copied) and the shifts
 * that move the zero frequency to the centre.
 */
import { DTypeLike, dtype as toDType } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { normalizeAxis } from '../base/shape';
import { Stream } from '../cuda/driver';
import { GPUArray, arrayArg } from '../array/gpuarray';
import { toGpu } from '../array/creation';
import { assign } from '../array/operators';

/** Options of fftfreq/rfftfreq. */
export interface FreqOptions {
  /** float64 (default) or float32. */
  dtype?: DTypeLike;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

const MAX_FREQ = 2 ** 31 - 1;

function checkN(n: unknown, d: unknown, name: string): void {
  if (typeof n !== 'number' || !Number.isInteger(n)) throw typeError('ERR_INVALID_ARG_TYPE', `${name}: n must be an integer. Received ${describe(n)}`);
  if (n < 1) throw rangeError('ERR_OUT_OF_RANGE', `${name}: n must be at least 1. Received ${n}`);
  // The frequencies are made on the host as float64 (8n bytes): at most 2^31 - 1 of them.
  if (n > MAX_FREQ) throw rangeError('ERR_OUT_OF_RANGE', `${name}: n must be at most ${MAX_FREQ}. Received ${n}`);
  if (typeof d !== 'number' || !Number.isFinite(d) || d === 0) {
    throw typeError('ERR_INVALID_ARG_VALUE', `${name}: d must be a finite, non-zero number. Received ${describe(d)}`);
  }
}

/**
 * The sample frequencies of an n-point DFT with sample spacing d, as NumPy computes them:
 * [0, 1, …, ⌈n/2⌉−1, −⌊n/2⌋, …, −1] / (d·n). Host only. @internal
 * @example
 * fftfreqHost(4, 1) // Float64Array [0, 0.25, -0.5, -0.25]
 */
export function fftfreqHost(n: number, d = 1): Float64Array {
  checkN(n, d, 'fftfreq');
  const out = new Float64Array(n);
  const val = 1 / (n * d);
  const positive = Math.floor((n - 1) / 2) + 1;
  for (let i = 0; i < n; i++) out[i] = (i < positive ? i : i - n) * val;
  return out;
}

/**
 * The n/2+1 non-negative frequencies of rfft: [0, 1, …, ⌊n/2⌋] / (d·n). Host only. @internal
 * @example
 * rfftfreqHost(5, 0.1) // Float64Array [0, 2, 4]
 */
export function rfftfreqHost(n: number, d = 1): Float64Array {
  checkN(n, d, 'rfftfreq');
  const out = new Float64Array(Math.floor(n / 2) + 1);
  const val = 1 / (n * d);
  for (let i = 0; i < out.length; i++) out[i] = i * val;
  return out;
}

function onGpu(host: Float64Array, opts: FreqOptions | undefined, what: string): GPUArray {
  const o = checkedOptions(opts, what, ['dtype', 'stream']); // NumPy 2's device: refused, not ignored
  const dt = toDType(o.dtype ?? 'float64');
  if (dt.kind !== 'f' || dt.bytes === 2) throw typeError('ERR_INVALID_ARG_VALUE', `${what}: dtype must be float32 or float64, not ${dt.name}`);
  return toGpu(dt.name === 'float32' ? Float32Array.from(host) : host, { stream: o.stream });
}

/**
 * Sample frequencies of an n-point DFT (numpy.fft.fftfreq), on the GPU.
 * @example
 * fft.fftfreq(8, 0.1).get(); // Float64Array [0, 1.25, 2.5, 3.75, -5, -3.75, -2.5, -1.25]
 */
export function fftfreq(n: number, d = 1, opts?: FreqOptions): GPUArray {
  return onGpu(fftfreqHost(n, d), opts, 'fftfreq');
}

/**
 * Sample frequencies of rfft (numpy.fft.rfftfreq), on the GPU.
 * @example
 * fft.rfftfreq(8, 0.1).get(); // Float64Array [0, 1.25, 2.5, 3.75, 5]
 */
export function rfftfreq(n: number, d = 1, opts?: FreqOptions): GPUArray {
  return onGpu(rfftfreqHost(n, d), opts, 'rfftfreq');
}

/** Options of fftshift/ifftshift. */
export interface ShiftOptions {
  /** Axes to shift (default: all). */
  axes?: number | readonly number[] | null;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/**
 * Rolls `x` by shift[i] along axes[i] into a new array: 2^k block copies for k axes (each axis
 * splits into the part that wraps and the rest).
 */
function roll(x: GPUArray, axes: number[], shifts: number[], stream: Stream | null | undefined): GPUArray {
  const out = GPUArray.allocate(x.shape, x.dtype, stream);
  try {
    if (x.size === 0) return out;
    for (let mask = 0; mask < 1 << axes.length; mask++) {
      const src = x.shape.map(() => ':'), dst = x.shape.map(() => ':');
      let empty = false;
      axes.forEach((ax, i) => {
        const n = x.shape[ax], k = ((shifts[i] % n) + n) % n;
        // bit clear: x[0 : n-k] → out[k : n]; bit set: x[n-k : n] → out[0 : k]
        const [s0, s1, d0] = mask & (1 << i) ? [n - k, n, 0] : [0, n - k, k];
        if (s1 === s0) empty = true;
        src[ax] = `${s0}:${s1}`;
        dst[ax] = `${d0}:${d0 + s1 - s0}`;
      });
      if (!empty) assign(out.index(...dst), x.index(...src), stream);
    }
    return out;
  } catch (e) {
    out.dispose();
    throw e;
  }
}

function shiftAxes(x: GPUArray, axes: ShiftOptions['axes']): number[] {
  if (axes === undefined || axes === null) return x.shape.map((_, i) => i);
  const list = typeof axes === 'number' ? [axes] : axes;
  if (!Array.isArray(list)) throw typeError('ERR_INVALID_ARG_TYPE', `axes must be an integer or an array of integers. Received ${describe(axes)}`);
  const out = Array.from(list, (a) => normalizeAxis(a, x.ndim)); // a hole reads as undefined: rejected
  if (new Set(out).size !== out.length) throw rangeError('ERR_INVALID_ARG_VALUE', `repeated axis in [${list.join(', ')}]`);
  return out;
}

/**
 * Moves the zero frequency to the centre (numpy.fft.fftshift): a roll by ⌊n/2⌋ along each axis.
 * @example
 * fft.fftshift(fft.fftfreq(5)).get(); // [-0.4, -0.2, 0, 0.2, 0.4]
 */
export function fftshift(x: GPUArray, opts?: ShiftOptions): GPUArray {
  const a = arrayArg(x, 'x');
  const o = checkedOptions(opts, 'fftshift', ['axes', 'stream']);
  const axes = shiftAxes(a, o.axes);
  return roll(a, axes, axes.map((ax) => Math.floor(a.shape[ax] / 2)), o.stream);
}

/**
 * The inverse of fftshift (numpy.fft.ifftshift): a roll by −⌊n/2⌋ along each axis.
 * @example
 * fft.ifftshift(fft.fftshift(x)); // x
 */
export function ifftshift(x: GPUArray, opts?: ShiftOptions): GPUArray {
  const a = arrayArg(x, 'x');
  const o = checkedOptions(opts, 'ifftshift', ['axes', 'stream']);
  const axes = shiftAxes(a, o.axes);
  return roll(a, axes, axes.map((ax) => -Math.floor(a.shape[ax] / 2)), o.stream);
}
