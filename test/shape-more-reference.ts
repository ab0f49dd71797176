/**
 * CPU references of lib/array/pad.ts and lib/array/shapes_more.ts (test/80.shapes-more.test.ts),
 * on C-order host values: pad as a line-by-line port of NumPy 2's numpy/lib/_arraypad_impl.py
 * (its n-d algorithm over Python slices, not the library's per-axis tables), the kernel's gather
 * emulated on the host, rot90 by NumPy's definition, the weighted average in float64, NumPy's
 * float64 logspace/geomspace; and the tests' data.
 */
import type { GPUArray, DTypeName } from '../lib';
import type { PadDim, PadMode } from '../lib/array/pad';
import { C, V, kind, pool, store, upload, viewOf } from './reference';
import { cyc, flipRef, permRef, prod, range } from './shape-reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math } = globalThis;

// ---- test data ----------------------------------------------------------------------------------

/** An array of the tests and its C-order host values. */
export interface Case { label: string; a: GPUArray; host: V[] }
export const S = [3, 4, 5];

/** The same kind of [3, 4, 5] data in four layouts: contiguous, transposed, stepped, reversed and stepped. */
export function layouts(d: DTypeName): Case[] {
  const vals = cyc(pool(d), 120, 1, 7);
  return [
    { label: 'contiguous', a: upload(d, vals.slice(0, 60), S), host: vals.slice(0, 60) },
    { label: 'transposed', a: upload(d, vals.slice(0, 60), [5, 4, 3]).T, host: viewOf(vals, S, [1, 3, 12]) },
    { label: 'stepped', a: upload(d, vals, [6, 4, 5]).index('::2'), host: viewOf(vals, S, [40, 5, 1]) },
    { label: 'reversed', a: upload(d, vals, [3, 4, 10]).index(':', '::-1', '1::2'), host: viewOf(vals, S, [40, -10, 2], 31) },
  ];
}

/** The first value of d's pool (a 0-d or 1-element array's content in the tests). */
export const p0 = (d: DTypeName): V => pool(d)[0];

type Const = number | boolean | C;
/** A scalar constant and per-axis [before, after] constants of each kind (exact in every dtype of the kind). */
export const CONST: Record<string, { one: Const; axes: Array<[Const, Const]> }> = {
  f: { one: 2.5, axes: [[-1.5, 2], [3.25, -4], [5, 6.5]] },
  i: { one: -3, axes: [[-1, 2], [3, -4], [5, 6]] },
  u: { one: 200, axes: [[1, 2], [3, 4], [5, 255]] },
  b: { one: true, axes: [[true, false], [false, true], [true, true]] },
  c: {
    one: { re: 1.5, im: -2 },
    axes: [[{ re: 1, im: -1 }, { re: 2, im: 0 }], [{ re: 0, im: 3 }, { re: -4, im: 1 }], [{ re: 5, im: 5 }, { re: 6, im: -6 }]],
  },
};

/** n positive values of d (small integers or halves: exact products and sums in every dtype). */
export const data = (d: DTypeName, n: number, seed = 0): V[] => range(n).map((i) => {
  const v = ((i + seed) * 7 + 3) % 9 + 1;
  return kind(d) === 'b' ? (v % 3 ? 1 : 0) : kind(d) === 'c' ? store(d, { re: v, im: (i % 4) - 1.5 }) : store(d, kind(d) === 'f' ? v / 2 : v);
});

// ---- references ---------------------------------------------------------------------------------

/** The positions Python's slice(start, stop, step) selects from a sequence of `len` (None: null). */
export function pySlice(start: number | null, stop: number | null, step: number, len: number): number[] {
  const fix = (v: number | null, dflt: number, lo: number, hi: number) => {
    if (v === null) return dflt;
    if (v < 0) v += len;
    return Math.min(Math.max(v, lo), hi);
  };
  const out: number[] = [];
  if (step > 0) {
    for (let i = fix(start, 0, 0, len), end = fix(stop, len, 0, len); i < end; i += step) out.push(i);
  } else {
    for (let i = fix(start, len - 1, -1, len - 1), end = fix(stop, -1, -1, len - 1); i > end; i += step) out.push(i);
  }
  return out;
}

