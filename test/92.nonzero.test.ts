/**
 * nonzero, flatnonzero, argwhere, extract, countNonzero and compress (lib/array/nonzero.ts) on a real GPU
 * against a CPU reference: every dtype (NaN nonzero, -0 zero, complex with one part nonzero),
 * sizes around the tile and chunk boundaries and past many chunks, 1-D to 3-D, transposed and
 * stepped views (C order of the view), all or no elements nonzero, 0-d and empty arrays, a stream,
 * the method; argument errors.
 */
import * as cuda from '../lib';
import { GPUArray, gpuarray, slice } from '../lib';
import type { DTypeName } from '../lib';
import { describeGpu, expectCode } from './helpers';
import { C, DTYPE_NAMES, V, download, kind, nonzero as isNonzero, softly, upload, viewOf } from './reference';
import { rng } from './reduce-reference';
import { sameV, values } from './sort-reference';

const zeroOf = (d: DTypeName): V => (kind(d) === 'c' ? { re: 0, im: 0 } : d.endsWith('64') && kind(d) !== 'f' ? 0n : 0);

/** n values of d, about `zeros` of them zero (for floats some -0), the rest values()'s (NaN/±Inf included). */
function sparse(d: DTypeName, n: number, seed: number, zeros = 0.5): V[] {
  const r = rng(seed + 1000);
  return values(d, n, seed).map((v) => {
    if (r() >= zeros) return v;
    if (kind(d) === 'f' && r() < 0.3) return -0;
    if (kind(d) === 'c' && r() < 0.3) return { re: -0, im: 0 } as C;
    return zeroOf(d);
  });
}

const flatRef = (xs: V[]): number[] => xs.flatMap((v, i) => (isNonzero(v as never) ? [i] : []));
const ints = (a: GPUArray): number[] => Array.from(a.get() as BigInt64Array, Number);
const strides = (shape: number[]): number[] => shape.map((_, i) => shape.slice(i + 1).reduce((p, q) => p * q, 1));
const coords = (i: number, shape: number[]): number[] => shape.map((n, d) => Math.floor(i / strides(shape)[d]) % n);

/** Checks every function on `a` (values `xs` in C order). */
function checkAll(a: GPUArray, xs: V[], label: string, stream?: cuda.Stream): void {
  const shape = [...a.shape];
  const want = flatRef(xs);
  const tag = `${a.dtype.name} (${shape}) ${label}`;
  const f = gpuarray.flatnonzero(a, { stream });
  expect({ tag, got: ints(f) }).toEqual({ tag, got: want });
  if (a.ndim > 0) {
    const nz = gpuarray.nonzero(a, { stream });
    expect({ tag, n: nz.length }).toEqual({ tag, n: a.ndim });
    nz.forEach((x, d) => expect({ tag, d, got: ints(x) }).toEqual({ tag, d, got: want.map((i) => coords(i, shape)[d]) }));
    for (const x of nz) x.dispose();
  }
  const w = gpuarray.argwhere(a, { stream });
  expect({ tag, shape: [...w.shape] }).toEqual({ tag, shape: [want.length, a.ndim] });
  expect({ tag, got: ints(w) }).toEqual({ tag, got: want.flatMap((i) => coords(i, shape)) });
  // extract: of the array itself (its bits kept) and of a float64 arange.
  const e = gpuarray.extract(a, a, { stream });
  expect(e.dtype.name).toBe(a.dtype.name);
  const got = download(e);
  expect({ tag, n: got.length }).toEqual({ tag, n: want.length });
  const bad = want.findIndex((i, j) => !sameV(got[j], xs[i]));
  if (bad >= 0) throw new Error(`${tag}: extract mismatch at ${bad}`);
  const idx = gpuarray.arange(0, a.size, 1, 'float64').reshape(a.ndim ? shape : []);
  expect({ tag, got: Array.from(gpuarray.extract(a, idx, { stream }).get() as Float64Array) }).toEqual({ tag, got: want });
  expect({ tag, count: Number(gpuarray.countNonzero(a, { stream }).item()) }).toEqual({ tag, count: want.length });
  for (const x of [f, w, e, idx]) x.dispose();
}

