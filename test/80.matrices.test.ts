/**
 * Matrix helpers (lib/array/matrices.ts): eye, identity, diagonal (a view), diag, trace, tril,
 * triu, meshgrid, diff and ptp against a CPU reference with NumPy 2's semantics, for several
 * dtypes (bool, ints, float16, floats, complex), empty and 1-element arrays, non-square matrices,
 * negative and out-of-range k/offsets, transposed and stepped views, batches, streams, the
 * methods, leaks and arrays of two contexts. Argument errors that throw before any GPU work run
 * without a GPU.
 */
import * as cuda from '../lib';
import { GPUArray, driver, gpuarray } from '../lib';
import type { DTypeName } from '../lib';
import { diagonalLayout } from '../lib/array/matrices';
import { impl } from '../lib/array/methods';
import { collect, describeGpu, expectCode, settledLive } from './helpers';
import { C, OPS, V, download, expectArray, isInt, kind, nonzero, pool, softly, store, upload } from './reference';

const TYPES: DTypeName[] = ['float32', 'float64', 'int32', 'uint8', 'bool', 'int64', 'complex64', 'float16'];
const live = (): number => cuda.memory().liveAllocations;
const zeroOf = (d: DTypeName): V => store(d, 0);

/** n small values of d (exact sums and differences in every dtype; no NaN). */
function data(d: DTypeName, n: number, seed = 0): V[] {
  return Array.from({ length: n }, (_, i) => {
    const v = ((i + seed) * 7 + 3) % 11; // 0..10, scrambled
    switch (kind(d)) {
      case 'b': return v % 3 === 0 ? 1 : 0;
      case 'u': return store(d, v + 1);
      case 'c': return store(d, { re: v - 5, im: ((i + seed) % 5) - 2 });
      default: return store(d, v - 5);
    }
  });
}

/** n values of d cycling through reference.ts's specials (NaN, ±Inf, -0, extremes): for the copying functions. */
function specials(d: DTypeName, n: number): V[] {
  const p = pool(d);
  return Array.from({ length: n }, (_, i) => p[(i * 5 + 1) % p.length]);
}

const size = (shape: number[]): number => shape.reduce((p, q) => p * q, 1);
const cstrides = (shape: number[]): number[] => shape.map((_, i) => size(shape.slice(i + 1)));
/** Every multi-index of `shape`, in C order. */
function indices(shape: number[]): number[][] {
  let out: number[][] = [[]];
  for (const n of shape) out = out.flatMap((idx) => Array.from({ length: n }, (_, i) => [...idx, i]));
  return out;
}
function at<T>(vals: T[], shape: number[], idx: number[]): T {
  const st = cstrides(shape);
  return vals[idx.reduce((s, x, d) => s + x * st[d], 0)];
}

interface Ref { shape: number[]; out: V[] }

/** NumPy's a.diagonal(k, ax1, ax2): the other axes, then the diagonal. */
function refDiagonal(vals: V[], shape: number[], k: number, ax1: number, ax2: number): Ref {
  const rest = shape.map((_, d) => d).filter((d) => d !== ax1 && d !== ax2);
  const r0 = k >= 0 ? 0 : -k, c0 = k >= 0 ? k : 0;
  let len = 0;
  while (r0 + len < shape[ax1] && c0 + len < shape[ax2]) len++;
  const out: V[] = [];
  for (const o of indices(rest.map((d) => shape[d]))) {
    for (let j = 0; j < len; j++) {
      const idx: number[] = new Array(shape.length);
      rest.forEach((d, t) => { idx[d] = o[t]; });
      idx[ax1] = r0 + j;
      idx[ax2] = c0 + j;
      out.push(at(vals, shape, idx));
    }
  }
  return { shape: [...rest.map((d) => shape[d]), len], out };
}

/** NumPy's tril/triu (a 1-D input of length n broadcast to n×n). */
function refTri(vals: V[], shape: number[], k: number, lower: boolean, d: DTypeName): Ref {
  const full = shape.length === 1 ? [shape[0], shape[0]] : shape;
  const out = indices(full).map((idx) => {
    const i = idx[idx.length - 2], j = idx[idx.length - 1];
    const keep = lower ? j <= i + k : j >= i + k;
    return keep ? (shape.length === 1 ? vals[j] : at(vals, shape, idx)) : zeroOf(d);
  });
  return { shape: full, out };
}

/** NumPy's diff along `ax`, n times (bool: not_equal). */
function refDiff(vals: V[], shape: number[], ax: number, n: number, d: DTypeName): Ref {
  let cur = vals, s = [...shape];
  for (let step = 0; step < n; step++) {
    const ns = [...s];
    ns[ax] = Math.max(0, s[ax] - 1);
    const st = cstrides(s), prev = cur;
    cur = indices(ns).map((idx) => {
      const off = idx.reduce((acc, x, dd) => acc + x * st[dd], 0);
      const lo = prev[off], hi = prev[off + st[ax]];
      return d === 'bool' ? (nonzero(hi as never) !== nonzero(lo as never) ? 1 : 0) : store(d, OPS.sub.f(d, hi, lo) as V);
    });
    s = ns;
  }
  return { shape: s, out: cur };
}

/** sum's dtype (NumPy): bool and signed ints → int64, unsigned → uint64, else the same. */
const sumOut = (d: DTypeName): DTypeName => (kind(d) === 'b' || kind(d) === 'i' ? 'int64' : kind(d) === 'u' ? 'uint64' : d);

/** The exact sum of small values, stored as `out`. */
function refSum(xs: V[], out: DTypeName): V {
  if (isInt(out)) return store(out, xs.reduce((s: bigint, v) => s + BigInt(v as number | bigint), 0n));
  if (kind(out) === 'c') {
    const c = xs.map((v) => (typeof v === 'object' ? v : { re: Number(v), im: 0 }));
    return store(out, { re: c.reduce((s, v) => s + v.re, 0), im: c.reduce((s, v) => s + v.im, 0) });
  }
  return store(out, xs.reduce((s: number, v) => s + Number(v as number | bigint), 0));
}