/** Visits every index of the box `ranges` ([lo, hi) per axis) in C order. */
function each(ranges: Array<[number, number]>, fn: (m: number[]) => void): void {
  if (ranges.some(([lo, hi]) => hi <= lo)) return;
  const m = ranges.map(([lo]) => lo);
  for (;;) {
    fn(m.slice());
    let d = ranges.length - 1;
    for (; d >= 0; d--) {
      if (++m[d] < ranges[d][1]) break;
      m[d] = ranges[d][0];
    }
    if (d < 0) return;
  }
}

/**
 * NumPy 2's pad of a C-order array (modes constant, edge, reflect, symmetric, wrap; `cv`: one
 * [before, after] constant per axis), ported from _arraypad_impl.py: the padded array with the
 * original in its area, then each axis in turn over its region of interest (_view_roi), with
 * NumPy's chunked slice assignments for the repeating modes.
 */
export function padRef<T>(host: T[], shape: number[], widths: Array<[number, number]>, mode: PadMode, cv: Array<[T, T]> = []):
  { host: T[]; shape: number[] } {
  const S = shape.map((n, d) => widths[d][0] + n + widths[d][1]);
  const P = new Array<T>(prod(S));
  const at = (m: number[]) => m.reduce((f, x, d) => f * S[d] + x, 0);
  const orig = shape.map((n, d): [number, number] => [widths[d][0], widths[d][0] + n]);
  let k = 0;
  each(orig, (m) => { P[at(m)] = host[k++]; });
  /** padded[roi][..., dst, ...] = padded[roi][..., src, ...] along `axis` (positions along it absolute), reading first. */
  const assign = (roi: Array<[number, number]>, axis: number, dst: number[], src: number[]) => {
    expect(dst.length).toBe(src.length); // NumPy would raise on a shape mismatch
    each(roi.map((r, e): [number, number] => (e === axis ? [0, 1] : r)), (m) => {
      const vals = src.map((q) => { m[axis] = q; return P[at(m)]; });
      dst.forEach((p, i) => { m[axis] = p; P[at(m)] = vals[i]; });
    });
  };
  const fillAlong = (roi: Array<[number, number]>, axis: number, dst: number[], v: T) => {
    each(roi.map((r, e): [number, number] => (e === axis ? [0, 1] : r)), (m) => dst.forEach((p) => { m[axis] = p; P[at(m)] = v; }));
  };
  const viewRoi = (axis: number) => S.map((s, e): [number, number] => (e <= axis ? [0, s] : orig[e]));
  const full = S.map((s): [number, number] => [0, s]);
  shape.forEach((n, axis) => {
    const [b, a] = widths[axis], len = S[axis], roi = viewRoi(axis);
    const sl = (start: number | null, stop: number | null, step = 1) => pySlice(start, stop, step, len);
    const edges = (area: Array<[number, number]>) => {
      assign(area, axis, sl(null, b), sl(null, b).map(() => b));
      assign(area, axis, sl(len - a, null), sl(len - a, null).map(() => len - a - 1));
    };
    if (mode === 'constant') {
      fillAlong(roi, axis, sl(null, b), cv[axis][0]);
      fillAlong(roi, axis, sl(len - a, null), cv[axis][1]);
    } else if (mode === 'edge') {
      edges(roi);
    } else if (mode === 'reflect' || mode === 'symmetric') {
      if (n === 1 && (b > 0 || a > 0)) {
        edges(full);
        return;
      }
      const edgeOffset = mode === 'symmetric' ? 1 : 0;
      let left = b, right = a;
      while (left > 0 || right > 0) {
        const old = len - right - left - (1 - edgeOffset);
        if (left > 0) {
          const chunk = Math.min(old, left), stop = left - edgeOffset;
          assign(roi, axis, sl(left - chunk, left), sl(stop + chunk, stop, -1));
          left -= chunk;
        }
        if (right > 0) {
          const chunk = Math.min(old, right), start = -right + edgeOffset - 2;
          const from = sl(start, start - chunk, -1);
          assign(roi, axis, sl(len - right, len - right + chunk), from);
          right -= chunk;
        }
      }
    } else {
      let left = b, right = a;
      const original = len - right - left;
      while (left > 0 || right > 0) {
        const period = Math.floor((len - right - left) / original) * original;
        let nl = 0, nr = 0;
        if (left > 0) {
          const end = left + period, chunk = sl(end - Math.min(period, left), end);
          if (left > period) {
            assign(roi, axis, sl(left - period, left), chunk);
            nl = left - period;
          } else {
            assign(roi, axis, sl(null, left), chunk);
          }
        }
        if (right > 0) {
          const start = -right - period, chunk = sl(start, start + Math.min(period, right));
          if (right > period) {
            assign(roi, axis, sl(-right, -right + period), chunk);
            nr = right - period;
          } else {
            assign(roi, axis, sl(-right, null), chunk);
          }
        }
        left = nl;
        right = nr;
      }
    }
  });
  return { host: P, shape: S };
}

