/**
 * GPUArray operators on a real GPU, against the CPU reference in reference.ts (NumPy 2 semantics):
 * every operator × every dtype, contiguous, strided + broadcast (different ranks) and scalar
 * operands; reverse forms; where/ifPositive; sizes 0, 1, 31, 2^20+3; non-contiguous operands;
 * `out` (aliasing, partial overlap, poisoned buffers, strided); NumPy 2 scalar promotion; astype
 * between every pair of dtypes, fill and copy.
 */
import * as cuda from '../lib';
import { GPUArray, gpuarray } from '../lib';
import type { DTypeName } from '../lib';
import { collect, describeGpu, expectCode, settledLive } from './helpers';
import {
  C, COMPLEX_POW, DTYPE_NAMES, OPS, OpRef, V, bf16Of, broadcast2, download, expectArray, expectSame, halfOf, kind, nonzero, pairs,
  pool, scalarFor, show, softly, store, upload, viewOf,
} from './reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number } = globalThis;

type Fn = (...args: unknown[]) => GPUArray;
const method = (a: GPUArray, name: string, ...args: unknown[]): GPUArray => (a as unknown as Record<string, Fn>)[name](...args);
const fn = (name: string, ...args: unknown[]): GPUArray => (gpuarray as unknown as Record<string, Fn>)[name](...args);
/** `n` values cycling through `xs`, starting at `from`, stepping `step`. */
const cyc = (xs: V[], n: number, from = 0, step = 1): V[] => Array.from({ length: n }, (_, i) => xs[(from + i * step) % xs.length]);
const zero = (d: DTypeName): V => kind(d) === 'c' ? { re: 0, im: 0 } : d.endsWith('64') && kind(d) !== 'f' ? 0n : 0;
const live = (): number => cuda.memory().liveAllocations;
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const cplx = (re: number, im: number): C => ({ re, im });

const BINARY = ['add', 'sub', 'mul', 'div', 'pow', 'mod', 'floorDiv', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'and', 'or', 'xor',
  'shl', 'shr', 'maximum', 'minimum', 'logicalAnd', 'logicalOr', 'logicalXor'];
const UNARY = ['neg', 'abs', 'not', 'logicalNot'];
const REVERSE: Record<string, string> = { rsub: 'sub', rdiv: 'div', rpow: 'pow', rmod: 'mod', rfloorDiv: 'floorDiv' };

/**
 * Strided, broadcast operands of different ranks: X = base[5,2,3].T[:, 1:, :] (shape [3,1,5])
 * and Y = base[4,2][::-1, ::2] (shape [4,1]); their host values in C order.
 */
function stridedPair(d: DTypeName, xs: V[], ys: V[]): { X: GPUArray; Y: GPUArray; hx: V[]; hy: V[] } {
  const bx = cyc(xs, 30, 0), by = cyc(ys, 8, 3, 5);
  const X = upload(d, bx, [5, 2, 3]).T.index(':', '1:', ':');
  const Y = upload(d, by, [4, 2]).index('::-1', '::2');
  expect([...X.shape]).toEqual([3, 1, 5]);
  expect([...Y.shape]).toEqual([4, 1]);
  expect(X.flags.cContiguous || Y.flags.cContiguous).toBe(false);
  return { X, Y, hx: viewOf(bx, [3, 1, 5], [1, 3, 6], 3), hy: viewOf(by, [4, 1], [-2, 2], 6) };
}

function checkBinary(op: OpRef, d: DTypeName): void {
  const outD = op.out(d);
  const [xs, ys] = op.name === 'pow' && kind(d) === 'c' ? COMPLEX_POW : [pool(d), pool(d)];
  const tol = op.tol?.(d) ?? 0, sz = !op.anyZeroSign;
  const ref = (x: V, y: V): V => store(outD!, op.f(d, x, y));
  cuda.tidy(() => {
    const [A, B] = pairs(xs, ys);
    const a = upload(d, A), b = upload(d, B);
    if (outD === null) {
      expect(() => method(a, op.name, b)).toThrow(TypeError);
      expect(() => fn(op.name, a, scalarFor(d).js)).toThrow(TypeError);
      return;
    }
    const inputs = (i: number): string => `${show(A[i])} ${op.name} ${show(B[i])}`;
    const r = method(a, op.name, b);
    expect(r.dtype.name).toBe(outD);
    expectSame(download(r), A.map((x, i) => ref(x, B[i])), tol, outD, 'contiguous', inputs, sz);
    expectSame(download(fn(op.name, a, b)), download(r), 0, outD, 'function form');

    const { X, Y, hx, hy } = stridedPair(d, xs, ys);
    const want = broadcast2(hx, [3, 1, 5], hy, [4, 1], ref);
    expectArray(method(X, op.name, Y), outD, [3, 4, 5], want.out, tol, 'strided+broadcast', sz);

    const s = scalarFor(d);
    expectArray(method(a, op.name, s.js), outD, [A.length], A.map((x) => ref(x, s.v)), tol, `scalar ${show(s.js)}`, sz);
  });
}

