/**
 * ElementwiseKernel on a GPU against a CPU reference: the PyCUDA linear combination for every
 * dtype and size, range/slice, loopPrep/afterLoop, preamble functions, half and complex code,
 * call-time errors, compile-once; the CuPy form with broadcasting, strided operands, raw
 * arguments, typed and placeholder parameters, allocated, given, read and several outputs.
 */
import * as os from 'os';
import * as path from 'path';
import * as fs from 'fs';
import { DTypeName, ElementwiseKernel, GPUArray, Scalar, dtype, gpuarray, slice } from '../lib';
import { native } from '../lib/cuda/native';
import { describeGpu, expectCode } from './helpers';
import {
  C, DTYPE_NAMES, V, download, expectArray, expectSame, half, kind, nonzero, store, toBf16, upload, viewOf, wrap,
} from './reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, BigInt } = globalThis;

const C_NAMES: Record<string, string> = {
  bool: 'bool', int8: 'signed char', uint8: 'unsigned char', int16: 'short', uint16: 'unsigned short', int32: 'int',
  uint32: 'unsigned int', int64: 'long long', uint64: 'unsigned long long', float16: 'half', bfloat16: '__nv_bfloat16', float32: 'float',
  float64: 'double', complex64: 'pycuda::complex<float>', complex128: 'pycuda::complex<double>',
};
const FLOATS = [0, -0, 1, -1.5, 2.25, 1000, -7.125, NaN, Infinity, -Infinity, 0.1, 3e-5, 65504, -0.25];
const INTS = [0, 1, -1, 2, -128, 127, 255, 1000, -32768, 65535, 2147483647, -2147483648, 123456789, 7];

/** `n` test values of dtype d (specials for floats, edges for ints), as d holds them. */
function values(d: DTypeName, n: number, shift = 0): V[] {
  return Array.from({ length: n }, (_, i) => {
    const j = (i * 7 + shift) % 14;
    switch (kind(d)) {
      case 'b': return (i + shift) % 3 === 0 ? 1 : 0;
      case 'i': case 'u': return store(d, BigInt(INTS[j]) * BigInt(i % 5 + 1));
      case 'f': return store(d, FLOATS[j]);
      default: return store(d, { re: FLOATS[j], im: FLOATS[(j + 5) % 14] });
    }
  });
}

const R = (d: DTypeName) => d === 'float32' || d === 'complex64' ? Math.fround : (x: number) => x;

/** z = a*x + b*y in d's C arithmetic (a = 2, b = -0.5 for floats: exact products). */
function linRef(d: DTypeName, a: V, b: V, x: V, y: V): V {
  switch (kind(d)) {
    case 'b': return nonzero(x) || nonzero(y) ? 1 : 0;
    case 'i': case 'u': return wrap(d, BigInt(a as number | bigint) * BigInt(x as number | bigint) + BigInt(b as number | bigint) * BigInt(y as number | bigint));
    case 'f': return d === 'float16' ? half((a as number) * (x as number) + (b as number) * (y as number))
      : d === 'bfloat16' ? toBf16((a as number) * (x as number) + (b as number) * (y as number))
      : R(d)(R(d)((a as number) * (x as number)) + R(d)((b as number) * (y as number)));
    default: {
      const r = R(d), A = a as C, B = b as C, X = x as C, Y = y as C;
      const re = r(r(r(A.re * X.re) - r(A.im * X.im)) + r(r(B.re * Y.re) - r(B.im * Y.im)));
      const im = r(r(r(A.re * X.im) + r(A.im * X.re)) + r(r(B.re * Y.im) + r(B.im * Y.re)));
      return { re, im };
    }
  }
}

function scalars(d: DTypeName): { a: unknown; b: unknown; av: V; bv: V } {
  switch (kind(d)) {
    case 'b': return { a: true, b: true, av: 1, bv: 1 };
    // A plain number must fit the C type (RangeError otherwise): unsigned types get -2 as an explicit
    // cast, a Scalar (uint64: its wrapped value as a bigint, since the cast range-checks 64 bits).
    case 'i': return { a: 3, b: -2, av: store(d, 3n), bv: store(d, -2n) };
    case 'u': return { a: 3, b: d === 'uint64' ? 2n ** 64n - 2n : new Scalar(dtype(d), 2 ** (8 * dtype(d).bytes) - 2),
      av: store(d, 3n), bv: store(d, -2n) };
    case 'f': return { a: 2, b: -0.5, av: 2, bv: -0.5 };
    default: return { a: { re: 2, im: 0 }, b: new Scalar(dtype(d), { re: -0.5, im: 0 }), av: { re: 2, im: 0 }, bv: { re: -0.5, im: 0 } };
  }
}

