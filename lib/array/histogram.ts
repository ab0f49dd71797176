/**
 * Counting into bins (NumPy 2 semantics): bincount, histogram, histogramBinEdges and digitize.
 * bincount and histogram run one kernel (engine/histogram.ts): small bin counts in per-block
 * shared-memory bins merged with one atomic a bin, many bins with atomics in global memory.
 * Equal-width edges are computed on the host exactly as NumPy's linspace computes them (in the
 * input's float dtype when the range is the data's own), so values on an edge land where NumPy
 * puts them. What reads back: bincount (the min and max: the length and the negative check),
 * histogram without `range` (the data's min and max), explicit edges given as a GPUArray and
 * digitize's bins (their monotonicity). docs/gpuarray.md#histograms-bincount-histogram-digitize.
 */
import { DType, DTYPES, bf16BitsToFloat, floatToBf16Bits, floatToHalfBits, halfBitsToFloat } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { slice } from '../base/indexing';
import { promoteTypes } from '../base/promote';
import { Stream } from '../cuda/driver';
import { GPUArray } from './gpuarray';
import { checkDevices } from './devices';
import { toGpu, zeros } from './creation';
import { binaryFunctions } from './operators';
import { sum } from './reductions';
import { searchsorted } from './selection';
import { arrayIn } from './sorting';
import { uniqueMinMax } from '../engine/sort';
import { histRange, runHistogram } from '../engine/histogram';

/** The bins of a histogram: a count of equal-width bins, or the edges themselves (sorted, the rightmost included). */
export type HistogramBins = number | GPUArray | readonly number[];