/** A reduction of `vals` over `axes` (C order of the result), keepdims or not. */
function refReduce(vals: V[], shape: number[], axes: number[], keepdims: boolean, f: (xs: V[]) => V): Ref {
  const kept = shape.map((n, d) => (axes.includes(d) ? 1 : n));
  const out = indices(kept).map((o) => f(indices(axes.map((d) => shape[d])).map((r) => {
    const idx = [...o];
    axes.forEach((d, t) => { idx[d] = r[t]; });
    return at(vals, shape, idx);
  })));
  return { shape: keepdims ? kept : kept.filter((_, d) => !axes.includes(d)), out };
}

/** a < b in NumPy's order (complex: lexicographic). No NaN here. */
function less(a: V, b: V): boolean {
  if (typeof a === 'object') return a.re < (b as C).re || (a.re === (b as C).re && a.im < (b as C).im);
  return a < (b as number | bigint);
}
const refPtp = (d: DTypeName) => (xs: V[]): V => {
  const hi = xs.reduce((m, v) => (less(m, v) ? v : m)), lo = xs.reduce((m, v) => (less(v, m) ? v : m));
  return store(d, OPS.sub.f(d, hi, lo) as V);
};

/** NumPy's meshgrid of 1-D value lists. */
function refMesh(xs: V[][], indexing: 'xy' | 'ij', sparse: boolean): Ref[] {
  const nd = xs.length;
  const pos = (t: number) => (indexing === 'xy' && nd > 1 && t < 2 ? 1 - t : t);
  const grid: number[] = new Array(nd);
  xs.forEach((x, t) => { grid[pos(t)] = x.length; });
  return xs.map((x, t) => {
    const shape = sparse ? grid.map((n, d) => (d === pos(t) ? n : 1)) : grid;
    return { shape, out: indices(shape).map((idx) => x[idx[pos(t)]]) };
  });
}

const expectRef = (a: GPUArray, d: DTypeName, r: Ref, label = ''): void => expectArray(a, d, r.shape, r.out, 0, label);