describeGpu('ElementwiseKernel (PyCUDA form)', () => {
  test.each(DTYPE_NAMES.map((d) => [d]))('%s: z[i] = a*x[i] + b*y[i], sizes 0, 1, 31, 1003 (+2^20+3)', (d) => {
    const c = C_NAMES[d];
    const lin = new ElementwiseKernel(`${c} a, const ${c} *x, ${c} b, const ${c} *y, ${c} *z`, 'z[i] = a*x[i] + b*y[i]', 'linear_combination');
    const { a, b, av, bv } = scalars(d);
    for (const n of d === 'float32' ? [0, 1, 31, 1003, 2 ** 20 + 3] : [0, 1, 31, 1003]) {
      const xs = values(d, n), ys = values(d, n, 5);
      const x = upload(d, xs), y = upload(d, ys), z = gpuarray.zeros([n], d);
      lin(a, x, b, y, z);
      expectSame(download(z), xs.map((xv, i) => linRef(d, av, bv, xv, ys[i])), 0, d, `${d}[${n}]`, undefined, false);
    }
  });

  test('whole-array calls run the unrolled __restrict__ loop only when the arrays do not overlap and the code uses no loop locals', () => {
    const modes = (k: ElementwiseKernel): string[] => [...(k as unknown as { loaded: Map<string, unknown> }).loaded.keys()];
    const axpy = new ElementwiseKernel('float a, float *x, float *y, float *z', 'z[i] = a*x[i] + y[i]', 'axpy_modes');
    expect(axpy.generatedSource('unrolled').source).toContain('float *__restrict__ z');
    for (const n of [1, 255, 1023, 1024, 1025, 4099, 2 ** 18 + 5]) {
      const xs = Array.from({ length: n }, (_, i) => (i % 97) - 40.25), ys = Array.from({ length: n }, (_, i) => (i % 13) * 0.5);
      const want = xs.map((v, i) => Math.fround(Math.fround(2 * v) + ys[i]));
      const x = upload('float32', xs), y = upload('float32', ys), z = gpuarray.zeros([n], 'float32');
      axpy(2, x, y, z);
      expectSame(download(z), want, 0, 'float32', `unrolled, n=${n}`);
      axpy(2, x, y, y); // in place: y is read and written, the plain loop
      expectSame(download(y), want, 0, 'float32', `in place, n=${n}`);
    }
    expect(modes(axpy).sort()).toEqual(['narrow', 'unrolled']);
    // Overlapping views of one buffer (z = x shifted by one element) take the plain loop. Which
    // value most elements get is a race in any elementwise kernel; the last reads an unwritten one.
    const shift = new ElementwiseKernel('float *x, float *z', 'z[i] = x[i] * 2', 'shift_modes');
    const buf = upload('float32', Array.from({ length: 2049 }, (_, i) => i));
    shift(buf.index(slice(1, 2049)), buf.index(slice(0, 2048)));
    expect(modes(shift)).toEqual(['narrow']);
    expect((download(buf) as number[])[2047]).toBe(4096);
    // Code naming a loop local keeps PyCUDA's loop (one element a thread, its locals defined).
    const locals = new ElementwiseKernel('int *z', 'z[i] = (int)(total_threads > 0)', 'locals_modes');
    const zi = gpuarray.zeros([3000], 'int32');
    locals(zi);
    expect(modes(locals)).toEqual(['narrow']);
    expect((download(zi) as number[]).every((v) => v === 1)).toBe(true);
  });

  test('range and slice (PyCUDA semantics), negative steps, out of range', () => {
    const k = new ElementwiseKernel('float *x, float *z', 'z[i] = x[i] + 1', 'plus1');
    const n = 1000;
    const xs = Array.from({ length: n }, (_, i) => i * 0.5);
    const x = upload('float32', xs);
    const cases: Array<[object, number[]]> = [
      [{ slice: slice(1, null, 3) }, range(1, n, 3)],
      [{ slice: slice(-5, null, -2) }, range(n - 5, -1, -2)],
      [{ slice: [null, 10] }, range(0, 10, 1)],
      [{ range: { start: 2, stop: 20, step: 4 } }, range(2, 20, 4)],
      [{ range: [999, 0, -7] }, range(999, 0, -7)],
      [{ range: slice(5, 5) }, []],
    ];
    for (const [opts, idx] of cases) {
      const z = gpuarray.zeros([n], 'float32');
      k(x, z, opts);
      const want = new Array(n).fill(0);
      for (const i of idx) want[i] = Math.fround(xs[i] + 1);
      expectSame(download(z), want, 0, 'float32', JSON.stringify(opts));
    }
    const z = gpuarray.zeros([n], 'float32');
    expectCode(() => k(x, z, { range: [0, n + 1] }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => k(x, z, { range: [-1, 5] }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => k(x, z, { range: [0, 5], slice: [0, 5] }), TypeError, 'ERR_INVALID_ARG_VALUE');
  });

  test('loopPrep, afterLoop and preamble functions', () => {
    const k = new ElementwiseKernel('float *x, float *z, int *count', 'visits++; z[i] = sq(x[i])', 'visits', {
      preamble: '__device__ float sq(float v) { return v * v; }',
      loopPrep: 'int visits = 0;',
      afterLoop: 'if (visits > 0) atomicAdd(&count[0], visits);',
    });
    for (const n of [1, 31, 2 ** 20 + 3]) {
      const xs = Array.from({ length: n }, (_, i) => (i % 100) - 50.5);
      const x = upload('float32', xs), z = gpuarray.zeros([n], 'float32'), count = gpuarray.zeros([n], 'int32');
      k(x, z, count);
      expectSame(download(z), xs.map((v) => Math.fround(v * v)), 0, 'float32');
      expect(download(count)[0]).toBe(n);
    }
  });

  test('half, bfloat16 and complex operations', () => {
    const hk = new ElementwiseKernel('half *h, half s', 'h[i] += s; h[i] *= 2; h[i] = h[i] > 10.0f ? -h[i] : h[i]', 'hops');
    const hs = [0, 1, 2.5, 6, -3, 65504, NaN].map(half);
    const h = upload('float16', hs);
    hk(h, 0.5);
    const step = (v: number) => { const a = half(half(v + 0.5) * 2); return a > 10 ? -a : a; };
    expectSame(download(h), hs.map(step), 0, 'float16');

    const bk = new ElementwiseKernel('__nv_bfloat16 *h, nv_bfloat16 s, const double *d, const long long *l, float *back',
      'h[i] += s; h[i] *= 2; h[i] = h[i] > 10.0f ? -h[i] : h[i]; back[i] = h[i]; if (i % 2) h[i] = d[i]; else h[i] = l[i];', 'bops');
    const bs = [0, 1, 2.5, 6, -3, 3e38, NaN].map(toBf16);
    const bh = upload('bfloat16', bs), back = gpuarray.zeros([7], 'float32');
    // Odd i: a double just above a bfloat16 tie; even i: a 64-bit integer just above one (both round once, up).
    const ds = bs.map(() => 1 + 2 ** -8 + 2 ** -40), ls = bs.map(() => 2n ** 56n + 2n ** 48n + 1n);
    bk(bh, 0.5, upload('float64', ds), upload('int64', ls), back);
    const bstep = (v: number) => { const a = toBf16(toBf16(v + 0.5) * 2); return a > 10 ? -a : a; };
    expectSame(download(back), bs.map(bstep), 0, 'float32');
    expectSame(download(bh), bs.map((_, i) => (i % 2 ? 1 + 2 ** -7 : 2 ** 56 + 2 ** 49)), 0, 'bfloat16');

    const ck = new ElementwiseKernel('pycuda::complex<double> *x, double s, double *re, pycuda::complex<double> *z',
      'z[i] = conj(x[i]) * s + x[i]; re[i] = real(x[i]) + imag(x[i]) + norm(x[i])', 'cops');
    const xs: C[] = [{ re: 1, im: 2 }, { re: -0.5, im: 3 }, { re: 4, im: -1 }];
    const x = upload('complex128', xs), re = gpuarray.zeros([3], 'float64'), z = gpuarray.zeros([3], 'complex128');
    ck(x, 3, re, z);
    expectSame(download(z), xs.map((c) => ({ re: c.re * 3 + c.re, im: -c.im * 3 + c.im })), 0, 'complex128');
    expectSame(download(re), xs.map((c) => c.re + c.im + (c.re * c.re + c.im * c.im)), 0, 'float64');
  });

  test('call-time errors name the parameter', () => {
    const k = new ElementwiseKernel('float a, float *x, float *z', 'z[i] = a * x[i]', 'ax');
    const x = gpuarray.zeros([4], 'float32'), z = gpuarray.zeros([4], 'float32');
    expectCode(() => k(1, x), TypeError, 'ERR_INVALID_ARG_COUNT');
    expectCode(() => k(1, x, z, z), TypeError, 'ERR_INVALID_ARG_COUNT');
    expect(expectCode(() => k(1, gpuarray.zeros([4], 'float64'), z), TypeError, 'ERR_INVALID_DTYPE').message).toContain('"x"');
    expect(expectCode(() => k(x, x, z), TypeError, 'ERR_INVALID_ARG_TYPE').message).toContain('"a"');
    expect(expectCode(() => k(1, 2, z), TypeError, 'ERR_INVALID_ARG_TYPE').message).toContain('"x"');
    const t = gpuarray.zeros([2, 2], 'float32').T;
    expect(expectCode(() => k(1, t, z), TypeError, 'ERR_NOT_CONTIGUOUS').message).toContain('a.copy()');
    expectCode(() => k(1, x, gpuarray.zeros([5], 'float32')), RangeError, 'ERR_SHAPE_MISMATCH');
    expectCode(() => k(1, x, z, { grid: [1] }), TypeError, 'ERR_INVALID_ARG_VALUE');
    // Integer scalars must fit their C type; an explicit Scalar is a (wrapping) cast.
    const ku = new ElementwiseKernel('unsigned int m, unsigned char c, float *z', 'z[i] = (float)m + (float)c', 'uc');
    expect(expectCode(() => ku(-1, 0, z), RangeError, 'ERR_OUT_OF_RANGE').message).toContain('"m"');
    expect(expectCode(() => ku(1, 256, z), RangeError, 'ERR_OUT_OF_RANGE').message).toContain('"c"');
    expectCode(() => ku(NaN, 0, z), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => ku(1.5, 0, z), RangeError, 'ERR_OUT_OF_RANGE');
    ku(new Scalar(dtype('uint32'), 7), new Scalar(dtype('uint8'), 255), z);
    expect(Array.from(z.get() as Float32Array)).toEqual([262, 262, 262, 262]);
  });

  test('identical kernels compile once per process', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-ek87-'));
    const prev = process.env.NODECUDA_CACHE_DIR;
    process.env.NODECUDA_CACHE_DIR = dir;
    const x = gpuarray.ones([8], 'float32'), z = gpuarray.zeros([8], 'float32');
    const spy = jest.spyOn(native, 'compile');
    try {
      const op = `z[i] = x[i] * ${Date.now()}.0f`;
      new ElementwiseKernel('float *x, float *z', op, 'twice')(x, z);
      new ElementwiseKernel('float *x, float *z', op, 'twice')(x, z);
      const k = new ElementwiseKernel('float *x, float *z', op, 'twice');
      k(x, z); k(x, z);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
      if (prev === undefined) delete process.env.NODECUDA_CACHE_DIR; else process.env.NODECUDA_CACHE_DIR = prev;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

function range(start: number, stop: number, step: number): number[] {
  const out: number[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(i);
  return out;
}

/** x + y in d (T = d's compute type; stored as d). */
function addRef(d: DTypeName, x: V, y: V): V {
  switch (kind(d)) {
    case 'b': return nonzero(x) || nonzero(y) ? 1 : 0;
    case 'i': case 'u': return wrap(d, BigInt(x as number | bigint) + BigInt(y as number | bigint));
    case 'f': return d === 'float16' ? half((x as number) + (y as number)) : d === 'bfloat16' ? toBf16((x as number) + (y as number))
      : R(d)((x as number) + (y as number));
    default: return { re: R(d)((x as C).re + (y as C).re), im: R(d)((x as C).im + (y as C).im) };
  }
}

describeGpu('ElementwiseKernel.generic (CuPy form)', () => {
  const add = ElementwiseKernel.generic('T x, T y', 'T z', 'z = x + y', 'gadd');

  test.each(DTYPE_NAMES.map((d) => [d]))('%s: broadcast + strided operands, allocated output', (d) => {
    // X = base[5,2,3].T[:, 1:, :] → shape [3,1,5]; Y = base[4,2][::-1, ::2] → shape [4,1]; result [3,4,5].
    const bx = values(d, 30), by = values(d, 8, 3);
    const X = upload(d, bx, [5, 2, 3]).T.index(':', '1:', ':');
    const Y = upload(d, by, [4, 2]).index('::-1', '::2');
    const hx = viewOf(bx, [3, 1, 5], [1, 3, 6], 3), hy = viewOf(by, [4, 1], [-2, 2], 6);
    const z = add(X, Y) as GPUArray;
    const want: V[] = [];
    for (let a = 0; a < 3; a++) for (let b = 0; b < 4; b++) for (let c = 0; c < 5; c++) want.push(addRef(d, hx[a * 5 + c], hy[b]));
    expectArray(z, d, [3, 4, 5], want, 0, d, false);
    for (const n of [0, 1, 31, 1003]) {
      const xs = values(d, n), ys = values(d, n, 9);
      expectArray(add(upload(d, xs), upload(d, ys)) as GPUArray, d, [n], xs.map((v, i) => addRef(d, v, ys[i])), 0, d, false);
    }
  });

  test('raw arguments use the flat index i; given outputs are read (z += x); several outputs', () => {
    const k = ElementwiseKernel.generic('T x, raw T a', 'T z, float64 w', 'z += x * a[(i + 1) % a.size()]; w = (double)i', 'rawk');
    const xs = [1, 2, 3, 4, 5, 6], as = [10, 20, 30];
    const x = upload('float32', xs, [2, 3]), a = upload('float32', as), z = upload('float32', [1, 1, 1, 1, 1, 1], [2, 3]);
    const [zz, w] = k(x, a, z, null) as GPUArray[];
    expect(zz).toBe(z);
    expectArray(z, 'float32', [2, 3], xs.map((v, i) => Math.fround(1 + v * as[(i + 1) % 3])));
    expectArray(w, 'float64', [2, 3], [0, 1, 2, 3, 4, 5]);
    // Raw output with atomics, size from the option when no non-raw array gives it.
    const hist = ElementwiseKernel.generic('raw int32 v', 'raw int32 h', 'atomicAdd(&h[v[i] % h.size()], 1)', 'hist');
    const v = upload('int32', [0, 1, 1, 2, 2, 2, 5]), h = gpuarray.zeros([3], 'int32');
    hist(v, h, { size: 7 });
    expectArray(h, 'int32', [3], [1, 2, 4]);
  });

  test('placeholders from scalars and typed parameters', () => {
    const axpb = ElementwiseKernel.generic('T x, T a, float64 b', 'T z', 'z = a * x + (T)b', 'axpb');
    const x = upload('float32', [1, 2, 3]);
    expectArray(axpb(x, 2.5, 0.5) as GPUArray, 'float32', [3], [3, 5.5, 8]);
    expectArray(axpb(upload('int16', [1, 2, 3]), 2.5, 1) as GPUArray, 'int16', [3], [3, 5, 7]); // 2.5 → int16 2
    // A weak number that T cannot hold is an error (NumPy 2's OverflowError), not a wrapped value.
    expectCode(() => axpb(upload('uint8', [1, 2]), 300, 0), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => axpb(upload('uint8', [1, 2]), -1, 0), RangeError, 'ERR_OUT_OF_RANGE');
    expectArray(axpb(upload('uint8', [1, 2]), new Scalar(dtype('uint8'), 255), 0) as GPUArray, 'uint8', [2], [255, 254]);
    const conv = ElementwiseKernel.generic('float32 x', 'int32 z', 'z = (int)(x * 2)', 'conv');
    expectArray(conv(upload('int16', [1, -2, 3])) as GPUArray, 'int32', [3], [2, -4, 6]);
    expectCode(() => add(x, upload('float64', [1, 2, 3])), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => add(x), TypeError, 'ERR_INVALID_ARG_COUNT');
    expectCode(() => add(x, x, gpuarray.zeros([4], 'float32')), RangeError, 'ERR_SHAPE_MISMATCH');
    expectCode(() => ElementwiseKernel.generic('T x, raw T a', 'T z', 'z = x')(x, x.index('::2')), TypeError, 'ERR_NOT_CONTIGUOUS');
    expectCode(() => ElementwiseKernel.generic('T x', 'U z', 'z = x')(x), TypeError, 'ERR_INVALID_DTYPE');
    // Partial overlap of output and input: computed as if from a copy.
    const base = upload('float32', [1, 2, 3, 4, 5]);
    const shift = ElementwiseKernel.generic('T x', 'T z', 'z = x * 10', 'shift');
    shift(base.index('0:4'), base.index('1:5'));
    expectArray(base, 'float32', [5], [1, 10, 20, 30, 40]);
  });
});