function checkUnary(op: OpRef, d: DTypeName): void {
  const outD = op.out(d);
  const tol = op.tol?.(d) ?? 0;
  cuda.tidy(() => {
    const A = cyc(pool(d), 67);
    const a = upload(d, A);
    if (outD === null) {
      expect(() => method(a, op.name)).toThrow(TypeError);
      return;
    }
    const ref = (x: V): V => store(outD, op.f(d, x, x));
    expectArray(method(a, op.name), outD, [67], A.map(ref), tol, 'contiguous');
    expectArray(fn(op.name, a), outD, [67], A.map(ref), tol, 'function form');
    const base = cyc(pool(d), 30, 1);
    const v = upload(d, base, [5, 2, 3]).T.index('::-1'); // shape [3, 2, 5], negative and transposed strides
    expectArray(method(v, op.name), outD, [3, 2, 5], viewOf(base, [3, 2, 5], [-1, 3, 6], 2).map(ref), tol, 'strided');
  });
}

describeGpu('operators × dtypes (CPU reference, NumPy 2)', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  for (const name of BINARY) {
    describe(name, () => {
      for (const d of DTYPE_NAMES) test(d, () => checkBinary(OPS[name], d));
    });
  }
  for (const name of UNARY) {
    describe(name, () => {
      for (const d of DTYPE_NAMES) test(d, () => checkUnary(OPS[name], d));
    });
  }

  describe('reverse forms (scalar or array first)', () => {
    for (const [rname, name] of Object.entries(REVERSE)) {
      for (const d of DTYPE_NAMES) {
        test(`${rname} ${d}`, () => {
          const op = OPS[name], outD = op.out(d), s = scalarFor(d);
          cuda.tidy(() => {
            const A = kind(d) === 'c' && name === 'pow' ? cyc(COMPLEX_POW[1], 41) : cyc(pool(d), 41, 2);
            const a = upload(d, A), b = upload(d, kind(d) === 'c' && name === 'pow' ? cyc(COMPLEX_POW[0], 41, 5) : cyc(A, 41, 5));
            if (outD === null) {
              expect(() => method(a, rname, s.js)).toThrow(TypeError);
              return;
            }
            const ref = (x: V, y: V): V => store(outD, op.f(d, x, y));
            const tol = op.tol?.(d) ?? 0;
            const want = A.map((x) => ref(s.v, x));
            expectArray(method(a, rname, s.js), outD, [41], want, tol, `${show(s.js)} ${name} a`);
            expectArray(fn(name, s.js, a), outD, [41], want, tol, 'function form, scalar first');
            const B = download(b);
            expectArray(method(a, rname, b), outD, [41], A.map((x, i) => ref(B[i], x)), tol, 'b op a');
          });
        });
      }
    }
  });

  describe('where / ifPositive', () => {
    for (const d of DTYPE_NAMES) {
      test(`where ${d}`, () => cuda.tidy(() => {
        const [A, B] = pairs(pool(d), pool(d));
        const cond = A.map((_, i) => (i * 7) % 3 === 0 ? 1 : 0);
        const r = gpuarray.where(upload('bool', cond), upload(d, A), upload(d, B));
        expectArray(r, d, [A.length], A.map((x, i) => store(d, cond[i] ? x : B[i])));
        // cond of dtype d itself (nonzero test), strided [3,1,5]; x broadcast [4,1]; y a scalar.
        const { X, Y, hx, hy } = stridedPair(d, pool(d), pool(d));
        const s = scalarFor(d);
        const want = broadcast2(hx, [3, 1, 5], hy, [4, 1], (c, x) => store(d, nonzero(c) ? x : s.v));
        expectArray(gpuarray.where(X, Y, s.js), d, [3, 4, 5], want.out, 0, 'where(X, Y, scalar)');
      }));
      test(`ifPositive ${d}`, () => cuda.tidy(() => {
        const [A, B] = pairs(pool(d), pool(d));
        const r = gpuarray.ifPositive(upload(d, A), upload(d, A), upload(d, B));
        const pos = (x: V): boolean => !!OPS.gt.f(d, x, zero(d));
        expectArray(r, d, [A.length], A.map((x, i) => store(d, pos(x) ? x : B[i])));
      }));
    }
  });

  describe('sizes 0, 1, 31, 2^20+3', () => {
    const CASES: Array<[string, DTypeName]> = [['add', 'float32'], ['add', 'int8'], ['add', 'complex128'], ['mul', 'float16'], ['mul', 'bfloat16'],
      ['eq', 'int64'], ['floorDiv', 'int32'], ['logicalNot', 'float64']];
    for (const [name, d] of CASES) {
      test(`${name} ${d}`, () => {
        const op = OPS[name], outD = op.out(d)!;
        for (const n of [0, 1, 31, 2 ** 20 + 3]) {
          cuda.tidy(() => {
            const A = cyc(pool(d), n), B = cyc(pool(d), n, 3, 7);
            const a = upload(d, A), b = upload(d, B);
            const r = op.nin === 2 ? method(a, name, b) : method(a, name);
            expectArray(r, outD, [n], A.map((x, i) => store(outD, op.f(d, x, B[i]))), 0, `n=${n}`);
          });
        }
      });
    }
  });

  describe('non-contiguous operands: a.T, a[::2], a[::-1]', () => {
    for (const d of ['float64', 'int16', 'complex64', 'float16', 'bfloat16', 'bool', 'uint64'] as DTypeName[]) {
      test(d, () => cuda.tidy(() => {
        const vals = cyc(pool(d), 42, 1, 5), other = cyc(pool(d), 42, 4, 3);
        const m = upload(d, vals, [6, 7]), c = upload(d, other, [7, 6]);
        const add = (x: V, y: V): V => store(d, OPS.add.f(d, x, y));
        const zip = (p: V[], q: V[]): V[] => p.map((x, i) => add(x, q[i]));
        expectArray(m.T.add(c), d, [7, 6], zip(viewOf(vals, [7, 6], [1, 7]), other), 0, 'a.T + c');
        expectArray(c.add(m.T), d, [7, 6], zip(other, viewOf(vals, [7, 6], [1, 7])), 0, 'c + a.T');
        expectArray(m.index('::2').add(m.index('1::2')), d, [3, 7],
          zip(viewOf(vals, [3, 7], [14, 1]), viewOf(vals, [3, 7], [14, 1], 7)), 0, 'a[::2] + a[1::2]');
        expectArray(m.index('::-1').add(m), d, [6, 7], zip(viewOf(vals, [6, 7], [-7, 1], 35), vals), 0, 'a[::-1] + a');
        expectArray(m.index(':', '::-1').add(m.index(':', '::-1')), d, [6, 7],
          zip(viewOf(vals, [6, 7], [7, -1], 6), viewOf(vals, [6, 7], [7, -1], 6)), 0, 'a[:, ::-1] twice');
        const v = upload(d, vals.slice(0, 31));
        expectArray(v.index('::-1').add(v), d, [31], zip(vals.slice(0, 31).reverse(), vals.slice(0, 31)), 0, 'v[::-1] + v');
        expectArray(v.index('1::3').add(v.index('-2::-3')), d, [10],
          zip(viewOf(vals, [10], [3], 1), viewOf(vals, [10], [-3], 29)), 0, 'v[1::3] + v[-2::-3]');
      }));
    }
  });

  describe('large transposed 2-d operands (several 32x32 tiles, partial edges, negative strides)', () => {
    for (const [p, q] of [['float64', 'int8'], ['int16', 'int16'], ['complex64', 'float32'], ['float16', 'uint8'], ['bfloat16', 'uint8'], ['bool', 'bool']] as
      Array<[DTypeName, DTypeName]>) {
      test(`${p} with ${q}`, () => cuda.tidy(() => {
        const X = cyc(pool(p), 70 * 45, 0, 7), Y = cyc(pool(q), 70 * 45, 5, 3);
        const x = upload(p, X, [70, 45]), y = upload(q, Y, [45, 70]);
        const r = cuda.resultType(p, q).name;
        const ref = (a: V, b: V): V => store(r, OPS.add.f(r, store(r, a), store(r, b)));
        const zip = (u: V[], w: V[]): V[] => u.map((a, i) => ref(a, w[i]));
        const xt = viewOf(X, [45, 70], [1, 45]);
        expectArray(x.T.add(y), r, [45, 70], zip(xt, Y), 0, 'x.T + y');
        expectArray(y.add(x.T), r, [45, 70], zip(Y, xt), 0, 'y + x.T');
        expectArray(x.T.index(':', '::-1').add(y), r, [45, 70], zip(viewOf(X, [45, 70], [1, -45], 69 * 45), Y), 0, 'x.T[:, ::-1] + y');
        expectArray(x.T.index('::-1').add(y), r, [45, 70], zip(viewOf(X, [45, 70], [-1, 45], 44), Y), 0, 'x.T[::-1] + y');
        const t3 = upload(p, X.slice(0, 120), [4, 5, 6]).transpose([2, 0, 1]); // collapses to a transposed [6, 20]
        expectArray(t3.add(t3.copy()), p, [6, 4, 5], viewOf(X, [6, 4, 5], [1, 30, 6]).map((a) =>
          store(p, OPS.add.f(p, a, a))), 0, 'transpose([2, 0, 1]) + its copy');
      }));
    }
  });

  describe('out', () => {
    test('in place: a.add(b, {out: a}), a.mul(a, {out: a}), broadcast row into a', () => cuda.tidy(() => {
      const A = [1, 2.5, -3, 4, 5, 6], B = [10, 20, 30, 40, 50, 60];
      const a = upload('float32', A, [2, 3]), b = upload('float32', B, [2, 3]);
      expect(a.add(b, { out: a })).toBe(a);
      expectArray(a, 'float32', [2, 3], A.map((x, i) => x + B[i]));
      a.mul(a, { out: a });
      expectArray(a, 'float32', [2, 3], A.map((x, i) => (x + B[i]) ** 2));
      gpuarray.sub(a, upload('float32', [1, 2, 3]), { out: a });
      expectArray(a, 'float32', [2, 3], A.map((x, i) => (x + B[i]) ** 2 - (i % 3 + 1)));
    }));

    test('partial overlap: out = x[1:] with input x[:-1]; x[::-1] into x; m.T into m', () => cuda.tidy(() => {
      const X = Array.from({ length: 37 }, (_, i) => i * 3 - 50);
      const x = upload('int32', X);
      gpuarray.add(x.index(':-1'), 1, { out: x.index('1:') });
      expectArray(x, 'int32', [37], [X[0], ...X.slice(0, -1).map((v) => v + 1)], 0, 'shift');
      const y = upload('float64', X);
      gpuarray.add(y.index('::-1'), 0, { out: y });
      expectArray(y, 'float64', [37], [...X].reverse(), 0, 'reverse');
      const M = Array.from({ length: 25 }, (_, i) => i);
      const m = upload('int16', M, [5, 5]);
      gpuarray.mul(m.T, 1, { out: m });
      expectArray(m, 'int16', [5, 5], viewOf(M, [5, 5], [1, 5]), 0, 'transpose');
      const z = upload('float32', X);
      z.index('1:').add(z.index(':-1'), { out: z.index(':-1') }); // out = x[:-1] reads x[1:] (ahead of it)
      expectArray(z, 'float32', [37], [...X.slice(0, -1).map((v, i) => v + X[i + 1]), X[36]], 0, 'out behind input');
    }));

    test('out of another dtype: int8 result stored in float64 (computed in int8), float64 result in float32', () => cuda.tidy(() => {
      const o = gpuarray.empty([3], 'float64');
      upload('int8', [100, -100, 5]).add(upload('int8', [100, -100, 6]), { out: o });
      expectArray(o, 'float64', [3], [-56, 56, 11]);
      const f = gpuarray.empty([2], 'float32');
      gpuarray.div(upload('float64', [1, 2]), 3, { out: f });
      expectArray(f, 'float32', [2], [Math.fround(1 / 3), Math.fround(2 / 3)]);
    }));

    const POISON = 0xab;
    for (const d of ['float32', 'int8', 'complex128', 'float16', 'uint64', 'bool', 'int32'] as DTypeName[]) {
      test(`poisoned out buffer is fully overwritten (${d}): contiguous, strided, transposed`, () => cuda.tidy(() => {
        const op = d === 'bool' ? OPS.logicalXor : OPS.add;
        const A = cyc(pool(d), 45, 1), B = cyc(pool(d), 45, 2, 3);
        const ref = A.map((x, i) => store(op.out(d)!, op.f(d, x, B[i])));
        const a = upload(d, A), b = upload(d, B);
        const poison = (n: number): GPUArray => {
          const p = gpuarray.empty([n], op.out(d)!);
          p.view('int8').fill(POISON - 256);
          return p;
        };
        const o = poison(45);
        expect(method(a, op.name, b, { out: o })).toBe(o);
        expectArray(o, op.out(d)!, [45], ref, 0, 'contiguous out');
        const big = poison(90), strided = big.index('1::2');
        method(a, op.name, b, { out: strided });
        expectArray(strided, op.out(d)!, [45], ref, 0, 'strided out');
        expect(Array.from(big.view('uint8').get() as Uint8Array).filter((x, i) => x !== POISON &&
          Math.floor(i / big.itemsize) % 2 === 0)).toEqual([]); // the other half is untouched
        const t = poison(45).reshape(9, 5);
        method(a.reshape(5, 9), op.name, b.reshape(5, 9), { out: t.T });
        expectArray(t.T, op.out(d)!, [5, 9], ref, 0, 'transposed out');
      }));
    }
  });

  describe('NumPy 2 promotion of scalars and mixed dtypes', () => {
    test('weak Python scalars', () => cuda.tidy(() => {
      const check = softly();
      const i8 = upload('int8', [127, -128, 5]);
      check(() => expectArray(i8.add(1), 'int8', [3], [-128, -127, 6]));
      check(() => expectArray(i8.add(1.5), 'float64', [3], [128.5, -126.5, 6.5]));
      check(() => expectArray(i8.mul(NaN), 'float64', [3], [NaN, NaN, NaN]));
      check(() => expectArray(i8.add({ re: 0, im: 1 }), 'complex128', [3], [127, -128, 5].map((re) => ({ re, im: 1 }))));
      const u8 = upload('uint8', [250, 0, 7]);
      check(() => expectArray(u8.add(10), 'uint8', [3], [4, 10, 17]));
      check(() => expectArray(u8.add(255), 'uint8', [3], [249, 255, 6]));
      check(() => expectCode(() => u8.add(300), RangeError, 'ERR_OUT_OF_RANGE'));
      check(() => expectCode(() => u8.add(-1), RangeError, 'ERR_OUT_OF_RANGE'));
      check(() => expectCode(() => upload('int64', [1n]).add(2n ** 63n), RangeError, 'ERR_OUT_OF_RANGE'));
      check(() => expectArray(upload('uint64', [1n]).add(2n ** 64n - 2n), 'uint64', [1], [2n ** 64n - 1n]));
      check(() => expectArray(upload('float32', [1]).add(0.1), 'float32', [1], [Math.fround(1 + Math.fround(0.1))]));
      check(() => expectArray(upload('float32', [1]).add({ re: 1, im: 1 }), 'complex64', [1], [{ re: 2, im: 1 }]));
      check(() => expectArray(upload('float16', [1]).add({ re: 1, im: 1 }), 'complex64', [1], [{ re: 2, im: 1 }]));
      check(() => expectArray(upload('bool', [1, 0]).add(1), 'int64', [2], [2n, 1n]));
      check(() => expectArray(upload('bool', [1, 0]).add(true), 'bool', [2], [1, 1]));
      check(() => expectArray(upload('bool', [1, 0]).mul(2.5), 'float64', [2], [2.5, 0]));
      check(() => expectArray(upload('int32', [7]).add(2n), 'int32', [1], [9]));
      check.done();
    }));

    test('a weak scalar is converted to float16 before a float16 operation (2049 → 2048)', () => cuda.tidy(() => {
      const check = softly();
      // NumPy: np.float16(1) + 2049 == 2048 (2049 → float16 2048, then 1 + 2048 = 2049 → 2048).
      check(() => expectArray(upload('float16', [1, 0]).add(2049), 'float16', [2], [2048, 2048]));
      // 2^-11 + 2^-22 → float16 2^-11 (a tie, to even); 1 + 2^-11 → 1 (a tie, to even).
      check(() => expectArray(upload('float16', [1]).add(2 ** -11 + 2 ** -22), 'float16', [1], [1]));
      check.done();
    }));

    test('typed scalars are strong', () => cuda.tidy(() => {
      const check = softly();
      check(() => expectArray(upload('float32', [1.5]).add(cuda.float64(0.1)), 'float64', [1], [Math.fround(1.5) + 0.1]));
      check(() => expectArray(upload('int8', [100]).add(cuda.int16(100)), 'int16', [1], [200]));
      check(() => expectArray(upload('uint8', [200]).add(cuda.int8(-1)), 'int16', [1], [199]));
      check.done();
    }));

    test('mixed array dtypes', () => cuda.tidy(() => {
      const check = softly();
      const cases: Array<[DTypeName, DTypeName, DTypeName]> = [['int8', 'uint8', 'int16'], ['int64', 'uint64', 'float64'],
        ['float16', 'int16', 'float32'], ['int32', 'float32', 'float64'], ['uint32', 'int8', 'int64'],
        ['float16', 'float32', 'float32'], ['complex64', 'float64', 'complex128'], ['bool', 'uint16', 'uint16'],
        ['float16', 'uint8', 'float16'], ['bfloat16', 'float16', 'float32'], ['bfloat16', 'int32', 'bfloat16'], ['int64', 'bfloat16', 'bfloat16'],
        ['bfloat16', 'float64', 'float64'], ['complex64', 'bfloat16', 'complex64'], ['bfloat16', 'bool', 'bfloat16']];
      for (const [p, q, r] of cases) {
        const xv = p === 'bool' ? 1 : 3, yv = q === 'bool' ? 1 : 2;
        const x = upload(p, [store(p, xv)]), y = upload(q, [store(q, yv)]);
        check(() => expectArray(x.add(y), r, [1], [store(r, xv + yv)], 0, `${p}+${q}`));
        check(() => expectArray(y.mul(x), r, [1], [store(r, xv * yv)], 0, `${q}*${p}`));
      }
      check(() => expectArray(upload('int64', [-1n]).lt(upload('uint64', [1n])), 'bool', [1], [1]));
      check.done();
    }));

    test('comparisons with out-of-range Python ints give the true answer (NumPy 2)', () => cuda.tidy(() => {
      const check = softly();
      const u8 = upload('uint8', [0, 255]);
      check(() => expectArray(u8.lt(300), 'bool', [2], [1, 1]));
      check(() => expectArray(u8.eq(-1), 'bool', [2], [0, 0]));
      check(() => expectArray(u8.gt(-1), 'bool', [2], [1, 1]));
      check.done();
    }));
  });

  describe('NumPy edge cases, spelled out', () => {
    test('division and modulo by zero; Python sign rules', () => cuda.tidy(() => {
      const check = softly();
      const i = upload('int8', [7, -7, 7, -7, 5, -128]), j = upload('int8', [2, 2, -2, -2, 0, -1]);
      check(() => expectArray(i.floorDiv(j), 'int8', [6], [3, -4, -4, 3, 0, -128]));
      check(() => expectArray(i.mod(j), 'int8', [6], [1, 1, -1, -1, 0, 0]));
      check(() => expectArray(upload('uint32', [7, 9]).floorDiv(0), 'uint32', [2], [0, 0]));
      const x = upload('float64', [1, -1, 0, -7.5, -7.5, 7.5, -0, 0]), y = upload('float64', [0, 0, 0, 2, -2, -2, 2, -2]);
      check(() => expectArray(x.div(y), 'float64', [8], [Infinity, -Infinity, NaN, -3.75, 3.75, -3.75, -0, -0]));
      check(() => expectArray(x.floorDiv(y), 'float64', [8], [Infinity, -Infinity, NaN, -4, 3, -4, -0, -0]));
      check(() => expectArray(x.mod(y), 'float64', [8], [NaN, NaN, NaN, 0.5, -1.5, -0.5, 0, -0]));
      check(() => expectArray(upload('int32', [1, -1, 0]).div(0), 'float64', [3], [Infinity, -Infinity, NaN]));
      check.done();
    }));

    test('overflow wraps; shifts past the width; integer powers', () => cuda.tidy(() => {
      const check = softly();
      check(() => expectArray(upload('int8', [127]).add(1), 'int8', [1], [-128]));
      check(() => expectArray(upload('uint8', [0]).sub(1), 'uint8', [1], [255]));
      check(() => expectArray(upload('int32', [2 ** 31 - 1]).mul(2), 'int32', [1], [-2]));
      check(() => expectArray(upload('int64', [2n ** 62n]).mul(4), 'int64', [1], [0n]));
      check(() => expectArray(upload('int8', [-128]).neg(), 'int8', [1], [-128]));
      check(() => expectArray(upload('int8', [-128]).abs(), 'int8', [1], [-128]));
      check(() => expectArray(upload('int8', [1, 1, -128, -128, 64]).shl(upload('int8', [7, 8, 9, -1, 1])), 'int8', [5], [-128, 0, 0, 0, -128]));
      check(() => expectArray(upload('int8', [-128, -128, 64]).shr(upload('int8', [7, 9, 9])), 'int8', [3], [-1, -1, 0]));
      check(() => expectArray(upload('int8', [2, -1, 1, 0, 3, -2]).pow(upload('int8', [-1, -3, -5, -2, 5, 7])), 'int8', [6], [0, -1, 1, 0, -13, -128]));
      check.done();
    }));

    test('maximum/minimum propagate NaN', () => cuda.tidy(() => {
      const check = softly();
      const a = upload('float32', [NaN, 1, NaN, -Infinity, 2]), b = upload('float32', [1, NaN, NaN, 5, -Infinity]);
      check(() => expectArray(a.maximum(b), 'float32', [5], [NaN, NaN, NaN, 5, 2]));
      check(() => expectArray(gpuarray.minimum(a, b), 'float32', [5], [NaN, NaN, NaN, -Infinity, -Infinity]));
      const c = upload('complex64', [{ re: 1, im: NaN }, { re: 2, im: 0 }]), e = upload('complex64', [{ re: 5, im: 0 }, { re: 2, im: 1 }]);
      check(() => expectArray(c.maximum(e), 'complex64', [2], [{ re: 1, im: NaN }, { re: 2, im: 1 }]));
      check.done();
    }));

    test('complex: division by zero, zero to a power, abs of Inf/NaN', () => cuda.tidy(() => {
      const check = softly();
      const z: C[] = [{ re: 1, im: 1 }, { re: 0, im: 0 }, { re: 1, im: 0 }];
      check(() => expectArray(upload('complex128', z).div(0), 'complex128', [3],
        [{ re: Infinity, im: Infinity }, { re: NaN, im: NaN }, { re: Infinity, im: NaN }]));
      const zero4 = upload('complex128', Array(4).fill({ re: 0, im: 0 }));
      check(() => expectArray(zero4.pow(upload('complex128', [{ re: 2, im: 0 }, { re: 0, im: 0 }, { re: -1, im: 0 }, { re: 0, im: 1 }])),
        'complex128', [4], [{ re: 0, im: 0 }, { re: 1, im: 0 }, { re: NaN, im: NaN }, { re: NaN, im: NaN }]));
      check(() => expectArray(upload('complex64', [{ re: Infinity, im: NaN }, { re: NaN, im: 1 }, { re: 3, im: -4 }]).abs(), 'float32', [3],
        [Infinity, NaN, 5], 2 ** -20));
      check.done();
    }));

    test('bool: arithmetic that NumPy computes in int8 (pow, mod, floorDiv, shl, shr)', () => cuda.tidy(() => {
      const check = softly();
      const t = upload('bool', [1, 1, 0, 0]), u = upload('bool', [1, 0, 1, 0]);
      check(() => expectArray(t.pow(u), 'int8', [4], [1, 1, 0, 1]));
      check(() => expectArray(t.floorDiv(u), 'int8', [4], [1, 0, 0, 0]));
      check(() => expectArray(t.mod(u), 'int8', [4], [0, 0, 0, 0]));
      check(() => expectArray(t.shl(u), 'int8', [4], [2, 1, 0, 0]));
      check(() => expectArray(t.shr(u), 'int8', [4], [0, 1, 0, 0]));
      check(() => expectArray(t.div(u), 'float64', [4], [1, Infinity, 0, NaN]));
      check(() => expect(() => t.sub(u)).toThrow(TypeError));
      check(() => expect(() => t.neg()).toThrow(TypeError));
      check.done();
    }));
  });

  describe('astype, fill, copy', () => {
    for (const src of DTYPE_NAMES) {
      test(`astype ${src} → every dtype (values every dtype holds)`, () => cuda.tidy(() => {
        const check = softly();
        const vals = [0, 1, 2, 3, 100, 7].map((v) => store(src, v));
        const a = upload(src, vals, [2, 3]);
        for (const dst of DTYPE_NAMES) {
          const num = (v: V): number => typeof v === 'object' ? v.re : Number(v);
          check(() => expectArray(a.astype(dst), dst, [2, 3], vals.map((v) => store(dst, kind(dst) === 'c' ? v : num(v))), 0, `→${dst}`));
        }
        check(() => expectArray(a.T.astype('float64'), 'float64', [3, 2], viewOf(vals, [3, 2], [1, 3]).map((v) => typeof v === 'object' ? v.re : Number(v))));
        check.done();
      }));
    }

    test('astype spot checks: truncation toward 0, bool from nonzero, complex drops imag, wraps', () => cuda.tidy(() => {
      const check = softly();
      check(() => expectArray(upload('float64', [2.7, -2.7, 0.5, -0.5, 1e9]).astype('int32'), 'int32', [5], [2, -2, 0, 0, 1e9]));
      check(() => expectArray(upload('float32', [2.7, -2.7, 127.9, -128.9]).astype('int8'), 'int8', [4], [2, -2, 127, -128]));
      check(() => expectArray(upload('float16', [2.69921875, -2.69921875]).astype('int16'), 'int16', [2], [2, -2]));
      check(() => expectArray(upload('float64', [2 ** 53, -(2 ** 60), 1.9]).astype('int64'), 'int64', [3], [2n ** 53n, -(2n ** 60n), 1n]));
      check(() => expectArray(upload('float64', [255.9, 0.2]).astype('uint8'), 'uint8', [2], [255, 0]));
      check(() => expectArray(upload('float32', [1e10]).astype('uint64'), 'uint64', [1], [10000000000n]));
      check(() => expectArray(upload('float64', [0, -0, 0.5, NaN, -Infinity]).astype('bool'), 'bool', [5], [0, 0, 1, 1, 1]));
      check(() => expectArray(upload('int32', [0, -5, 7]).astype('bool'), 'bool', [3], [0, 1, 1]));
      check(() => expectArray(upload('complex64', [cplx(0, 0), cplx(0, 1), cplx(NaN, 0)]).astype('bool'), 'bool', [3], [0, 1, 1]));
      check(() => expectArray(upload('uint64', [0n, 2n ** 63n]).astype('bool'), 'bool', [2], [0, 1]));
      check(() => expectArray(upload('complex128', [cplx(1.5, 2), cplx(-3, -4)]).astype('float64'), 'float64', [2], [1.5, -3]));
      check(() => expectArray(upload('complex128', [cplx(1.5, 2), cplx(-3, -4)]).astype('int32'), 'int32', [2], [1, -3]));
      check(() => expectArray(upload('complex64', [cplx(1.5, 2), cplx(-3, -4)]).astype('float16'), 'float16', [2], [1.5, -3]));
      check(() => expectArray(upload('int16', [-3]).astype('complex64'), 'complex64', [1], [cplx(-3, 0)]));
      check(() => expectArray(upload('int32', [-1, 256, 300]).astype('uint8'), 'uint8', [3], [255, 0, 44]));
      check(() => expectArray(upload('uint32', [2 ** 32 - 1]).astype('int32'), 'int32', [1], [-1]));
      check(() => expectArray(upload('int64', [-1n]).astype('uint64'), 'uint64', [1], [2n ** 64n - 1n]));
      check(() => expectArray(upload('uint64', [2n ** 64n - 1n]).astype('int64'), 'int64', [1], [-1n]));
      check(() => expectArray(upload('int64', [2n ** 53n + 1n, 2n ** 63n - 1n]).astype('float64'), 'float64', [2], [2 ** 53, 2 ** 63]));
      check(() => expectArray(upload('float32', [65504, 70000, 2 ** -25, 1.5 * 2 ** -25]).astype('float16'), 'float16', [4], [65504, Infinity, 0, 2 ** -24]));
      check(() => expectArray(gpuarray.toGpu(new Uint16Array([0x7bff, 0x0001, 0xfc00, 0x7e00, 0x8000]), { dtype: 'float16' }).astype('float64'),
        'float64', [5], [65504, 2 ** -24, -Infinity, NaN, -0]));
      check.done();
    }));

    test('float64 → float16 rounds once, like NumPy (astype and full)', () => cuda.tidy(() => {
      const check = softly();
      const x = 1 + 2 ** -11 + 2 ** -40; // just above a float16 tie: float32 rounding first would make it a tie
      check(() => expect(halfOf(x)).toBe(1 + 2 ** -10));
      check(() => expectArray(upload('float64', [x, 65519.99, 1e-8]).astype('float16'), 'float16', [3], [1 + 2 ** -10, 65504, 0]));
      check(() => expectArray(gpuarray.full([2], x, 'float16'), 'float16', [2], [1 + 2 ** -10, 1 + 2 ** -10]));
      check(() => expectArray(gpuarray.toGpu([x], { dtype: 'float16' }), 'float16', [1], [1 + 2 ** -10]));
      check.done();
    }));

    test('bfloat16: float64, float32 and 64-bit integers round once to nearest even; NaN, ±Inf, -0, subnormals', () => cuda.tidy(() => {
      const check = softly();
      const x = 1 + 2 ** -8 + 2 ** -40; // just above a bfloat16 tie: float32 rounding first would make it a tie
      check(() => expect(bf16Of(x)).toBe(1 + 2 ** -7));
      check(() => expectArray(upload('float64', [x, 1 + 3 * 2 ** -8 - 2 ** -40, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 3.3961e38, 3.3962e38, 1e39, 2 ** -134,
        1.5 * 2 ** -134, NaN, -0, -Infinity]).astype('bfloat16'), 'bfloat16', [12],
      [1 + 2 ** -7, 1 + 2 ** -7, 1, 1 + 2 ** -6, 3.3895313892515355e38, Infinity, Infinity, 0, 2 ** -133, NaN, -0, -Infinity]));
      check(() => expectArray(gpuarray.full([2], x, 'bfloat16'), 'bfloat16', [2], [1 + 2 ** -7, 1 + 2 ** -7]));
      check(() => expectArray(gpuarray.toGpu([x], { dtype: 'bfloat16' }), 'bfloat16', [1], [1 + 2 ** -7]));
      const f = new Float32Array([1 + 2 ** -8, 1 + 2 ** -8 + 2 ** -23, 1 + 3 * 2 ** -8, -(1 + 2 ** -8 + 2 ** -23),
        3.4028234663852886e38, 2 ** -149]);
      const fw = [1, 1 + 2 ** -7, 1 + 2 ** -6, -(1 + 2 ** -7), Infinity, 0];
      check(() => expectArray(gpuarray.toGpu(f).astype('bfloat16'), 'bfloat16', [6], fw));
      check(() => expectArray(gpuarray.toGpu(f, { dtype: 'bfloat16' }), 'bfloat16', [6], fw));
      // 2^24 + 2^16 + 1 is above the tie 2^24 + 2^16 (float32 would round it onto the tie, then to even 2^24).
      check(() => expectArray(upload('int32', [2 ** 24 + 2 ** 16 + 1, -(2 ** 24 + 2 ** 16 + 1), 2 ** 31 - 1]).astype('bfloat16'), 'bfloat16', [3],
        [2 ** 24 + 2 ** 17, -(2 ** 24 + 2 ** 17), 2 ** 31]));
      check(() => expectArray(upload('int64', [2n ** 56n + 2n ** 48n + 1n, 2n ** 63n - 1n]).astype('bfloat16'), 'bfloat16', [2], [2 ** 56 + 2 ** 49, 2 ** 63]));
      check(() => expectArray(upload('uint64', [2n ** 64n - 1n, 2n ** 40n + 2n ** 32n + 1n]).astype('bfloat16'), 'bfloat16', [2], [2 ** 64, 2 ** 40 + 2 ** 33]));
      check(() => expectArray(gpuarray.toGpu(new Uint16Array([0x7f7f, 0x0001, 0xff80, 0x7fc1, 0x8000]), { dtype: 'bfloat16' }).astype('float64'),
        'float64', [5], [3.3895313892515355e38, 2 ** -133, -Infinity, NaN, -0]));
      check(() => expectArray(upload('bfloat16', [1 + 2 ** -7, 3.3895313892515355e38, 2 ** -133]).astype('float16'), 'float16', [3], [1 + 2 ** -7, Infinity, 0]));
      check(() => expectArray(upload('float16', [1 + 2 ** -8, 65504, 2 ** -24]).astype('bfloat16'), 'bfloat16', [3], [1, 65536, 2 ** -24]));
      const bits = gpuarray.toGpu([1, -2, NaN, -NaN, Infinity], { dtype: 'float32' }).astype('bfloat16').get() as Uint16Array;
      check(() => expect(bits).toBeInstanceOf(Uint16Array));
      check(() => expect([...bits].map((b) => b & 0x7fc0)).toEqual([0x3f80, 0x4000 & 0x7fc0, 0x7fc0, 0x7fc0, 0x7f80]));
      check(() => expect(upload('bfloat16', [0.1]).item()).toBe(bf16Of(0.1)));
      check.done();
    }));

    test('fill every dtype; fill a strided view; fill returns the array', () => cuda.tidy(() => {
      const check = softly();
      const values: Partial<Record<DTypeName, [unknown, V]>> = {
        bool: [true, 1], int8: [-5, -5], uint8: [200, 200], int16: [-300, -300], uint16: [60000, 60000], int32: [-(2 ** 31), -(2 ** 31)],
        uint32: [2 ** 32 - 1, 2 ** 32 - 1], int64: [2n ** 62n, 2n ** 62n], uint64: [2n ** 64n - 1n, 2n ** 64n - 1n], float16: [1.5, 1.5],
        bfloat16: [0.1, bf16Of(0.1)],
        float32: [0.1, Math.fround(0.1)], float64: [-0, -0], complex64: [{ re: 1, im: -2 }, cplx(1, -2)], complex128: [3, cplx(3, 0)],
      };
      for (const d of DTYPE_NAMES) {
        const [v, want] = values[d]!;
        const a = gpuarray.empty([5], d);
        check(() => expect(a.fill(v as number)).toBe(a));
        check(() => expectArray(a, d, [5], Array(5).fill(want), 0, d));
      }
      check(() => expectArray(gpuarray.zeros(3, 'bool').fill(0.5), 'bool', [3], [1, 1, 1]));
      check(() => expectArray(gpuarray.zeros(2, 'float32').fill(NaN), 'float32', [2], [NaN, NaN]));
      check(() => expectArray(gpuarray.zeros(2, 'int32').fill(7.9), 'int32', [2], [7, 7]));
      const z = gpuarray.zeros([3, 4], 'int8');
      z.index('::2', '1::2').fill(1);
      z.T.index(0).fill(2);
      check(() => expectArray(z, 'int8', [3, 4], [2, 1, 0, 1, 2, 0, 0, 0, 2, 1, 0, 1]));
      check.done();
    }));

    test('copy is C-contiguous and independent', () => cuda.tidy(() => {
      const m = upload('float64', range(6), [2, 3]);
      const c = m.copy();
      expect(c).not.toBe(m);
      expect([c.base, c.flags.cContiguous]).toEqual([null, true]);
      c.fill(0);
      expectArray(m, 'float64', [2, 3], range(6));
      const t = m.T.copy();
      expect([t.shape, t.strides, t.flags.cContiguous]).toEqual([[3, 2], [16, 8], true]);
      expectArray(t, 'float64', [3, 2], [0, 3, 1, 4, 2, 5]);
      const s = m.astype('float64');
      expect(s).not.toBe(m);
      s.fill(1);
      expectArray(m, 'float64', [2, 3], range(6));
    }));
  });

  test('nothing leaked by the operator suites', async () => {
    await collect();
    expect(live()).toBe(baseline);
  });
});