describe('matrix helpers: arguments and layouts (no GPU)', () => {
  test('the functions and methods exist and are registered', () => {
    for (const name of ['eye', 'identity', 'diagonal', 'diag', 'trace', 'tril', 'triu', 'meshgrid', 'diff', 'ptp']) {
      expect(typeof (gpuarray as Record<string, unknown>)[name]).toBe('function');
    }
    for (const name of ['diagonal', 'trace']) {
      const desc = Object.getOwnPropertyDescriptor(GPUArray.prototype, name);
      expect(typeof desc?.value).toBe('function');
      expect(desc?.enumerable).toBe(false);
    }
    expectCode(() => impl.diagonal(undefined as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => impl.trace(undefined as never), TypeError, 'ERR_INVALID_ARG_TYPE');
  });

  test('eye and identity check n, m, k, dtype and options before allocating', () => {
    const check = softly();
    check(() => expectCode(() => gpuarray.eye(2.5), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.eye(-1), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.eye('3' as never), TypeError, 'ERR_INVALID_ARG_TYPE'));
    check(() => expectCode(() => gpuarray.eye(3, 2.5), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.eye(3, -2), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.eye(3, { k: 0.5 }), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.eye(3, 3, { k: NaN }), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.eye(3, null, { k: '1' as never }), TypeError, 'ERR_INVALID_ARG_TYPE'));
    check(() => expectCode(() => gpuarray.eye(3, { order: 'F' } as never), TypeError, 'ERR_INVALID_ARG_VALUE'));
    check(() => expectCode(() => gpuarray.eye(3, { dtype: 'float99' as never }), TypeError, 'ERR_INVALID_ARG_VALUE'));
    check(() => expectCode(() => gpuarray.eye(3, {}, {}), TypeError, 'ERR_INVALID_ARG_TYPE')); // m an object and options too
    check(() => expectCode(() => gpuarray.eye(NaN), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.eye(Infinity), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.eye(3n as never), TypeError, 'ERR_INVALID_ARG_TYPE'));
    check(() => expectCode(() => gpuarray.eye(3, 2 ** 53), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.eye(3, { k: 2 ** 53 }), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.eye(3, { k: 1n as never }), TypeError, 'ERR_INVALID_ARG_TYPE'));
    check(() => expectCode(() => gpuarray.eye(2 ** 31), RangeError, 'ERR_OUT_OF_RANGE')); // 2^62 elements: refused before allocating
    check(() => expectCode(() => gpuarray.identity(2 ** 31), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.identity(2.5), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.identity(3, { k: 1 } as never), TypeError, 'ERR_INVALID_ARG_VALUE'));
    check.done();
  });

  test('array arguments must be GPUArrays; unknown options and bad option values are refused first', () => {
    const check = softly();
    const notArray = (f: () => unknown) => check(() => expectCode(f, TypeError, 'ERR_INVALID_ARG_TYPE'));
    notArray(() => gpuarray.diagonal(5 as never));
    notArray(() => gpuarray.diag([1, 2] as never));
    notArray(() => gpuarray.trace(null as never));
    notArray(() => gpuarray.tril({} as never));
    notArray(() => gpuarray.triu(undefined as never, 1));
    notArray(() => gpuarray.meshgrid(1 as never, 2 as never));
    notArray(() => gpuarray.meshgrid([1, 2] as never));
    notArray(() => gpuarray.diff(undefined as never));
    notArray(() => gpuarray.ptp('x' as never));
    const unknown = (f: () => unknown) => check(() => expectCode(f, TypeError, 'ERR_INVALID_ARG_VALUE'));
    unknown(() => gpuarray.diagonal(null as never, { axis: 0 } as never));
    unknown(() => gpuarray.trace(null as never, { keepdims: true } as never));
    unknown(() => gpuarray.diag(null as never, 0, { out: null } as never));
    unknown(() => gpuarray.tril(null as never, 0, { out: null } as never));
    unknown(() => gpuarray.diff(null as never, { to_end: 1 } as never));
    unknown(() => gpuarray.ptp(null as never, { dtype: 'float32' } as never));
    unknown(() => gpuarray.meshgrid({ indexing: 'xz' } as never));
    unknown(() => gpuarray.meshgrid({ order: 'C' } as never));
    check(() => expectCode(() => gpuarray.meshgrid({ sparse: 1 } as never), TypeError, 'ERR_INVALID_ARG_TYPE'));
    check(() => expectCode(() => gpuarray.meshgrid({ copy: 'no' } as never), TypeError, 'ERR_INVALID_ARG_TYPE'));
    check(() => expect(gpuarray.meshgrid()).toEqual([]));
    check(() => expect(gpuarray.meshgrid({ indexing: 'ij' })).toEqual([]));
    check.done();
  });

  test('diagonalLayout: NumPy diagonal shapes, strides and offsets', () => {
    const L = (shape: number[], strides: number[], k: number, a1: number, a2: number) => diagonalLayout(shape, strides, k, a1, a2);
    expect(L([3, 4], [32, 8], 0, 0, 1)).toEqual({ shape: [3], strides: [40], byteOffset: 0 });
    expect(L([3, 4], [32, 8], 2, 0, 1)).toEqual({ shape: [2], strides: [40], byteOffset: 16 });
    expect(L([3, 4], [32, 8], -2, 0, 1)).toEqual({ shape: [1], strides: [40], byteOffset: 64 });
    expect(L([3, 4], [32, 8], 4, 0, 1)).toEqual({ shape: [0], strides: [40], byteOffset: 0 });
    expect(L([3, 4], [32, 8], -3, 0, 1)).toEqual({ shape: [0], strides: [40], byteOffset: 0 });
    expect(L([3, 4], [32, 8], 1, 1, 0)).toEqual({ shape: [2], strides: [40], byteOffset: 32 }); // a.diagonal(1, 1, 0) = a.T.diagonal(1)
    expect(L([2, 3, 4], [96, 32, 8], 1, 2, 0)).toEqual({ shape: [3, 1], strides: [32, 104], byteOffset: 96 });
    expect(L([2, 3, 4], [96, 32, 8], 0, 1, 2)).toEqual({ shape: [2, 3], strides: [96, 40], byteOffset: 0 });
    expect(L([0, 5], [40, 8], 0, 0, 1)).toEqual({ shape: [0], strides: [48], byteOffset: 0 });
    expect(L([4, 4], [-32, 8], 1, 0, 1)).toEqual({ shape: [3], strides: [-24], byteOffset: 8 }); // a reversed view
    // Empty along another axis: no offset (an array of shape [0, 3, 3] has no memory to point into).
    expect(L([0, 3, 3], [72, 24, 8], 1, 1, 2)).toEqual({ shape: [0, 2], strides: [72, 32], byteOffset: 0 });
    expect(L([3, 0, 3], [24, 24, 8], -1, 0, 2)).toEqual({ shape: [0, 2], strides: [24, 32], byteOffset: 0 });
  });
});

describeGpu('matrix helpers on the GPU', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  test('eye and identity: every dtype, non-square, k inside and outside, empty; default float64; stream and device', () => cuda.tidy(() => {
    const check = softly();
    const cases: Array<[number, number | null, number]> = [[3, null, 0], [3, 5, 1], [4, 2, -1], [3, 3, 3], [3, 3, -5], [0, null, 0],
      [1, null, 0], [2, 0, 0], [3, 4, -2], [5, 3, 2], [2, 3, 100], [2, 3, -100]];
    for (const d of TYPES) {
      for (const [n, m, k] of cases) {
        const cols = m ?? n;
        const want = indices([n, cols]).map(([i, j]) => store(d, j - i === k ? 1 : 0));
        check(() => expectArray(gpuarray.eye(n, m, { k, dtype: d }), d, [n, cols], want, 0, `eye(${n}, ${m}, k=${k}) ${d}`));
      }
    }
    check(() => expectArray(gpuarray.eye(2), 'float64', [2, 2], [1, 0, 0, 1]));
    check(() => expectArray(gpuarray.eye(2, { k: 1 }), 'float64', [2, 2], [0, 1, 0, 0]));
    check(() => expectArray(gpuarray.eye(2, 3, { dtype: 'int64' }), 'int64', [2, 3], [1n, 0n, 0n, 0n, 1n, 0n]));
    check(() => expectArray(gpuarray.identity(3), 'float64', [3, 3], [1, 0, 0, 0, 1, 0, 0, 0, 1]));
    check(() => expectArray(gpuarray.identity(2, { dtype: 'bool' }), 'bool', [2, 2], [1, 0, 0, 1]));
    check(() => expectArray(gpuarray.identity(0, { dtype: 'int8' }), 'int8', [0, 0], []));
    const s = new driver.Stream();
    const e = gpuarray.eye(3, 4, { k: -1, dtype: 'float32', stream: s, device: 0 });
    s.synchronize();
    check(() => expectArray(e, 'float32', [3, 4], [0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0]));
    check.done();
  }));

  test('diagonal is a view of every axis pair and offset (contiguous, transposed and stepped inputs); writes go through', () => cuda.tidy(() => {
    const check = softly();
    for (const d of ['float64', 'int64', 'bool', 'complex64', 'float16', 'uint8'] as DTypeName[]) {
      const vals = specials(d, 24);
      const a = upload(d, vals, [2, 3, 4]);
      for (const [a1, a2] of [[0, 1], [1, 0], [0, 2], [2, 0], [1, 2], [2, 1], [-1, -3], [-2, -1]]) {
        for (const k of [-4, -2, -1, 0, 1, 2, 3, 5]) {
          const v = gpuarray.diagonal(a, { offset: k, axis1: a1, axis2: a2 });
          check(() => expect(v.base).toBe(a));
          check(() => expectRef(v, d, refDiagonal(vals, [2, 3, 4], k, (a1 + 3) % 3, (a2 + 3) % 3), `${d} diagonal(${k}, ${a1}, ${a2})`));
        }
      }
      // Non-contiguous inputs: the reference is the view's own C-order values.
      const m = upload(d, vals.slice(0, 12), [3, 4]);
      for (const view of [m.T, m.index('::2', '::-1'), m.index(':', '1::2'), a.transpose([2, 0, 1]).index('...', '::-1')]) {
        const vv = download(view), shape = [...view.shape];
        for (const k of [-1, 0, 1, 2]) {
          check(() => expectRef(gpuarray.diagonal(view, { offset: k }), d, refDiagonal(vv, shape, k, 0, 1), `${d} view (${shape}) k=${k}`));
          check(() => expectRef(view.diagonal({ offset: k, axis1: 1, axis2: 0 }), d, refDiagonal(vv, shape, k, 1, 0)));
        }
      }
    }
    const m = upload('float32', data('float32', 12), [3, 4]);
    const v = m.diagonal({ offset: 1 });
    check(() => expect([v.shape, v.strides, v.offset - m.offset]).toEqual([[3], [20], 4]));
    const far = m.diagonal({ offset: 100 });
    check(() => expect([far.shape, far.offset]).toEqual([[0], m.offset]));
    check(() => expectArray(gpuarray.diagonal(gpuarray.zeros([0, 3])), 'float64', [0], []));
    check(() => expectArray(gpuarray.diagonal(gpuarray.zeros([1, 1], 'int32')), 'int32', [1], [0]));
    // Writing through the view (CuPy's writable view) writes m.
    m.diagonal().fill(-1);
    const want = data('float32', 12).map((x, i) => (i % 5 === 0 ? -1 : x));
    check(() => expectArray(m, 'float32', [3, 4], want));
    check.done();
  }));

  test('diagonal, diag, trace: errors (dimensions, axes, offsets)', () => cuda.tidy(() => {
    const check = softly();
    const v1 = upload('float32', [1, 2, 3]), m = upload('float32', data('float32', 6), [2, 3]), s = gpuarray.full([], 1);
    check(() => expectCode(() => gpuarray.diagonal(v1), RangeError, 'ERR_INVALID_ARG_VALUE'));
    check(() => expectCode(() => gpuarray.diagonal(s), RangeError, 'ERR_INVALID_ARG_VALUE'));
    check(() => expectCode(() => m.diagonal({ axis1: 1, axis2: -1 }), RangeError, 'ERR_INVALID_ARG_VALUE'));
    check(() => expectCode(() => m.diagonal({ axis1: 2 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
    check(() => expectCode(() => m.diagonal({ axis2: -3 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
    check(() => expectCode(() => m.diagonal({ axis1: 0.5 }), TypeError, 'ERR_INVALID_ARG_TYPE'));
    check(() => expectCode(() => m.diagonal({ offset: 1.5 }), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => m.diagonal({ offset: '1' as never }), TypeError, 'ERR_INVALID_ARG_TYPE'));
    check(() => expectCode(() => m.trace({ axis1: 0, axis2: 0 }), RangeError, 'ERR_INVALID_ARG_VALUE'));
    check(() => expectCode(() => gpuarray.trace(v1), RangeError, 'ERR_INVALID_ARG_VALUE'));
    check(() => expectCode(() => gpuarray.diag(s), RangeError, 'ERR_INVALID_ARG_VALUE'));
    check(() => expectCode(() => gpuarray.diag(gpuarray.zeros([2, 2, 2])), RangeError, 'ERR_INVALID_ARG_VALUE'));
    check(() => expectCode(() => gpuarray.diag(v1, 0.5), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.diag(v1, '1' as never), TypeError, 'ERR_INVALID_ARG_TYPE'));
    check.done();
  }));

  test('diag: 1-D → square matrix, 2-D → a copy of the diagonal; every dtype, k, empty and strided inputs', () => cuda.tidy(() => {
    const check = softly();
    const refDiag1 = (v: V[], k: number, d: DTypeName): Ref => {
      const n = v.length + Math.abs(k);
      return { shape: [n, n], out: indices([n, n]).map(([i, j]) => (j - i === k ? v[k >= 0 ? i : j] : zeroOf(d))) };
    };
    for (const d of TYPES) {
      const vals = specials(d, 4);
      const v = upload(d, vals);
      for (const k of [0, 1, -1, 3, -2]) check(() => expectRef(gpuarray.diag(v, k), d, refDiag1(vals, k, d), `${d} diag 1-D k=${k}`));
      const rev = v.index('::-1'), rv = download(rev);
      check(() => expectRef(gpuarray.diag(rev, -1), d, refDiag1(rv, -1, d), `${d} diag reversed`));
      const st = v.index('::2'), sv = download(st);
      check(() => expectRef(gpuarray.diag(st, 2), d, refDiag1(sv, 2, d), `${d} diag stepped`));
      const mv = data(d, 12), m = upload(d, mv, [3, 4]);
      for (const k of [-3, -2, 0, 1, 3, 4, 9]) {
        const got = gpuarray.diag(m, k);
        check(() => expect([got.base, got.flags.cContiguous]).toEqual([null, true]));
        check(() => expectRef(got, d, refDiagonal(mv, [3, 4], k, 0, 1), `${d} diag 2-D k=${k}`));
      }
      const t = m.T, tv = download(t);
      check(() => expectRef(gpuarray.diag(t, 1), d, refDiagonal(tv, [4, 3], 1, 0, 1), `${d} diag of m.T`));
      check(() => expectRef(gpuarray.diag(gpuarray.empty([0], d), 2), d, { shape: [2, 2], out: Array(4).fill(zeroOf(d)) }));
      check(() => expectRef(gpuarray.diag(gpuarray.empty([0], d)), d, { shape: [0, 0], out: [] }));
      check(() => expectRef(gpuarray.diag(upload(d, vals.slice(0, 1))), d, { shape: [1, 1], out: vals.slice(0, 1) }));
    }
    check(() => expectArray(gpuarray.diag(gpuarray.toGpu([1, 2]), 1), 'float64', [3, 3], [0, 1, 0, 0, 0, 2, 0, 0, 0]));
    const s = new driver.Stream();
    const r = gpuarray.diag(upload('int32', [7, 8]), -1, { stream: s });
    s.synchronize();
    check(() => expectArray(r, 'int32', [3, 3], [0, 0, 0, 7, 0, 0, 0, 8, 0]));
    check.done();
  }));

  test('trace: offsets, axes, batches, dtype (ints in 64 bits), out, empty, strided, the method', () => cuda.tidy(() => {
    const check = softly();
    for (const d of TYPES) {
      const mv = data(d, 12), m = upload(d, mv, [3, 4]), od = sumOut(d);
      for (const k of [-3, -2, -1, 0, 1, 2, 3, 4, 10]) {
        const want = refSum(refDiagonal(mv, [3, 4], k, 0, 1).out, od);
        check(() => expectArray(gpuarray.trace(m, { offset: k }), od, [], [want], 0, `${d} trace k=${k}`));
      }
      const bv = data(d, 24, 3), b = upload(d, bv, [2, 3, 4]);
      for (const [a1, a2, k] of [[0, 1, 0], [1, 2, 0], [2, 1, 1], [-1, 0, -1], [0, 2, 2]]) {
        const diag = refDiagonal(bv, [2, 3, 4], k, (a1 + 3) % 3, (a2 + 3) % 3);
        const len = diag.shape[diag.shape.length - 1];
        const want = Array.from({ length: size(diag.shape.slice(0, -1)) }, (_, i) => refSum(diag.out.slice(i * len, (i + 1) * len), od));
        check(() => expectArray(gpuarray.trace(b, { offset: k, axis1: a1, axis2: a2 }), od, diag.shape.slice(0, -1), want, 0,
          `${d} trace batch (${a1}, ${a2}, ${k})`));
      }
      const t = m.T, tv = download(t);
      check(() => expectArray(t.trace({ offset: -1 }), od, [], [refSum(refDiagonal(tv, [4, 3], -1, 0, 1).out, od)], 0, `${d} m.T.trace`));
      const st = m.index('::-1', '::2'), sv = download(st);
      check(() => expectArray(gpuarray.trace(st), od, [], [refSum(refDiagonal(sv, [3, 2], 0, 0, 1).out, od)], 0, `${d} stepped trace`));
    }
    const u8 = upload('uint8', [200, 0, 0, 100], [2, 2]);
    check(() => expectArray(gpuarray.trace(u8), 'uint64', [], [300n]));
    check(() => expectArray(gpuarray.trace(u8, { dtype: 'uint8' }), 'uint8', [], [44])); // NumPy: accumulated in uint8, wraps
    check(() => expectArray(gpuarray.trace(upload('int8', [100, 0, 0, 100], [2, 2])), 'int64', [], [200n]));
    check(() => expectArray(gpuarray.trace(upload('int32', [1, 2, 3, 4], [2, 2]), { dtype: 'float64' }), 'float64', [], [5]));
    check(() => expectArray(gpuarray.trace(gpuarray.eye(3)), 'float64', [], [3]));
    check(() => expectArray(gpuarray.trace(gpuarray.zeros([0, 3])), 'float64', [], [0]));
    check(() => expectArray(gpuarray.trace(gpuarray.ones([2, 3], 'int16'), { offset: 5 }), 'int64', [], [0n]));
    const out = gpuarray.empty([], 'float64');
    const r = gpuarray.trace(upload('float32', [1, 2, 3, 4], [2, 2]), { out });
    check(() => expect(r).toBe(out));
    check(() => expectArray(out, 'float64', [], [5]));
    const outB = gpuarray.empty([4], 'float32');
    check(() => expect(gpuarray.trace(upload('float32', data('float32', 24), [2, 3, 4]), { out: outB })).toBe(outB));
    const s = new driver.Stream();
    const rs = upload('float32', [1, 2, 3, 4, 5, 6, 7, 8, 9], [3, 3]).trace({ offset: 1, stream: s });
    s.synchronize();
    check(() => expectArray(rs, 'float32', [], [8]));
    check.done();
  }));

  test('tril and triu: every dtype, non-square, every k (also far out), empty, 1-D (NumPy: n×n), batched, strided', () => cuda.tidy(() => {
    const check = softly();
    const KS = [-6, -2, -1, 0, 1, 2, 6];
    for (const d of TYPES) {
      for (const shape of [[3, 3], [3, 5], [5, 2], [1, 1], [0, 3], [2, 0], [4], [1], [0], [2, 3, 4], [2, 1, 3, 2]]) {
        const vals = specials(d, size(shape));
        const a = upload(d, vals, shape);
        for (const k of KS) {
          check(() => expectRef(gpuarray.tril(a, k), d, refTri(vals, shape, k, true, d), `${d} tril (${shape}) k=${k}`));
          check(() => expectRef(gpuarray.triu(a, k), d, refTri(vals, shape, k, false, d), `${d} triu (${shape}) k=${k}`));
        }
      }
      const b = upload(d, specials(d, 24), [2, 3, 4]);
      for (const view of [b.transpose([0, 2, 1]), b.index('...', '::-1', '1:'), b.index(0).T, b.transpose([2, 1, 0]).index('::2')]) {
        const vv = download(view), shape = [...view.shape];
        for (const k of [-1, 0, 2]) {
          check(() => expectRef(gpuarray.tril(view, k), d, refTri(vv, shape, k, true, d), `${d} tril view (${shape}) k=${k}`));
          check(() => expectRef(gpuarray.triu(view, k), d, refTri(vv, shape, k, false, d), `${d} triu view (${shape}) k=${k}`));
        }
      }
    }
    const m = upload('int32', data('int32', 12), [3, 4]);
    check(() => expectRef(gpuarray.tril(m, 2 ** 40), 'int32', { shape: [3, 4], out: data('int32', 12) }));
    check(() => expectRef(gpuarray.triu(m, 2 ** 40), 'int32', { shape: [3, 4], out: Array(12).fill(0) }));
    check(() => expectRef(gpuarray.tril(m, -(2 ** 40)), 'int32', { shape: [3, 4], out: Array(12).fill(0) }));
    check(() => expectRef(gpuarray.triu(m, -(2 ** 40)), 'int32', { shape: [3, 4], out: data('int32', 12) }));
    check(() => expectArray(gpuarray.tril(gpuarray.ones([3, 3])), 'float64', [3, 3], [1, 0, 0, 1, 1, 0, 1, 1, 1]));
    check(() => expectArray(gpuarray.triu(gpuarray.toGpu([1, 2, 3]), 1), 'float64', [3, 3], [0, 2, 3, 0, 0, 3, 0, 0, 0]));
    check(() => expectArray(gpuarray.tril(gpuarray.toGpu([true, true])), 'bool', [2, 2], [1, 0, 1, 1]));
    const s = new driver.Stream();
    const r = gpuarray.triu(m, 1, { stream: s });
    s.synchronize();
    check(() => expectRef(r, 'int32', refTri(data('int32', 12), [3, 4], 1, false, 'int32')));
    check(() => expectCode(() => gpuarray.tril(gpuarray.full([], 1)), RangeError, 'ERR_INVALID_ARG_VALUE'));
    check(() => expectCode(() => gpuarray.triu(m, 0.5), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.tril(m, '1' as never), TypeError, 'ERR_INVALID_ARG_TYPE'));
    check.done();
  }));

  test('meshgrid: xy and ij, sparse, copy, 1 to 3 inputs of mixed dtypes, strided and 2-D inputs', () => cuda.tidy(() => {
    const check = softly();
    const x = gpuarray.toGpu([1, 2, 3]), y = gpuarray.toGpu([10, 20]);
    const [X, Y] = gpuarray.meshgrid(x, y);
    check(() => expectArray(X, 'float64', [2, 3], [1, 2, 3, 1, 2, 3]));
    check(() => expectArray(Y, 'float64', [2, 3], [10, 10, 10, 20, 20, 20]));
    const [I, J] = gpuarray.meshgrid(x, y, { indexing: 'ij' });
    check(() => expectArray(I, 'float64', [3, 2], [1, 1, 2, 2, 3, 3]));
    check(() => expectArray(J, 'float64', [3, 2], [10, 20, 10, 20, 10, 20]));
    const [xs, ys] = gpuarray.meshgrid(x, y, { sparse: true });
    check(() => expectArray(xs, 'float64', [1, 3], [1, 2, 3]));
    check(() => expectArray(ys, 'float64', [2, 1], [10, 20]));
    const [is, js] = gpuarray.meshgrid(x, y, { sparse: true, indexing: 'ij' });
    check(() => expectArray(is, 'float64', [3, 1], [1, 2, 3]));
    check(() => expectArray(js, 'float64', [1, 2], [10, 20]));
    // copy (default): new C-contiguous owners; copy: false: views (broadcast, stride 0, when not sparse).
    for (const o of [X, Y, xs, ys]) check(() => expect([o.base, o.flags.cContiguous]).toEqual([null, true]));
    const [Xv, Yv] = gpuarray.meshgrid(x, y, { copy: false });
    check(() => expect([Xv.base, Xv.strides, Yv.base, Yv.strides]).toEqual([x, [0, 8], y, [8, 0]]));
    check(() => expectArray(Xv, 'float64', [2, 3], [1, 2, 3, 1, 2, 3]));
    check(() => expectCode(() => Xv.fill(0), TypeError, 'ERR_READ_ONLY'));
    const [xsv] = gpuarray.meshgrid(x, y, { copy: false, sparse: true });
    check(() => expect([xsv.base, xsv.shape]).toEqual([x, [1, 3]]));
    // Mixed dtypes, 1 to 3 inputs, both indexings, sparse or not, copy or not, strided and 2-D inputs.
    const a = upload('int32', [4, -1, 7, 0]), b = upload('float16', [0.5, -2, 3]), c = upload('bool', [1, 0, 1, 1, 0], [5]);
    const m2 = upload('complex64', data('complex64', 6), [2, 3]);
    const inputs: GPUArray[][] = [[a], [a, b], [b, a, c], [a.index('::-1'), c.index('1::2'), m2], [m2.T, b]];
    for (const list of inputs) {
      const hv = list.map((t) => download(t)); // C order of each (2-D inputs are flattened, as NumPy)
      for (const indexing of ['xy', 'ij'] as const) {
        for (const sparse of [false, true]) {
          for (const copy of [true, false]) {
            const got = gpuarray.meshgrid(...list, { indexing, sparse, copy });
            const want = refMesh(hv, indexing, sparse);
            check(() => expect(got.length).toBe(list.length));
            got.forEach((g, t) => check(() => expectRef(g, list[t].dtype.name, want[t],
              `meshgrid [${list.map((q) => `(${q.shape})`)}] ${indexing} sparse=${sparse} copy=${copy} #${t}`)));
          }
        }
      }
    }
    const s = new driver.Stream();
    const [P, Q] = gpuarray.meshgrid(a, b, { stream: s, indexing: 'ij' });
    s.synchronize();
    check(() => expectRef(P, 'int32', refMesh([download(a), download(b)], 'ij', false)[0]));
    check(() => expectRef(Q, 'float16', refMesh([download(a), download(b)], 'ij', false)[1]));
    check(() => expectArray(gpuarray.meshgrid(gpuarray.empty([0]), y)[0], 'float64', [2, 0], []));
    check.done();
  }));

  test('diff: every dtype and axis, n > 1 and n ≥ length, bool (not_equal), empty, strided, prepend/append', () => cuda.tidy(() => {
    const check = softly();
    for (const d of TYPES) {
      const vals = data(d, 24), a = upload(d, vals, [2, 3, 4]);
      for (const axis of [-1, 0, 1, 2, -3]) {
        for (const n of [1, 2, 3, 5]) {
          const ax = (axis + 3) % 3;
          check(() => expectRef(gpuarray.diff(a, { n, axis }), d, refDiff(vals, [2, 3, 4], ax, n, d), `${d} diff n=${n} axis=${axis}`));
        }
      }
      check(() => expect(gpuarray.diff(a, { n: 0 })).toBe(a));
      const v = upload(d, vals.slice(0, 5));
      check(() => expectRef(gpuarray.diff(v), d, refDiff(vals.slice(0, 5), [5], 0, 1, d), `${d} 1-D`));
      check(() => expectRef(gpuarray.diff(v, { n: 4 }), d, refDiff(vals.slice(0, 5), [5], 0, 4, d), `${d} n=4`));
      check(() => expectArray(gpuarray.diff(v, { n: 7 }), d, [0], []));
      check(() => expectArray(gpuarray.diff(upload(d, vals.slice(0, 1))), d, [0], []));
      check(() => expectArray(gpuarray.diff(gpuarray.empty([0], d)), d, [0], []));
      check(() => expectArray(gpuarray.diff(gpuarray.empty([2, 0], d), { axis: 0, n: 3 }), d, [0, 0], []));
      for (const view of [a.transpose([2, 0, 1]), a.index('...', '::-1'), a.index(':', '::2', '1:')]) {
        const vv = download(view), shape = [...view.shape];
        check(() => expectRef(gpuarray.diff(view, { axis: 0 }), d, refDiff(vv, shape, 0, 1, d), `${d} view (${shape}) axis 0`));
        check(() => expectRef(gpuarray.diff(view, { n: 2 }), d, refDiff(vv, shape, shape.length - 1, 2, d), `${d} view (${shape}) n=2`));
      }
    }
    const f = gpuarray.toGpu([1, 4, 9, 16]);
    check(() => expectArray(gpuarray.diff(f), 'float64', [3], [3, 5, 7]));
    check(() => expectArray(gpuarray.diff(f, { n: 2 }), 'float64', [2], [2, 2]));
    check(() => expectArray(gpuarray.diff(f, { prepend: 0 }), 'float64', [4], [1, 3, 5, 7]));
    check(() => expectArray(gpuarray.diff(f, { append: 20, prepend: -1 }), 'float64', [5], [2, 3, 5, 7, 4]));
    check(() => expectArray(gpuarray.diff(upload('uint8', [5, 3, 9])), 'uint8', [2], [254, 6]));
    check(() => expectArray(gpuarray.diff(upload('bool', [1, 1, 0, 1])), 'bool', [3], [0, 1, 1]));
    check(() => expectArray(gpuarray.diff(upload('bool', [1, 0]), { prepend: true }), 'bool', [2], [0, 1]));
    // NumPy's dtypes: a JS integer joins as int64, another number as float64, a typed scalar as its dtype.
    const i8 = upload('int8', [100, -100]);
    check(() => expectArray(gpuarray.diff(i8, { prepend: 0 }), 'int64', [2], [100n, -200n]));
    check(() => expectArray(gpuarray.diff(i8, { prepend: cuda.int8(0) }), 'int8', [2], [100, 56]));
    check(() => expectArray(gpuarray.diff(upload('float32', [1, 2]), { prepend: 0.5 }), 'float64', [2], [0.5, 1]));
    check(() => expectArray(gpuarray.diff(upload('float32', [1, 2]), { append: cuda.float32(4) }), 'float32', [2], [1, 2]));
    check(() => expectArray(gpuarray.diff(upload('int32', [1, 2]), { append: { re: 0, im: 1 } }), 'complex128', [2],
      [{ re: 1, im: 0 }, { re: -2, im: 1 }]));
    check(() => expectArray(gpuarray.diff(upload('int64', [1n, 2n]), { prepend: 2n ** 63n }), 'float64', [2],
      [1 - 2 ** 63, 1])); // int64 with uint64 → float64, as NumPy
    // Arrays at the ends: of the input's shape except on the axis, or 0-d (broadcast to length 1).
    const m = upload('int32', [1, 2, 3, 4, 5, 6], [2, 3]);
    check(() => expectArray(gpuarray.diff(m, { axis: 1, append: upload('int32', [10, 20], [2, 1]) }), 'int32', [2, 3],
      [1, 1, 7, 1, 1, 14]));
    check(() => expectArray(gpuarray.diff(m, { axis: 0, prepend: gpuarray.full([], 1, 'int16') }), 'int32', [2, 3],
      [0, 1, 2, 3, 3, 3]));
    check(() => expectArray(gpuarray.diff(m, { prepend: gpuarray.zeros([2, 1], 'float32') }), 'float64', [2, 3],
      [1, 1, 1, 4, 1, 1]));
    const s = new driver.Stream();
    const r = gpuarray.diff(m, { axis: 0, stream: s, append: 0 });
    s.synchronize();
    check(() => expectArray(r, 'int64', [2, 3], [3n, 3n, 3n, -4n, -5n, -6n]));
    check(() => expectCode(() => gpuarray.diff(m, { n: -1 }), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.diff(m, { n: 1.5 }), RangeError, 'ERR_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.diff(m, { n: '1' as never }), TypeError, 'ERR_INVALID_ARG_TYPE'));
    check(() => expectCode(() => gpuarray.diff(m, { axis: 2 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
    check(() => expectCode(() => gpuarray.diff(gpuarray.full([], 1)), RangeError, 'ERR_INVALID_ARG_VALUE'));
    check(() => expectCode(() => gpuarray.diff(m, { prepend: 'x' as never }), TypeError, 'ERR_INVALID_ARG_TYPE'));
    check(() => expectCode(() => gpuarray.diff(m, { append: upload('int32', [1, 2, 3], [3, 1]) }), RangeError, 'ERR_SHAPE_MISMATCH'));
    check(() => expectCode(() => gpuarray.diff(m, { append: upload('int32', [1, 2]) }), RangeError, 'ERR_SHAPE_MISMATCH'));
    check.done();
  }));

  test('ptp: max - min in the input dtype over axes (none, one, several, []), keepdims, out, empty, strided', () => cuda.tidy(() => {
    const check = softly();
    for (const d of TYPES.filter((t) => t !== 'bool')) {
      const vals = data(d, 24, 1), a = upload(d, vals, [2, 3, 4]);
      const axesCases: Array<[number | number[] | undefined, number[]]> = [[undefined, [0, 1, 2]], [0, [0]], [1, [1]], [-1, [2]],
        [[0, 2], [0, 2]], [[2, 0, 1], [0, 1, 2]], [[], []]];
      for (const [axis, axes] of axesCases) {
        for (const keepdims of [false, true]) {
          check(() => expectRef(gpuarray.ptp(a, { axis, keepdims }), d, refReduce(vals, [2, 3, 4], axes, keepdims, refPtp(d)),
            `${d} ptp axis=${JSON.stringify(axis)} keepdims=${keepdims}`));
        }
      }
      const view = a.transpose([2, 0, 1]).index('::-1'), vv = download(view);
      check(() => expectRef(gpuarray.ptp(view, { axis: 1 }), d, refReduce(vv, [...view.shape], [1], false, refPtp(d)), `${d} view`));
      check(() => expectRef(gpuarray.ptp(gpuarray.full([], 3, d)), d, { shape: [], out: [zeroOf(d)] }));
    }
    check(() => expectArray(gpuarray.ptp(upload('int8', [-128, 127])), 'int8', [], [-1])); // wraps, as NumPy's subtract
    const o64 = gpuarray.empty([], 'float64'); // NumPy: max is stored in out, the difference taken in its dtype
    check(() => expect(gpuarray.ptp(upload('int8', [-128, 127]), { out: o64 })).toBe(o64));
    check(() => expectArray(o64, 'float64', [], [255]));
    check(() => expectCode(() => gpuarray.ptp(upload('float32', [1, 2]), { out: gpuarray.empty([], 'int32') }), TypeError, 'ERR_INVALID_DTYPE'));
    check(() => expectArray(gpuarray.ptp(gpuarray.toGpu([[4, 9, 2], [3, 5, 7]]), { axis: 1 }), 'float64', [2], [7, 4]));
    check(() => expectArray(gpuarray.ptp(upload('float32', [1, NaN, 3])), 'float32', [], [NaN]));
    check(() => expectArray(gpuarray.ptp(upload('float32', [Infinity, 1]), { axis: [] }), 'float32', [2], [NaN, 0]));
    check(() => expectArray(gpuarray.ptp(gpuarray.zeros([2, 0]), { axis: 0 }), 'float64', [0], []));
    check(() => expectCode(() => gpuarray.ptp(gpuarray.zeros([0])), RangeError, 'ERR_EMPTY_REDUCTION'));
    check(() => expectCode(() => gpuarray.ptp(gpuarray.zeros([0, 2]), { axis: 0 }), RangeError, 'ERR_EMPTY_REDUCTION'));
    check(() => expectCode(() => gpuarray.ptp(upload('bool', [1, 0])), TypeError, 'ERR_INVALID_DTYPE'));
    check(() => expectCode(() => gpuarray.ptp(upload('int32', [1, 2]), { axis: 1 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
    const ints = upload('int32', data('int32', 12), [3, 4]);
    const out = gpuarray.empty([4], 'float64');
    check(() => expect(gpuarray.ptp(ints, { axis: 0, out })).toBe(out));
    check(() => expectRef(out, 'float64', refReduce(data('int32', 12).map((v) => Number(v)), [3, 4], [0], false, refPtp('float64'))));
    const s = new driver.Stream();
    const r = gpuarray.ptp(ints, { axis: 1, keepdims: true, stream: s });
    s.synchronize();
    check(() => expectRef(r, 'int32', refReduce(data('int32', 12), [3, 4], [1], true, refPtp('int32'))));
    check.done();
  }));

  test('nothing leaks: results freed by dispose(), temporaries freed at once, also on errors', () => {
    const a = upload('float32', data('float32', 12), [3, 4]), v = upload('int32', [1, 2, 3]);
    const before = settledLive();
    const calls: Array<() => GPUArray | GPUArray[]> = [
      () => gpuarray.eye(3, 4, { k: 1 }), () => gpuarray.identity(2), () => gpuarray.diag(v, 1), () => gpuarray.diag(a, -1),
      () => gpuarray.trace(a), () => gpuarray.tril(a, 1), () => gpuarray.triu(v), () => gpuarray.meshgrid(v, a.T),
      () => gpuarray.meshgrid(v, a.T, { copy: false }), () => gpuarray.diff(a, { n: 2, prepend: 1, append: a }),
      () => gpuarray.ptp(a, { axis: 0 }), () => gpuarray.ptp(a, { axis: [] }),
    ];
    for (const call of calls) {
      const r = call();
      // Results, and the owner of views (meshgrid's copy: false of a.T views a flat copy of it).
      for (const o of new Set((Array.isArray(r) ? r : [r]).map((x) => x.base ?? x))) if (o !== a && o !== v) o.dispose();
      expect(live()).toBe(before);
    }
    const d = gpuarray.diagonal(a);
    expect(live()).toBe(before); // a view: no allocation
    d.dispose();
    const tail = upload('float32', [1]), o5 = gpuarray.empty([5]), o2 = gpuarray.empty([2]);
    const made = live();
    expectCode(() => gpuarray.diff(a, { prepend: 1, append: tail }), RangeError, 'ERR_SHAPE_MISMATCH');
    expectCode(() => gpuarray.ptp(a, { out: o5 }), RangeError, 'ERR_SHAPE_MISMATCH');
    expectCode(() => gpuarray.trace(a, { out: o2 }), RangeError, 'ERR_SHAPE_MISMATCH');
    expect(live()).toBe(made);
    for (const x of [a, v, tail, o5, o2]) x.dispose();
  });

  test('arrays of two contexts → TypeError ERR_DEVICE_MISMATCH before any allocation', () => {
    const a = upload('float32', [1, 2, 3, 4], [2, 2]);
    const ctx = new driver.Device(0).makeContext();
    expect(ctx).toBeInstanceOf(driver.Context);
    let b: GPUArray;
    try {
      b = upload('float32', [5, 6, 7, 8], [2, 2]);
    } finally {
      driver.Context.pop();
    }
    const before = settledLive();
    const bad = (fn: () => unknown): void => {
      expectCode(fn, TypeError, 'ERR_DEVICE_MISMATCH');
      expect(live()).toBe(before);
    };
    bad(() => gpuarray.meshgrid(a, b!));
    bad(() => gpuarray.diff(a, { prepend: b! }));
    bad(() => gpuarray.diff(a, { append: b!.index(':', '0:1') }));
    bad(() => gpuarray.tril(b!));
    bad(() => gpuarray.triu(b!, 1));
    bad(() => gpuarray.diag(b!));
    bad(() => gpuarray.trace(b!));
    bad(() => gpuarray.ptp(b!));
    bad(() => gpuarray.trace(a, { out: b!.index(0, 0) }));
    for (const x of [a, b!]) x.dispose();
  });

  afterAll(async () => {
    await collect();
    expect(settledLive()).toBe(baseline);
  });
});