/**
 * The pad kernel's gather run on the host: for each output element (C order) the memory index it
 * reads, `base + Σ s_d · stride_d`, or the constant index (2·d + side) as `-1 - k`.
 */
export function emulatePad(dims: readonly PadDim[], base: number): number[] {
  const tables: number[] = [], at: number[] = [];
  for (const d of dims) {
    at.push(d.table ? tables.length : -1);
    if (d.table) tables.push(...d.table);
  }
  const n = prod(dims.map((d) => d.out));
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    let rem = i, off = 0, k = -1;
    for (let d = dims.length - 1; d >= 0; d--) {
      const c = rem % dims[d].out;
      rem = Math.floor(rem / dims[d].out);
      const t = c - dims[d].before;
      let s = t;
      if (t < 0 || t >= dims[d].len) s = at[d] < 0 ? (t < 0 ? -1 : -2) : tables[at[d] + (t < 0 ? c : c - dims[d].len)];
      if (s >= 0) off += s * dims[d].stride;
      else if (k < 0) k = 2 * d + (-1 - s);
    }
    out.push(k < 0 ? base + off : -1 - k);
  }
  return out;
}

/** NumPy's rot90 of a C-order array: k mod 4 quarter turns in the plane of axes (a0, a1), by flips and a transpose. */
export function rot90Ref<T>(h: T[], s: number[], k: number, axes: [number, number]): { host: T[]; shape: number[] } {
  const nd = s.length;
  const [a0, a1] = axes.map((x) => (x + nd) % nd);
  const t = ((k % 4) + 4) % 4;
  const perm = range(nd);
  [perm[a0], perm[a1]] = [perm[a1], perm[a0]];
  const permuted = perm.map((p) => s[p]);
  if (t === 0) return { host: h.slice(), shape: s.slice() };
  if (t === 2) return { host: flipRef(h, s, [a0, a1]), shape: s.slice() };
  if (t === 1) return { host: permRef(flipRef(h, s, [a1]), s, perm), shape: permuted };
  return { host: flipRef(permRef(h, s, perm), permuted, [a1]), shape: permuted };
}

/** sum(a·w) / sum(w) over each group of input indices (one group per output element, C order), in float64, stored as rd. */
export function avgRef(a: V[], w: (i: number) => number, groups: number[][], rd: DTypeName): { avg: V[]; wsum: V[] } {
  const avg: V[] = [], wsum: V[] = [];
  for (const g of groups) {
    let re = 0, im = 0, sw = 0;
    for (const i of g) {
      const x = a[i];
      const c = typeof x === 'object' ? x : { re: Number(x), im: 0 };
      re += c.re * w(i);
      im += c.im * w(i);
      sw += w(i);
    }
    avg.push(store(rd, kind(rd) === 'c' ? { re: re / sw, im: im / sw } : re / sw));
    wsum.push(store(rd, sw));
  }
  return { avg, wsum };
}

/** NumPy's logspace in float64 (linspace's y = start + i·step, the last exactly stop; then base ** y). */
export function logspaceRef(start: number, stop: number, num: number, endpoint = true, base = 10): number[] {
  const div = endpoint ? num - 1 : num;
  const step = (stop - start) / div;
  return range(num).map((i) => Math.pow(base, endpoint && num > 1 && i === num - 1 ? stop : div > 0 ? start + i * step : start));
}

/** NumPy's geomspace in float64: logspace of the logarithms (sign taken out), ends exact, sign put back. */
export function geomspaceRef(start: number, stop: number, num: number, endpoint = true): number[] {
  const sign = Math.sign(start);
  const s = start / sign, e = stop / sign;
  const r = logspaceRef(Math.log10(s), Math.log10(e), num, endpoint);
  if (num > 0) r[0] = s;
  if (num > 1 && endpoint) r[num - 1] = e;
  return r.map((v) => v * sign);
}
