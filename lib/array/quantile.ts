/**
 * Order statistics with NumPy semantics: median, quantile and percentile, and nanmedian,
 * nanquantile and nanpercentile that leave NaNs out, over all axes or the ones given, with
 * `keepdims`, `out` and NumPy's interpolation methods. The reduced axes go last; the rows are then
 * sorted (NaNs last) or, for long rows and few positions, the positions needed are found by radix
 * selection without sorting (engine/select.ts runRanks); one kernel interpolates
 * (templates/quantile.ts).
 */
import { DTYPES, DType } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { Stream } from '../cuda/driver';
import { GPUArray } from './gpuarray';
import { toGpu } from './creation';
import { axesOf, finish, target } from './reductions';
import { checkDevices } from './devices';
import { arrayIn, checkSize, sorted } from './sorting';
import { listOf } from './host_input';
import { runQuantile } from '../engine/quantile';
import { ranksSelectable, runRanks } from '../engine/select';
import { QUANTILE_METHODS } from '../engine/templates/quantile';

/** NumPy's interpolation methods that quantile and percentile take (not the three discontinuous CDF ones). */
export type QuantileMethod = 'linear' | 'lower' | 'higher' | 'nearest' | 'midpoint' | 'interpolated_inverted_cdf' | 'hazen'
  | 'weibull' | 'median_unbiased' | 'normal_unbiased';