describeGpu('nonzero, flatnonzero, argwhere, extract, countNonzero', () => {
  test.each(DTYPE_NAMES)('%s: sizes around the tile and chunks, every pattern', (d) => {
    const soft = softly();
    // Tiles are 4096 elements, 16 a thread (16-byte vector loads where the array is aligned).
    for (const n of [1, 3, 15, 16, 17, 1023, 4095, 4096, 4097, 8193, 300001]) {
      for (const zeros of [0.5, 0, 1]) {
        const xs = sparse(d, n, n, zeros);
        const a = upload(d, xs);
        soft(() => checkAll(a, xs, `zeros ${zeros}`));
        // A contiguous view one element in: not 16-byte aligned (but for 16-byte elements).
        if (n === 8193 && zeros === 0.5) soft(() => checkAll(a.index(slice(1, null)), xs.slice(1), 'offset view'));
        a.dispose();
      }
    }
    // 2-D and 3-D, and the sums along an axis.
    const xs = sparse(d, 6 * 7 * 5, 11);
    const a = upload(d, xs, [6, 7, 5]);
    soft(() => checkAll(a, xs, '3-D'));
    soft(() => checkAll(a.reshape([42, 5]), xs, '2-D'));
    soft(() => {
      const c = gpuarray.countNonzero(a, { axis: [0, 2], keepdims: true });
      expect([...c.shape]).toEqual([1, 7, 1]);
      const want = Array.from({ length: 7 }, (_, j) => xs.filter((v, i) => Math.floor(i / 5) % 7 === j && isNonzero(v as never)).length);
      expect(ints(c)).toEqual(want);
    });
    a.dispose();
    soft.done();
  });

  test('views, 0-d, empty, a stream, the method', () => {
    const soft = softly();
    const xs = sparse('float32', 8 * 9, 5);
    const a = upload('float32', xs, [8, 9]);
    soft(() => checkAll(a.transpose(), viewOf(xs, [9, 8], [1, 9]), 'transposed'));
    soft(() => checkAll(a.index(slice(1, null, 3), slice(null, null, -2)), viewOf(xs, [3, 5], [27, -2], 9 + 8), 'stepped'));
    soft(() => checkAll(gpuarray.toGpu(new Float32Array([0, 2])).broadcastTo([3, 2]), [0, 2, 0, 2, 0, 2], 'broadcast'));
    // Chunks of several tiles (a chunk a resident block, at most 1024): flatnonzero and extract
    // against a loop (the checks of checkAll are slow at this size).
    const n = 3 * 2 ** 21 + 5;
    const big = new Float32Array(n);
    const r = rng(77);
    for (let i = 0; i < n; i++) big[i] = r() < 0.7 ? 0 : i;
    const b = gpuarray.toGpu(big);
    soft(() => {
      const f = gpuarray.flatnonzero(b).get() as BigInt64Array;
      const e = gpuarray.extract(b, b).get() as Float32Array;
      let k = 0, bad = -1;
      for (let i = 0; i < n && bad < 0; i++) {
        if (big[i] === 0) continue;
        if (Number(f[k]) !== i || e[k] !== big[i]) bad = i;
        k++;
      }
      expect({ bad, k, n: f.length, ne: e.length }).toEqual({ bad: -1, k, n: k, ne: k });
    });
    b.dispose();
    const stream = new cuda.driver.Stream();
    soft(() => checkAll(a, xs, 'stream', stream));
    stream.dispose();
    // The method, as NumPy's ndarray.nonzero.
    soft(() => expect(a.nonzero().map(ints)).toEqual([0, 1].map((d) => flatRef(xs).map((i) => coords(i, [8, 9])[d]))));
    // 0-d: argwhere [1, 0] or [0, 0]; nonzero refused (NumPy 2).
    soft(() => expect([...gpuarray.argwhere(gpuarray.full([], 3, 'int32')).shape]).toEqual([1, 0]));
    soft(() => expect([...gpuarray.argwhere(gpuarray.zeros([], 'int32')).shape]).toEqual([0, 0]));
    soft(() => expect(ints(gpuarray.flatnonzero(gpuarray.full([], 3, 'int32')))).toEqual([0]));
    soft(() => expectCode(() => gpuarray.nonzero(gpuarray.zeros([])), RangeError, 'ERR_INVALID_ARG_VALUE'));
    // Empty.
    const z = gpuarray.zeros([0, 4]);
    soft(() => expect(gpuarray.nonzero(z).map((x) => [...x.shape])).toEqual([[0], [0]]));
    soft(() => expect([...gpuarray.argwhere(z).shape]).toEqual([0, 2]));
    soft(() => expect([...gpuarray.extract(z, z).shape]).toEqual([0]));
    soft(() => expect(Number(gpuarray.countNonzero(z).item())).toBe(0));
    a.dispose();
    soft.done();
  });

  test('compress: a GPUArray or JS condition, along an axis or flattened, shorter, and a nonzero entry past the axis', () => {
    const m = gpuarray.toGpu(new Float32Array([1, 2, 3, 4, 5, 6])).reshape([2, 3]);
    const f32 = (x: GPUArray): number[] => Array.from(x.get() as Float32Array);
    const b = (xs: boolean[]): GPUArray => gpuarray.toGpu(Uint8Array.from(xs, Number), { dtype: 'bool' });
    const r1 = gpuarray.compress(b([true, false, true]), m, { axis: 1 });
    expect([[...r1.shape], f32(r1)]).toEqual([[2, 2], [1, 3, 4, 6]]);
    const r2 = gpuarray.compress([1, 0], m, { axis: 0 });
    expect([[...r2.shape], f32(r2)]).toEqual([[1, 3], [1, 2, 3]]);
    const r3 = gpuarray.compress(b([false, true, false, false, true]), m);
    expect([[...r3.shape], f32(r3)]).toEqual([[2], [2, 5]]);
    const r4 = gpuarray.compress([true], m, { axis: -1 });
    expect([[...r4.shape], f32(r4)]).toEqual([[2, 1], [1, 4]]);
    const r5 = gpuarray.compress(gpuarray.zeros([3], 'int32'), m, { axis: 1 });
    expect([...r5.shape]).toEqual([2, 0]);
    expectCode(() => gpuarray.compress([0, 0, 0, 1], m, { axis: 1 }), RangeError, 'ERR_INDEX_OUT_OF_RANGE');
    expectCode(() => gpuarray.compress(gpuarray.toGpu(new Float32Array([0, 0, 0, 2])), m, { axis: 1 }), RangeError, 'ERR_INDEX_OUT_OF_RANGE');
    expectCode(() => gpuarray.compress(gpuarray.zeros([2, 2]), m), RangeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => gpuarray.compress(['x'] as never, m), TypeError, 'ERR_INVALID_ARG_TYPE');
    // A condition whose buffer was transferred: a typed error, not V8's own.
    const gone = new Uint8Array([1, 0, 1]);
    structuredClone(gone.buffer, { transfer: [gone.buffer] });
    expectCode(() => gpuarray.compress(gone, m, { axis: 1 }), TypeError, 'ERR_INVALID_STATE');
    expect(f32(gpuarray.compress([true, true], m, { axis: 0 }))).toEqual([1, 2, 3, 4, 5, 6]); // still working
  });

  test('argument errors', () => {
    const a = gpuarray.zeros([3]);
    expectCode(() => gpuarray.flatnonzero([1, 2] as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.extract(a, gpuarray.zeros([4])), RangeError, 'ERR_SHAPE_MISMATCH');
    expectCode(() => gpuarray.extract(a, 3 as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.nonzero(a, { axis: 0 } as never), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => gpuarray.countNonzero(a, { axis: 1 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
    const gone = gpuarray.zeros([3]);
    gone.dispose();
    expect(() => gpuarray.argwhere(gone)).toThrow();
    expect(ints(gpuarray.flatnonzero(gpuarray.toGpu(new Float32Array([0, 1, 0, NaN]))))).toEqual([1, 3]); // still working
  });
});