/** Options of gpuarray.bincount. */
export interface BincountOptions {
  /** Weights of x's shape (any real dtype, summed in float64): the result is their sum per value, float64. */
  weights?: GPUArray | null;
  /** The least length of the result (default 0). */
  minlength?: number;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of gpuarray.histogram. */
export interface HistogramOptions {
  /** A count of equal-width bins (default 10), or the edges: a 1-D GPUArray or numbers, increasing. */
  bins?: HistogramBins;
  /** [lo, hi] of the equal-width bins (default the data's min and max); ignored with explicit edges. */
  range?: readonly [number, number] | null;
  /** Weights of a's shape: each element adds its weight, not 1 (hist takes their dtype). */
  weights?: GPUArray | null;
  /** The density: counts / bin width / total, float64 (complex128 for complex weights). */
  density?: boolean;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of gpuarray.histogramBinEdges. */
export interface HistogramBinEdgesOptions {
  /** A count of equal-width bins (default 10), or the edges: a 1-D GPUArray or numbers, increasing. */
  bins?: HistogramBins;
  /** [lo, hi] of the equal-width bins (default the data's min and max); ignored with explicit edges. */
  range?: readonly [number, number] | null;
  /** Accepted as NumPy's (checked against a's shape; the edges do not depend on it). */
  weights?: GPUArray | null;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** What gpuarray.histogram returns. */
export interface HistogramResult {
  /** Per bin: the count (int64), the sum of the weights (their dtype) or the density (float64). */
  hist: GPUArray;
  /** The bins + 1 edges: a's float dtype (float64 for integers and bool), or the edges given (a copy). */
  binEdges: GPUArray;
}

/** Options of gpuarray.digitize. */
export interface DigitizeOptions {
  /** false (default): bins[i-1] <= x < bins[i] gives i; true: bins[i-1] < x <= bins[i] (increasing bins). */
  right?: boolean;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

// ---- NumPy's arithmetic on the host --------------------------------------------------------------

/** How a float dtype rounds: a double converted to it (`cast`), and the result of one operation (`arith`). */
interface Rounding { cast(x: number): number; arith(x: number): number }
const EXACT: Rounding = { cast: (x) => x, arith: (x) => x };
const halfOf = (x: number): number => halfBitsToFloat(floatToHalfBits(x));
const bf16Of = (x: number): number => bf16BitsToFloat(floatToBf16Bits(x));

/** NumPy's rounding for a dtype (float16 operations run in float32, then round; integers: float64). */
function rounding(dt: DType): Rounding {
  switch (dt.name) {
    case 'float32': return { cast: Math.fround, arith: Math.fround };
    case 'float16': return { cast: halfOf, arith: (x) => halfOf(Math.fround(x)) };
    case 'bfloat16': return { cast: bf16Of, arith: (x) => bf16Of(Math.fround(x)) };
    default: return EXACT;
  }
}

/**
 * NumPy 2's `linspace(start, stop, num)` (endpoint included, num >= 2) with every operation in
 * the dtype whose rounding is `r`: step = (stop - start) / (num - 1), y[i] = i × step + start
 * (i / (num - 1) × delta when the step underflows to 0), the last exactly `stop`. @internal
 */
export function numpyLinspace(start: number, stop: number, num: number, r: Rounding = EXACT): number[] {
  const div = r.cast(num - 1);
  const delta = r.arith(stop - start);
  const step = r.arith(delta / div);
  const out = new Array<number>(num);
  for (let i = 0; i < num - 1; i++) {
    const y = r.cast(i);
    out[i] = r.arith((step === 0 ? r.arith(r.arith(y / div) * delta) : r.arith(y * step)) + start);
  }
  out[num - 1] = stop;
  return out;
}

/**
 * The edges of `bins` equal-width bins as NumPy's histogram makes them for data of `dt`: with a
 * `range` (or no data: [0, 1]) computed in float64, and with the data's min and max `[lo, hi]`
 * in the data's float dtype (float64 for integers and bool); an empty range widened by 0.5 each
 * way; the values then in the edges' dtype (`edgesDType`). Also the range the bins start from.
 * @internal
 */
export function uniformEdges(dt: DType, bins: number, range: readonly [number, number] | null, dataRange: readonly [number, number] | null):
  { edges: number[]; lo: number; hi: number } {
  const own = range === null && dataRange !== null;
  const r = own && dt.kind === 'f' ? rounding(dt) : EXACT;
  let [lo, hi] = range ?? dataRange ?? [0, 1];
  if (lo === hi) {
    lo = r.arith(lo - 0.5);
    hi = r.arith(hi + 0.5);
  }
  const cast = rounding(edgesDType(dt)).cast;
  return { edges: numpyLinspace(lo, hi, bins + 1, r).map(cast), lo, hi };
}

/** The dtype of computed edges: the data's float dtype, float64 for integers and bool. @internal */
export function edgesDType(dt: DType): DType {
  return dt.kind === 'f' ? dt : DTYPES.float64;
}

/** NumPy's `_monotonicity` of values in float64: 1 increasing (or all equal, or none), -1 decreasing, 0 neither. @internal */
export function monotonicity(h: ArrayLike<number>): 1 | -1 | 0 {
  const n = h.length;
  let i = 1;
  while (i < n && h[i] === h[0]) i++;
  if (i >= n) return 1;
  let next = h[i];
  const up = h[0] < next;
  for (i++; i < n; i++) {
    const last = next;
    next = h[i];
    if (up ? last > next : last < next) return 0;
  }
  return up ? 1 : -1;
}

// ---- arguments ---------------------------------------------------------------------------------

type Temps = GPUArray[];

/** `a` itself when C-contiguous, else a contiguous copy (kept in `temps`). */
function contiguous(a: GPUArray, stream: Stream | null | undefined, temps: Temps): GPUArray {
  if (a.flags.cContiguous) return a;
  const c = a.copy({ stream });
  temps.push(c);
  return c;
}

/** The values of a (small) array as float64 on the host: read back, after the stream. */
function hostDoubles(a: GPUArray, stream: Stream | null | undefined): Float64Array {
  const d = a.dtype === DTYPES.float64 ? a : a.astype(DTYPES.float64, { stream });
  try {
    if (stream) stream.synchronize();
    return d.get() as Float64Array;
  } finally {
    if (d !== a) d.dispose();
  }
}

function boolOption(what: string, name: string, v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw typeError('ERR_INVALID_ARG_TYPE', `${what}: ${name} must be a boolean. Received ${describe(v)}`);
  return v;
}

/** A real array argument (`name` of `what`): complex is a TypeError. */
function realArray(what: string, name: string, a: unknown): GPUArray {
  if (!(a instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${what}: ${name} must be a GPUArray. Received ${describe(a)}`);
  a.check();
  if (a.dtype.kind === 'c') throw typeError('ERR_INVALID_DTYPE', `${what}: ${name} may not be complex. Received ${a.dtype.name}`);
  return a;
}

/** The weights option: null, or a GPUArray of `shape` (any dtype unless `real`). */
function weightsOf(what: string, w: unknown, shape: readonly number[], real: boolean): GPUArray | null {
  if (w === undefined || w === null) return null;
  if (!(w instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${what}: weights must be a GPUArray. Received ${describe(w)}`);
  w.check();
  if (real && w.dtype.kind === 'c') {
    throw typeError('ERR_INVALID_DTYPE', `${what}: weights are summed in float64 and may not be complex. Received ${w.dtype.name}`);
  }
  if (w.shape.length !== shape.length || w.shape.some((d, i) => d !== shape[i])) {
    throw rangeError('ERR_SHAPE_MISMATCH', `${what}: weights must have the shape of the data (${shape.join(',')}). Received (${w.shape.join(',')})`);
  }
  return w;
}

/** Parsed bins: a count of equal-width bins, or explicit edges (a GPUArray or host numbers). */
type BinsSpec = { count: number } | { array: GPUArray } | { list: readonly number[] };

function binsOf(what: string, bins: unknown): BinsSpec {
  if (bins === undefined) return { count: 10 };
  if (typeof bins === 'number' || typeof bins === 'bigint') {
    const n = Number(bins);
    if (!Number.isSafeInteger(n)) {
      throw typeError('ERR_INVALID_ARG_TYPE', `${what}: bins must be an integer, an array of edges or a GPUArray. Received ${describe(bins)}`);
    }
    if (n < 1) throw rangeError('ERR_OUT_OF_RANGE', `${what}: bins must be positive, when an integer. Received ${n}`);
    return { count: n };
  }
  if (typeof bins === 'string') {
    throw typeError('ERR_INVALID_ARG_VALUE', `${what}: bin estimators ('auto', 'fd', 'sturges' …) are not supported: pass a count or the edges. Received ${describe(bins)}`);
  }
  if (Array.isArray(bins)) {
    if (!bins.every((v) => typeof v === 'number')) throw typeError('ERR_INVALID_ARG_TYPE', `${what}: bins given as an array must hold numbers`);
    return { list: bins as number[] };
  }
  if (bins instanceof GPUArray) {
    const a = realArray(what, 'bins', bins);
    if (a.ndim !== 1) throw rangeError('ERR_INVALID_ARG_VALUE', `${what}: bins must be 1-D, when an array. Received shape (${a.shape.join(',')})`);
    return { array: a };
  }
  throw typeError('ERR_INVALID_ARG_TYPE', `${what}: bins must be an integer, an array of edges or a GPUArray. Received ${describe(bins)}`);
}

function rangeOf(what: string, range: unknown): readonly [number, number] | null {
  if (range === undefined || range === null) return null;
  if (!Array.isArray(range) || range.length !== 2 || !range.every((v) => typeof v === 'number')) {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what}: range must be [lo, hi] (two numbers). Received ${describe(range)}`);
  }
  const [lo, hi] = range as [number, number];
  if (lo > hi) throw rangeError('ERR_OUT_OF_RANGE', `${what}: max must be larger than min in range parameter. Received [${lo}, ${hi}]`);
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) throw rangeError('ERR_OUT_OF_RANGE', `${what}: supplied range of [${lo}, ${hi}] is not finite`);
  return [lo, hi];
}

/** histogram's and histogramBinEdges' arguments: bins as the second argument or an option, never both. */
function histogramArgs<T extends { bins?: HistogramBins }>(what: string, b: unknown, opts: T | undefined, keys: readonly string[]):
  { o: T; bins: unknown } {
  if (b !== null && typeof b === 'object' && !(b instanceof GPUArray) && !Array.isArray(b) && !ArrayBuffer.isView(b)) {
    if (opts !== undefined) throw typeError('ERR_INVALID_ARG_TYPE', `${what}: the options were given twice (the second and third arguments)`);
    const o = checkedOptions(b as T, what, keys);
    return { o, bins: o.bins };
  }
  const o = checkedOptions(opts, what, keys);
  if (b !== undefined && o.bins !== undefined) throw typeError('ERR_INVALID_ARG_VALUE', `${what}: bins was given twice (an argument and an option)`);
  return { o, bins: b ?? o.bins };
}

/**
 * histogram's and histogramBinEdges' arguments, each read once and checked before anything runs:
 * the options, the bins, the data (complex refused), the weights (a's shape) and their devices.
 */
function histogramInputs(what: string, a: unknown, bins: unknown, opts: HistogramOptions | undefined, keys: readonly string[]):
  { o: HistogramOptions; spec: BinsSpec; data: GPUArray; weights: GPUArray | null; density: boolean } {
  const { o, bins: b } = histogramArgs(what, bins, opts, keys);
  const density = boolOption(what, 'density', o.density);
  const spec = binsOf(what, b);
  const data = arrayIn(what, a);
  if (data.dtype.kind === 'c') throw typeError('ERR_INVALID_DTYPE', `${what}: complex data is not supported. Received ${data.dtype.name}`);
  const weights = weightsOf(what, o.weights, data.shape, false);
  checkDevices(what, [data, weights ?? undefined, 'array' in spec ? spec.array : undefined]);
  return { o, spec, data, weights, density };
}

// ---- edges ---------------------------------------------------------------------------------------

interface Edges {
  /** bins + 1 edges on the device, contiguous: the result's binEdges (a new array, in `temps` until returned). */
  array: GPUArray;
  /** Their values on the host (for density). */
  host: ArrayLike<number>;
  /** Equal-width bins: the range they divide (the kernel's first guess). */
  uniform?: { lo: number; hi: number };
}

/** Host values of a float dtype as a new GPUArray of it. */
function upload(vals: readonly number[], dt: DType, stream: Stream | null | undefined): GPUArray {
  let host: ArrayBufferView;
  if (dt.name === 'float16') host = Uint16Array.from(vals, floatToHalfBits);
  else if (dt.name === 'bfloat16') host = Uint16Array.from(vals, floatToBf16Bits);
  else host = dt.name === 'float32' ? Float32Array.from(vals) : Float64Array.from(vals);
  return toGpu(host, { dtype: dt.name, stream });
}

/** The data's min and max (read back): exact for integers and bool; a NaN or infinite one is NumPy's ValueError. */
function dataRange(what: string, src: GPUArray, stream: Stream | null | undefined, temps: Temps): [number, number] {
  const dt = src.dtype;
  if (dt.kind === 'f') {
    const r = GPUArray.allocate([2], DTYPES.float64, stream);
    temps.push(r);
    histRange(dt, src.address, src.align16, src.size, r.address, stream, [src, r]);
    if (stream) stream.synchronize();
    const [lo, hi] = r.get() as Float64Array;
    if (!Number.isFinite(lo) || !Number.isFinite(hi)) throw rangeError('ERR_OUT_OF_RANGE', `${what}: autodetected range of [${lo}, ${hi}] is not finite`);
    return [lo, hi];
  }
  const r = GPUArray.allocate([2], dt.kind === 'i' ? DTYPES.int64 : DTYPES.uint64, stream);
  temps.push(r);
  uniqueMinMax(dt, src.address, src.align16, src.size, r.address, stream, [src, r]);
  if (stream) stream.synchronize();
  const [lo, hi] = r.get() as BigInt64Array | BigUint64Array;
  if (lo > hi) throw rangeError('ERR_OUT_OF_RANGE', `${what}: read back the range [${lo}, ${hi}] (the device result is invalid)`);
  return [Number(lo), Number(hi)];
}

/** The edges of a histogram of `src` (contiguous `a`): computed (see uniformEdges) or given (checked increasing). */
function edgesFor(what: string, src: GPUArray, spec: BinsSpec, range: unknown, stream: Stream | null | undefined, temps: Temps): Edges {
  if ('count' in spec) {
    const r = rangeOf(what, range);
    const own = r === null && src.size > 0 ? dataRange(what, src, stream, temps) : null;
    const { edges, lo, hi } = uniformEdges(src.dtype, spec.count, r, own);
    const array = upload(edges, edgesDType(src.dtype), stream);
    temps.push(array);
    return { array, host: edges, uniform: { lo, hi } };
  }
  let array: GPUArray;
  let host: ArrayLike<number>;
  if ('list' in spec) {
    host = spec.list;
    array = toGpu(Float64Array.from(spec.list), { stream });
    temps.push(array);
  } else {
    host = hostDoubles(spec.array, stream);
    array = spec.array.copy({ stream });
    temps.push(array);
  }
  for (let i = 0; i + 1 < host.length; i++) {
    if (host[i] > host[i + 1]) throw rangeError('ERR_INVALID_ARG_VALUE', `${what}: bins must increase monotonically, when an array`);
  }
  return { array, host };
}

// ---- the functions -------------------------------------------------------------------------------

/**
 * How often each value occurs in a 1-D array of non-negative integers (NumPy `bincount`): int64
 * counts of length max(x) + 1 (at least `minlength`), or with `weights` the float64 sums of the
 * weights per value. x may be any integer dtype or bool (a float dtype is a TypeError); a negative
 * value is a RangeError. Reads the min and max back (one small read back), so it waits for the
 * stream. An empty x gives int64 zeros of length `minlength`, as NumPy.
 * @example
 * gpuarray.bincount(gpuarray.toGpu(new Int32Array([0, 1, 1, 3]))).get(); // BigInt64Array [1n, 2n, 0n, 1n]
 * gpuarray.bincount(x, { weights: w, minlength: 10 }); // float64 sums
 */
export function bincount(x: GPUArray, opts?: BincountOptions): GPUArray {
  const o = checkedOptions(opts, 'bincount', ['weights', 'minlength', 'stream']);
  const { stream } = o;
  const minlength = o.minlength === undefined ? 0 : o.minlength;
  const weightsArg = o.weights;
  x = arrayIn('bincount', x);
  if (!'biu'.includes(x.dtype.kind)) {
    throw typeError('ERR_INVALID_DTYPE', `bincount: x must hold integers (or bool). Received ${x.dtype.name}`);
  }
  if (x.ndim !== 1) throw rangeError('ERR_INVALID_ARG_VALUE', `bincount: x must be 1-D. Received shape (${x.shape.join(',')})`);
  if (typeof minlength !== 'number' || !Number.isSafeInteger(minlength)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `bincount: minlength must be an integer (use 0, not null). Received ${describe(minlength)}`);
  }
  if (minlength < 0) throw rangeError('ERR_OUT_OF_RANGE', `bincount: minlength must not be negative. Received ${minlength}`);
  const n = x.size;
  // NumPy returns int64 zeros for an empty x without looking at the weights' dtype or length.
  const weights = weightsOf('bincount', weightsArg, n === 0 ? (weightsArg as GPUArray | null)?.shape ?? [] : x.shape, n > 0);
  checkDevices('bincount', [x, weights ?? undefined]);
  if (n === 0) return zeros([minlength], DTYPES.int64, { stream });
  const temps: Temps = [];
  try {
    const src = contiguous(x, stream, temps);
    const r = GPUArray.allocate([2], x.dtype.kind === 'i' ? DTYPES.int64 : DTYPES.uint64, stream);
    temps.push(r);
    uniqueMinMax(x.dtype, src.address, src.align16, n, r.address, stream, [src, r]);
    if (stream) stream.synchronize();
    const [lo, hi] = r.get() as BigInt64Array | BigUint64Array;
    if (lo > hi) throw rangeError('ERR_OUT_OF_RANGE', `bincount: read back the range [${lo}, ${hi}] (the device result is invalid)`);
    // uint64 values from 2^63 on are negative as NumPy's intp.
    if (lo < 0n || hi >= 1n << 63n) throw rangeError('ERR_OUT_OF_RANGE', `bincount: x must have no negative elements. Received ${lo < 0n ? lo : hi}`);
    if (hi >= BigInt(Number.MAX_SAFE_INTEGER)) throw rangeError('ERR_OUT_OF_RANGE', `bincount: the largest value ${hi} is too large for a result`);
    const bins = Math.max(Number(hi) + 1, minlength);
    const out = GPUArray.allocate([bins], weights ? DTYPES.float64 : DTYPES.int64, stream);
    temps.push(out);
    const w = weights ? contiguous(weights, stream, temps) : null;
    runHistogram({
      x: x.dtype, input: src.address, n, bins, out: out.address, weights: w && { dt: w.dtype, address: w.address }, stream,
      uses: [src, w, out],
    });
    temps.splice(temps.indexOf(out), 1);
    return out;
  } finally {
    for (const t of temps) t.dispose();
  }
}

/**
 * The edges of the bins a histogram of `a` would use (NumPy `histogram_bin_edges`): `bins` + 1
 * equal-width edges over `range` (default: a's min and max, read back), in a's float dtype
 * (float64 for integers and bool), computed as NumPy computes them; or the edges given, as a
 * new array (a copy of a GPUArray; numbers become float64). Bins may be the second argument or
 * an option.
 * @example
 * gpuarray.histogramBinEdges(a, 4, { range: [0, 1] }).get(); // Float32Array [0, 0.25, 0.5, 0.75, 1] for float32 a
 */
export function histogramBinEdges(a: GPUArray, bins?: HistogramBins | HistogramBinEdgesOptions, opts?: HistogramBinEdgesOptions): GPUArray {
  const { o, spec, data } = histogramInputs('histogramBinEdges', a, bins, opts, ['bins', 'range', 'weights', 'stream']);
  const { stream } = o;
  const temps: Temps = [];
  try {
    const edges = edgesFor('histogramBinEdges', contiguous(data, stream, temps), spec, o.range, stream, temps);
    temps.splice(temps.indexOf(edges.array), 1);
    return edges.array;
  } finally {
    for (const t of temps) t.dispose();
  }
}

/**
 * The histogram of the flattened `a` (NumPy `histogram`): `{ hist, binEdges }`. `bins`: a count
 * of equal-width bins over `range` (default a's min and max, read back; NaN or ±Inf there is a
 * RangeError, as NumPy's ValueError) or the increasing edges. Bin i holds
 * binEdges[i] <= v < binEdges[i + 1], the last one also its right edge; values outside, and
 * NaN, are not counted. hist: int64 counts; with `weights` their sums (summed in float64, then
 * in the weights' dtype); with `density` float64 counts / width / total. Bins may be the second
 * argument or an option. bool data counts as uint8 (NumPy); complex data is a TypeError.
 * @example
 * const { hist, binEdges } = gpuarray.histogram(gpuarray.toGpu([1, 2, 1]), { bins: [0, 1, 2, 3] });
 * hist.get(); // BigInt64Array [0n, 2n, 1n]
 * gpuarray.histogram(x, 100, { range: [0, 1], weights: w });
 */
export function histogram(a: GPUArray, bins?: HistogramBins | HistogramOptions, opts?: HistogramOptions): HistogramResult {
  const keys = ['bins', 'range', 'weights', 'density', 'stream'];
  const { o, spec, data, weights, density } = histogramInputs('histogram', a, bins, opts, keys);
  const { stream } = o;
  a = data;
  const temps: Temps = [];
  try {
    const src = contiguous(a, stream, temps);
    const edges = edgesFor('histogram', src, spec, o.range, stream, temps);
    const e = edges.array;
    const nb = Math.max(0, e.size - 1);
    const wd = weights?.dtype ?? null;
    const acc = wd === null ? DTYPES.int64 : wd.kind === 'c' ? DTYPES.complex128 : DTYPES.float64;
    let hist = GPUArray.allocate([nb], acc, stream);
    temps.push(hist);
    const ws = weights ? contiguous(weights, stream, temps) : null;
    const cmp = promoteTypes(a.dtype.kind === 'b' ? DTYPES.uint8 : a.dtype, e.dtype);
    runHistogram({
      x: a.dtype, input: src.address, n: a.size, bins: nb, out: hist.address, weights: ws && { dt: ws.dtype, address: ws.address },
      edges: { dt: e.dtype, cmp, address: e.address, uniform: edges.uniform }, stream, uses: [src, ws, e, hist],
    });
    if (wd !== null && wd !== acc) temps.push((hist = hist.astype(wd, { stream }))); // NumPy's hist: the weights' dtype
    if (density) temps.push((hist = densityOf(hist, edges.host, e.dtype, stream, temps)));
    temps.splice(temps.indexOf(hist), 1);
    temps.splice(temps.indexOf(e), 1);
    return { hist, binEdges: e };
  } finally {
    for (const t of temps) t.dispose();
  }
}

/** NumPy's density: hist / diff(edges) (in the edges' dtype, then float64) / hist.sum(). */
function densityOf(hist: GPUArray, edges: ArrayLike<number>, dt: DType, stream: Stream | null | undefined, temps: Temps): GPUArray {
  const r = rounding(dt);
  const db = new Float64Array(hist.size);
  for (let i = 0; i < db.length; i++) db[i] = r.arith(edges[i + 1] - edges[i]);
  const width = toGpu(db, { stream });
  temps.push(width);
  const total = sum(hist, { stream });
  temps.push(total);
  const q = binaryFunctions.div(hist, width, { stream });
  try {
    return binaryFunctions.div(q, total, { out: q, stream });
  } catch (err) {
    q.dispose();
    throw err;
  }
}

/**
 * The index of the bin each element of `x` falls in (NumPy `digitize`), int64 of x's shape.
 * Increasing bins: i with bins[i-1] <= x < bins[i] (`right`: bins[i-1] < x <= bins[i]), 0 below
 * the first and bins.length past the last; decreasing bins: the mirror image (NumPy). Bins that
 * are neither are a RangeError: they are read back to check (a GPUArray; numbers are float64).
 * A binary search per element (searchsorted). Complex x or bins are a TypeError.
 * @example
 * gpuarray.digitize(gpuarray.toGpu([0.2, 6.4, 3.0, 1.6]), [0, 1, 2.5, 4, 10]).get(); // BigInt64Array [1n, 4n, 3n, 2n]
 */
export function digitize(x: GPUArray, bins: GPUArray | readonly number[], opts?: DigitizeOptions): GPUArray {
  const o = checkedOptions(opts, 'digitize', ['right', 'stream']);
  const { stream } = o;
  const right = boolOption('digitize', 'right', o.right);
  x = realArray('digitize', 'x', arrayIn('digitize', x));
  if (!(bins instanceof GPUArray) && !Array.isArray(bins)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `digitize: bins must be a 1-D GPUArray or an array of numbers. Received ${describe(bins)}`);
  }
  const spec = binsOf('digitize', bins) as { array: GPUArray } | { list: readonly number[] };
  checkDevices('digitize', [x, 'array' in spec ? spec.array : undefined]);
  const temps: Temps = [];
  try {
    const mono = monotonicity('list' in spec ? spec.list : hostDoubles(spec.array, stream));
    if (mono === 0) throw rangeError('ERR_INVALID_ARG_VALUE', 'digitize: bins must be monotonically increasing or decreasing');
    let b: GPUArray;
    if ('list' in spec) temps.push((b = toGpu(Float64Array.from(spec.list), { stream })));
    else b = spec.array;
    const side = right ? 'left' : 'right';
    if (mono === 1) return searchsorted(b, x, { side, stream });
    // Decreasing: len(bins) - searchsorted(bins[::-1], x), as NumPy.
    const reversed = b.index(slice(null, null, -1));
    temps.push(reversed);
    const r = searchsorted(reversed, x, { side, stream });
    try {
      return binaryFunctions.sub(b.size, r, { out: r, stream });
    } catch (err) {
      r.dispose();
      throw err;
    }
  } finally {
    for (const t of temps) t.dispose();
  }
}