/** Options of gpuarray.median and nanmedian. */
export interface MedianOptions {
  /** Axis or axes to reduce (negative counts from the end); all (the flattened array) when null/undefined. */
  axis?: number | readonly number[] | null;
  /** Keep the reduced axes as size 1. */
  keepdims?: boolean;
  /** Write the result here (the result's shape, or with the reduced axes kept; dtype castable 'same_kind'). */
  out?: GPUArray;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of gpuarray.quantile, percentile and their nan forms. */
export interface QuantileOptions extends MedianOptions {
  /** How to find a quantile between two elements (NumPy's `method`, default 'linear'). */
  method?: QuantileMethod;
}

/** α and β of NumPy's continuous methods (Hyndman and Fan) other than linear. */
const CONTINUOUS: Readonly<Record<string, readonly [number, number]>> = {
  interpolated_inverted_cdf: [0, 1], hazen: [0.5, 0.5], weibull: [0, 0], median_unbiased: [1 / 3, 1 / 3],
  normal_unbiased: [3 / 8, 3 / 8],
};
const DISCRETE = ['lower', 'higher', 'nearest'];
const METHODS = ['linear', 'lower', 'higher', 'nearest', 'midpoint', ...Object.keys(CONTINUOUS)];

/** Round half to even (the kernel's rint). */
function rint(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  return d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f;
}

/**
 * The positions (0-based, in a row of m ordered elements) that quantile p reads: lo, and hi when
 * it interpolates. The same steps in the same double arithmetic as the kernel.
 */
function positions(method: number, m: number, p: number, alpha: number, beta: number): number[] {
  const last = m - 1;
  const lp = last * p;
  switch (method) {
    case QUANTILE_METHODS.lower: return [Math.floor(lp)];
    case QUANTILE_METHODS.higher: return [Math.ceil(lp)];
    case QUANTILE_METHODS.nearest: return [rint(lp)];
    case QUANTILE_METHODS.midpoint: return Math.floor(lp) === Math.ceil(lp) ? [lp] : [Math.floor(lp), Math.ceil(lp)];
    case QUANTILE_METHODS.median: return m % 2 ? [last / 2] : [m / 2 - 1, m / 2];
    default: {
      const v = method === QUANTILE_METHODS.linear ? lp : m * p + (alpha + p * (1 - alpha - beta)) - 1;
      if (v >= last) return [last];
      if (v < 0) return [0];
      const lo = Math.floor(v);
      return v === lo ? [lo] : [lo, lo + 1];
    }
  }
}

/** The quantiles as a list and the shape they add in front of the result ([] for one number). */
function quantilesIn(what: string, q: unknown, scale: number): { qs: number[]; qShape: number[] } {
  let qs: number[];
  let qShape: number[];
  if (typeof q === 'number') [qs, qShape] = [[q], []];
  else if (Array.isArray(q) || (ArrayBuffer.isView(q) && !(q instanceof DataView) && !(q instanceof BigInt64Array) &&
    !(q instanceof BigUint64Array))) {
    qs = listOf(q as ArrayLike<unknown>, 'q', (x) => {
      if (typeof x !== 'number') throw typeError('ERR_INVALID_ARG_TYPE', `${what}: q must hold numbers. Received ${describe(x)}`);
      return x;
    });
    qShape = [qs.length];
  } else {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what}: q must be a number or an array of numbers. Received ${describe(q)}`);
  }
  const range = scale === 100 ? '[0, 100]' : '[0, 1]';
  for (const x of qs) {
    if (!(x >= 0 && x <= scale)) throw rangeError('ERR_OUT_OF_RANGE', `${what}: q must be in the range ${range}. Received ${x}`);
  }
  return { qs: scale === 1 ? qs : qs.map((x) => x / scale), qShape };
}

/** The input made into contiguous rows: the reduced axes last and merged (`len` a row). */
function rowsOf(a: GPUArray, axes: number[], stream: Stream | null | undefined, temps: GPUArray[]): { src: GPUArray; rows: number } {
  const red = new Set(axes);
  const kept = a.shape.map((_, i) => i).filter((i) => !red.has(i));
  const perm = kept.concat([...axes].sort((x, y) => x - y));
  let src = perm.every((d, i) => d === i) ? a : a.transpose(perm);
  if (!src.flags.cContiguous) temps.push((src = src.copy({ stream })));
  const len = axes.reduce((n, d) => n * a.shape[d], 1);
  const rows = kept.reduce((n, d) => n * a.shape[d], 1);
  return { src: src.reshape([rows, len]), rows };
}

interface Call {
  what: string;
  /** The quantiles in [0, 1]; null: the median. */
  q: unknown;
  scale: number;
  skipnan: boolean;
}

function quantileCall(c: Call, a: GPUArray, opts: QuantileOptions | undefined): GPUArray {
  const { what } = c;
  const keys = c.q === null ? ['axis', 'keepdims', 'out', 'stream'] : ['axis', 'keepdims', 'out', 'stream', 'method'];
  const o = checkedOptions(opts, what, keys);
  const { stream } = o;
  const methodName = o.method ?? 'linear';
  if (!METHODS.includes(methodName as string)) {
    throw typeError('ERR_INVALID_ARG_VALUE', `${what}: method must be one of ${METHODS.map((m) => `'${m}'`).join(', ')}. Received ${describe(methodName)}`);
  }
  if (o.keepdims !== undefined && typeof o.keepdims !== 'boolean') {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what}: keepdims must be a boolean. Received ${describe(o.keepdims)}`);
  }
  const { qs, qShape } = c.q === null ? { qs: [0.5], qShape: [] } : quantilesIn(what, c.q, c.scale);
  a = arrayIn(what, a);
  if (a.dtype.kind === 'c') throw typeError('ERR_INVALID_DTYPE', `${what}: a must be an array of real numbers. Received ${a.dtype.name}`);
  if (o.out !== undefined && !(o.out instanceof GPUArray)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what}: out must be a GPUArray. Received ${describe(o.out)}`);
  }
  checkDevices(what, [a], o.out?.check());
  const method = c.q === null ? QUANTILE_METHODS.median : (QUANTILE_METHODS as Record<string, number>)[methodName] ??
    QUANTILE_METHODS.continuous;
  const [alpha, beta] = CONTINUOUS[methodName] ?? [1, 1];
  const axes = axesOf(o.axis, a.ndim);
  const red = new Set(axes);
  const keptShape = a.shape.filter((_, d) => !red.has(d));
  const shape = o.keepdims ? a.shape.map((n, d) => (red.has(d) ? 1 : n)) : keptShape;
  const float = a.dtype.kind === 'f';
  const outDt: DType = float || (c.q !== null && DISCRETE.includes(methodName)) ? a.dtype : DTYPES.float64;
  const len = axes.reduce((n, d) => n * a.shape[d], 1);
  if (len === 0 && c.q !== null) {
    throw rangeError('ERR_EMPTY_REDUCTION', `${what}: cannot take a quantile of an empty axis (shape (${a.shape.join(',')}))`);
  }
  checkSize(what, a.size);
  const t = target([...qShape, ...shape], [...qShape, ...keptShape], outDt, o, what, [a]);
  return finish(t, stream, () => {
    if (t.write.size === 0) return;
    if (len === 0) { // the median of nothing: NaN, as NumPy's (a float result)
      t.write.fill(NaN, { stream });
      return;
    }
    const temps: GPUArray[] = [];
    try {
      const { src, rows } = rowsOf(a, axes, stream, temps);
      // The positions each quantile reads in a full row, and the last (a NaN there: the row has one).
      const need = new Set<number>(float ? [len - 1] : []);
      for (const p of qs) for (const i of positions(method, len, p, alpha, beta)) need.add(i);
      const ranks = [...need].sort((x, y) => x - y);
      const q = qs.length > 1 ? toGpu(new Float64Array(qs), { stream }) : null;
      if (q) temps.push(q);
      const run = {
        dt: a.dtype, rows, len, out: t.write.address, outDt, q: q?.address ?? 0n, q0: qs[0], nq: qs.length,
        method, alpha, beta, stream,
      };
      if ((!c.skipnan || !float) && ranksSelectable(a.dtype, len, ranks.length)) {
        const picked = GPUArray.allocate([rows, ranks.length], a.dtype, stream);
        temps.push(picked);
        const rk = toGpu(BigInt64Array.from(ranks, BigInt), { stream });
        temps.push(rk);
        runRanks({ input: src.address, dt: a.dtype, rows, len, ranks, out: picked.address, stream, uses: [src, picked] });
        runQuantile({ ...run, input: picked.address, skipnan: false, ranks: rk.address, R: ranks.length, uses: [picked, rk, q, t.write] });
      } else {
        const s = sorted({ src, len, perm: null, shape: [rows, len], temps: [] }, true, false, stream).values!;
        temps.push(s);
        runQuantile({ ...run, input: s.address, skipnan: c.skipnan && float, ranks: 0n, R: 0, uses: [s, q, t.write] });
      }
    } finally {
      for (const x of temps) x.dispose(); // stream-ordered: after the launches
    }
  });
}

/**
 * The median along `axis` (NumPy `median`; default: of the flattened array): the middle element
 * of each sorted row, or the mean of the two middle ones. A float input gives its own dtype, an
 * integer or bool one float64. A row holding a NaN gives NaN (nanmedian leaves NaNs out); an
 * empty row gives NaN.
 * @example
 * gpuarray.median(gpuarray.toGpu([3, 1, 4, 1])).item(); // 2
 * gpuarray.median(m, { axis: 0 }); // each column's median
 */
export function median(a: GPUArray, opts?: MedianOptions): GPUArray {
  return quantileCall({ what: 'median', q: null, scale: 1, skipnan: false }, a, opts);
}

/** The median along `axis` with NaNs left out (NumPy `nanmedian`); a row of NaNs only gives NaN. */
export function nanmedian(a: GPUArray, opts?: MedianOptions): GPUArray {
  return quantileCall({ what: 'nanmedian', q: null, scale: 1, skipnan: true }, a, opts);
}

/**
 * The q-th quantiles along `axis` (NumPy `quantile`; default: of the flattened array), q in [0, 1]:
 * a number, or an array of them, which adds a first axis to the result. `method` is NumPy's
 * (default 'linear': (n − 1)·q between the two nearest elements). A float input gives its own
 * dtype (float16 and bfloat16 interpolate in float32); an integer or bool one float64, or its own
 * dtype for 'lower', 'higher' and 'nearest'. A row holding a NaN gives NaN (nanquantile leaves
 * NaNs out).
 * @example
 * gpuarray.quantile(x, [0.25, 0.5, 0.75]); // the quartiles, shape [3]
 * gpuarray.quantile(m, 0.9, { axis: 1, method: 'nearest' });
 */
export function quantile(a: GPUArray, q: number | readonly number[] | ArrayLike<number>, opts?: QuantileOptions): GPUArray {
  return quantileCall({ what: 'quantile', q, scale: 1, skipnan: false }, a, opts);
}

/** quantile with NaNs left out (NumPy `nanquantile`); a row of NaNs only gives NaN. */
export function nanquantile(a: GPUArray, q: number | readonly number[] | ArrayLike<number>, opts?: QuantileOptions): GPUArray {
  return quantileCall({ what: 'nanquantile', q, scale: 1, skipnan: true }, a, opts);
}

/** The q-th percentiles along `axis` (NumPy `percentile`): quantile with q in [0, 100]. */
export function percentile(a: GPUArray, q: number | readonly number[] | ArrayLike<number>, opts?: QuantileOptions): GPUArray {
  return quantileCall({ what: 'percentile', q, scale: 100, skipnan: false }, a, opts);
}

/** percentile with NaNs left out (NumPy `nanpercentile`). */
export function nanpercentile(a: GPUArray, q: number | readonly number[] | ArrayLike<number>, opts?: QuantileOptions): GPUArray {
  return quantileCall({ what: 'nanpercentile', q, scale: 100, skipnan: true }, a, opts);
}
