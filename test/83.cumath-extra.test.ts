/**
 * The cumath functions added after the first table (square … nanToNum) beyond the dtype table of
 * test/83.cumath.test.ts (which runs every one of them on every dtype against the CPU): their
 * NumPy edge cases (NaN/±Inf/±0 rules, signs, wrapping), logaddexp/logaddexp2 on every float dtype
 * with an absolute tolerance (the result may cancel to near 0), parameters (angle's deg,
 * nanToNum's values), broadcast and strided operands, `out`, and GPUArray's complex parts: `real`
 * and `imag` views (read and written through, strided, 0-d, empty) and `conj()`.
 *
 * Tolerances: logaddexp/logaddexp2 within 16 ulps of the compute type at max(|x|, |y|) + 1 (exp
 * or exp2 and log1p, each a few ulps, and the last addition), plus one ulp of the result for the
 * 16-bit types (computed in float, then rounded once more). Everything else here is exact.
 */
import * as cuda from '../lib';
import { GPUArray, cumath, gpuarray } from '../lib';
import type { DTypeName } from '../lib';
import { collect, describeGpu, expectCode, settledLive } from './helpers';
import { C, V, broadcast2, download, expectArray, halfOf, show, store, upload, viewOf } from './reference';
import { FMAX, logaddexp2Ref, logaddexpRef, roundTo } from './cumath-reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number } = globalThis;

const N = NaN, I = Infinity;
const FLOATS: DTypeName[] = ['float16', 'bfloat16', 'float32', 'float64'];
const cx = (re: number, im: number): C => ({ re, im });
/** Smallest positive subnormal of each float dtype. */
const TINY: Record<string, number> = { float16: 2 ** -24, bfloat16: 2 ** -133, float32: 2 ** -149, float64: 5e-324 };
/** Unit roundoff of each float dtype's compute type and the spacing of its stored values at 1. */
const EPS: Record<string, [number, number]> = {
  float16: [2 ** -24, 2 ** -10], bfloat16: [2 ** -24, 2 ** -7], float32: [2 ** -24, 2 ** -23], float64: [2 ** -53, 2 ** -52],
};

/** Expects |got - want| ≤ 16 u (max(|x|, |y|) + 1) + ulp16·|want| (NaN = NaN, infinities exactly). */
function expectNear(got: V[], want: number[], X: number[], Y: number[], d: DTypeName, label: string): void {
  const [u, e] = EPS[d];
  const bad: string[] = [];
  want.forEach((w, i) => {
    const g = got[i] as number;
    const ok = Number.isNaN(w) ? Number.isNaN(g) : !Number.isFinite(w) ? g === w
      : Math.abs(g - w) <= 16 * u * (Math.max(Math.abs(X[i]), Math.abs(Y[i])) + 1) + (e > 2 ** -20 ? e * Math.abs(w) : 0);
    if (!ok && bad.length < 8) bad.push(`${label}[${i}] x=${show(X[i])} y=${show(Y[i])}: got ${show(g)}, want ${show(w)}`);
  });
  expect(bad).toEqual([]);
}

describeGpu('cumath: square … nanToNum edge cases, complex parts', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  describe('logaddexp, logaddexp2 (NumPy\'s formulas)', () => {
    const VALS = [0, -0, 1, -1, 0.5, -0.3, -0.7, -0.69, 2.5, -2.5, 10, -10, 30, -30, 1e-3, 0.6931, N, I, -I];
    test.each(FLOATS)('%s: every pair, specials exactly', (d) => cuda.tidy(() => {
      const xs = VALS.map((v) => roundTo(d, v)), X: number[] = [], Y: number[] = [];
      for (const y of xs) for (const x of xs) { X.push(x); Y.push(y); }
      const a = upload(d, X), b = upload(d, Y);
      for (const [name, ref] of [['logaddexp', logaddexpRef], ['logaddexp2', logaddexp2Ref]] as const) {
        const r = (name === 'logaddexp' ? cumath.logaddexp : cumath.logaddexp2)(a, b);
        expect(r.dtype.name).toBe(d);
        expectNear(download(r), X.map((x, i) => ref(x, Y[i])), X, Y, d, `${name} ${d}`);
      }
      // The infinities: equal ones stay (no inf - inf), -Inf is the identity, NaN propagates.
      const sx = [-I, I, I, -I, -I, 0, N, 1], sy = [-I, I, -I, I, 0, -I, 1, N];
      expectArray(cumath.logaddexp(upload(d, sx), upload(d, sy)), d, [8], [-I, I, I, I, 0, 0, N, N]);
      expectArray(cumath.logaddexp2(upload(d, sx), upload(d, sy)), d, [8], [-I, I, I, I, 0, 0, N, N]);
      expectArray(cumath.logaddexp2(upload(d, [0, 3]), upload(d, [0, 3])), d, [2], [1, 4]);
      // equal operands: x + log 2 in the compute type (float: log 2 rounded to float, the sum rounded, then the 16-bit rounding)
      expectArray(cumath.logaddexp(upload(d, [-2]), upload(d, [-2])), d, [1], [d === 'float64' ? -2 + Math.LN2 : store(d, -2 + Math.fround(Math.LN2))]);
    }));
    test('no overflow for large arguments; integers promote; broadcast and strided; out; complex refused', () => cuda.tidy(() => {
      expectArray(cumath.logaddexp(upload('float64', [1000, 710]), upload('float64', [1000, -710])), 'float64', [2],
        [1000 + Math.LN2, 710], 2 ** -52);
      expectArray(cumath.logaddexp2(upload('float32', [200, 127]), 200), 'float32', [2], [201, 200], 2 ** -23);
      expect(cumath.logaddexp(upload('int8', [1]), upload('int8', [2])).dtype.name).toBe('float16');
      expect(cumath.logaddexp(upload('int16', [1]), 2).dtype.name).toBe('float32');
      expect(cumath.logaddexp2(upload('int32', [1]), 2.5).dtype.name).toBe('float64');
      const X = [0.5, -1, 3], Y = [2, -2, 0.25, 7];
      const a = upload('float64', [...X, 9, 9, 9], [2, 3]).index(0).reshape(3, 1), b = upload('float64', [9, ...Y].reverse()).index('-2::-1');
      const want = broadcast2(X, [3, 1], Y, [4], logaddexpRef);
      const r = cumath.logaddexp(a, b);
      expectNear(download(r), want.out, want.out.map((_, i) => X[Math.floor(i / 4)]), want.out.map((_, i) => Y[i % 4]), 'float64', 'broadcast');
      expect([...r.shape]).toEqual(want.shape);
      const out = gpuarray.empty([3, 4], 'float64');
      expect(cumath.logaddexp2(upload('float32', X, [3, 1]), upload('float32', Y), { out })).toBe(out);
      const w2 = broadcast2(X, [3, 1], Y, [4], logaddexp2Ref);
      expectNear(download(out), w2.out, w2.out.map((_, i) => X[Math.floor(i / 4)]), w2.out.map((_, i) => Y[i % 4]), 'float32', 'out');
      expectCode(() => cumath.logaddexp(upload('complex64', [cx(1, 0)]), 1), TypeError, 'ERR_INVALID_DTYPE');
      expectCode(() => cumath.logaddexp2(1, 2), TypeError, 'ERR_INVALID_ARG_TYPE');
    }));
  });

  describe('fmax, fmin: NaN loses', () => {
    test.each(FLOATS)('%s', (d) => cuda.tidy(() => {
      const X = [N, 1, N, -I, I, 2, -0], Y = [1, N, N, N, N, -3, 5];
      const a = upload(d, X), b = upload(d, Y);
      expectArray(cumath.fmax(a, b), d, [7], [1, 1, N, -I, I, 2, 5]);
      expectArray(cumath.fmin(a, b), d, [7], [1, 1, N, -I, I, -3, -0]);
      // gpuarray's are the same functions; weak scalars keep the array's dtype
      expectArray(gpuarray.fmax(a, N), d, [7], [N, 1, N, -I, I, 2, -0]);
      expectArray(gpuarray.fmin(N, a), d, [7], [N, 1, N, -I, I, 2, -0]);
      expectArray(gpuarray.fmax(a, 0), d, [7], [0, 1, 0, 0, I, 2, 0], 0, 'zero sign open', false);
    }));
    test('complex (the operand without NaN wins, else lexicographic), integers, bool', () => cuda.tidy(() => {
      for (const d of ['complex64', 'complex128'] as DTypeName[]) {
        const X = [cx(N, 0), cx(1, N), cx(1, 2), cx(1, 2), cx(N, 1), cx(-1, 5), cx(3, -1)];
        const Y = [cx(0, 1), cx(0, 0), cx(1, N), cx(1, 3), cx(0, N), cx(-1, 4), cx(2, 9)];
        const a = upload(d, X), b = upload(d, Y);
        const gotMax = download(cumath.fmax(a, b)) as C[], gotMin = download(cumath.fmin(a, b)) as C[];
        const nan = (z: C): boolean => Number.isNaN(z.re) || Number.isNaN(z.im);
        expect(gotMax.slice(0, 4)).toEqual([cx(0, 1), cx(0, 0), cx(1, 2), cx(1, 3)]);
        expect(gotMin.slice(0, 4)).toEqual([cx(0, 1), cx(0, 0), cx(1, 2), cx(1, 2)]);
        expect([nan(gotMax[4]), nan(gotMin[4])]).toEqual([true, true]);
        expect([gotMax.slice(5), gotMin.slice(5)]).toEqual([[cx(-1, 5), cx(3, -1)], [cx(-1, 4), cx(2, 9)]]);
      }
      expectArray(cumath.fmax(upload('int8', [-128, 5, 127]), upload('int8', [0, -5, -1])), 'int8', [3], [0, 5, 127]);
      expectArray(cumath.fmin(upload('uint64', [2n ** 64n - 1n, 3n]), 7), 'uint64', [2], [7n, 3n]);
      expectArray(cumath.fmax(upload('bool', [0, 0, 1, 1]), upload('bool', [0, 1, 0, 1])), 'bool', [4], [0, 1, 1, 1]);
      expectArray(cumath.fmin(upload('bool', [0, 0, 1, 1]), upload('bool', [0, 1, 0, 1])), 'bool', [4], [0, 0, 0, 1]);
      expectArray(cumath.fmax(upload('int16', [3, -3]), upload('float32', [N, -4])), 'float32', [2], [3, -3]);
    }));
  });

  describe('nextafter', () => {
    test.each(FLOATS)('%s: toward itself, NaN, zeros, infinities, one step', (d) => cuda.tidy(() => {
      const t = TINY[d], max = FMAX[d], s16 = d === 'float16' || d === 'bfloat16';
      const one = d === 'float16' ? [1 + 2 ** -10, 1 - 2 ** -11] : d === 'bfloat16' ? [1 + 2 ** -7, 1 - 2 ** -8]
        : d === 'float32' ? [1 + 2 ** -23, 1 - 2 ** -24] : [1 + 2 ** -52, 1 - 2 ** -53];
      const X = [1.5, N, 1, 0, 0, -0, 0, -0, 1, 1, max, I, -I, t, -t, -max];
      const Y = [1.5, 1, N, 1, -1, 0, -0, -0, 2, 0, I, 0, 0, 0, 0, -I];
      const want = [1.5, N, N, t, -t, s16 ? -0 : 0, s16 ? 0 : -0, -0, one[0], one[1], I, max, -max, 0, -0, -I];
      expectArray(cumath.nextafter(upload(d, X), upload(d, Y)), d, [16], want);
      // a weak scalar target; strided operand
      const base = upload(d, [1, 9, 2, 9, 4, 9]).index('::2');
      expectArray(cumath.nextafter(base, I), d, [3], [one[0], roundTo(d, 2 * one[0]), roundTo(d, 4 * one[0])]);
    }));
    test('integers promote (int8 → float16 steps); complex refused', () => cuda.tidy(() => {
      expectArray(cumath.nextafter(upload('int8', [1, 0]), upload('int8', [2, -1])), 'float16', [2], [1 + 2 ** -10, -(2 ** -24)]);
      expectArray(cumath.nextafter(upload('int32', [1]), 0), 'float64', [1], [1 - 2 ** -53]);
      expectCode(() => cumath.nextafter(upload('complex64', [cx(1, 0)]), 2), TypeError, 'ERR_INVALID_DTYPE');
    }));
  });

  describe('gcd, lcm', () => {
    test('signs, zeros, wrapping, every integer dtype, scalars; floats refused', () => cuda.tidy(() => {
      const X = [-4, 4, -4, 0, 0, -5, 12, -18, 1, 7], Y = [6, -6, -6, 0, -5, 0, 18, -12, -1, 13];
      for (const d of ['int8', 'int16', 'int32', 'int64'] as DTypeName[]) {
        const big = d === 'int64', v = (x: number): V => (big ? BigInt(x) : x);
        const a = upload(d, X.map(v)), b = upload(d, Y.map(v));
        expectArray(cumath.gcd(a, b), d, [10], [2, 2, 2, 0, 5, 5, 6, 6, 1, 1].map(v), 0, `gcd ${d}`);
        expectArray(cumath.lcm(a, b), d, [10], [12, 12, 12, 0, 0, 0, 36, 36, 1, 91].map(v), 0, `lcm ${d}`);
      }
      // the most negative value: |x| does not fit, the result wraps as NumPy's
      expectArray(cumath.gcd(upload('int8', [-128, -128, 64]), upload('int8', [0, 64, -128])), 'int8', [3], [-128, 64, 64]);
      expectArray(cumath.gcd(upload('int64', [-(2n ** 63n)]), 0), 'int64', [1], [-(2n ** 63n)]);
      // lcm wraps: 100 * 99 = 9900 → int8 -84
      expectArray(cumath.lcm(upload('int8', [100, 127]), upload('int8', [99, -2])), 'int8', [2], [-84, -2]);
      expectArray(cumath.gcd(upload('uint64', [2n ** 63n * 3n / 2n, 2n ** 64n - 1n]), upload('uint64', [2n ** 62n, 5n])), 'uint64', [2],
        [2n ** 62n, 5n]);
      expectArray(cumath.lcm(upload('uint16', [65535, 256]), upload('uint16', [3, 96])), 'uint16', [2], [65535, 768]);
      expectArray(cumath.gcd(upload('int16', [24, -36, 0]), 12), 'int16', [3], [12, 12, 12]);
      expectArray(cumath.gcd(upload('bool', [1, 0, 0]), upload('bool', [1, 1, 0])), 'int8', [3], [1, 1, 0]);
      expectArray(cumath.gcd(upload('uint8', [200]), upload('int8', [-30])), 'int16', [1], [10]);
      expectCode(() => cumath.gcd(upload('float32', [2]), 4), TypeError, 'ERR_INVALID_DTYPE');
      expectCode(() => cumath.lcm(upload('int8', [2]), 2.5), TypeError, 'ERR_INVALID_DTYPE');
      expectCode(() => cumath.lcm(upload('int8', [2]), 1000), RangeError, 'ERR_OUT_OF_RANGE');
    }));
  });

  describe('square, reciprocal, heaviside, sinc', () => {
    test('integer square wraps, integer reciprocal truncates (0 → 0), bool → int8', () => cuda.tidy(() => {
      expectArray(cumath.square(upload('int8', [12, 16, -11, -128])), 'int8', [4], [-112, 0, 121, 0]);
      expectArray(cumath.square(upload('uint16', [65535, 300])), 'uint16', [2], [1, 24464]);
      expectArray(cumath.square(upload('int64', [3037000500n])), 'int64', [1], [BigInt.asIntN(64, 3037000500n ** 2n)]);
      expectArray(cumath.square(upload('bool', [1, 0])), 'int8', [2], [1, 0]);
      expectArray(cumath.reciprocal(upload('int32', [0, 1, -1, 2, -2, 2 ** 31 - 1, -(2 ** 31)])), 'int32', [7], [0, 1, -1, 0, 0, 0, 0]);
      expectArray(cumath.reciprocal(upload('uint8', [0, 1, 2, 255])), 'uint8', [4], [0, 1, 0, 0]);
      expectArray(cumath.reciprocal(upload('bool', [1, 0])), 'int8', [2], [1, 0]);
      expectArray(cumath.reciprocal(upload('float32', [0, -0, 4, I, -I, N])), 'float32', [6], [I, -I, 0.25, 0, -0, N]);
      expectArray(cumath.square(upload('complex128', [cx(1, 2), cx(0, 1)])), 'complex128', [2], [cx(-3, 4), cx(-1, 0)]);
      expectArray(cumath.reciprocal(upload('complex64', [cx(0, 2), cx(4, 0), cx(0, 0)])), 'complex64', [3],
        [cx(0, -0.5), cx(0.25, -0), cx(N, N)]);
    }));
    test('heaviside: 0 below, h0 at ±0, 1 above, NaN for NaN; h0 broadcast', () => cuda.tidy(() => {
      for (const d of FLOATS) {
        const a = upload(d, [-1.5, -0, 0, 2, N, -I, I]);
        expectArray(cumath.heaviside(a, 0.5), d, [7], [0, 0.5, 0.5, 1, N, 0, 1]);
        expectArray(cumath.heaviside(a, N), d, [7], [0, N, N, 1, N, 0, 1]);
      }
      const h = cumath.heaviside(upload('float64', [-1, 0, 1]), upload('float64', [0, 0.25], [2, 1]));
      expectArray(h, 'float64', [2, 3], [0, 0, 1, 0, 0.25, 1]);
      expectArray(cumath.heaviside(upload('int8', [-3, 0, 3]), upload('int8', [7, 7, 7])), 'float16', [3], [0, 7, 1]);
    }));
    test('sinc: 1 at ±0, NumPy\'s dtypes, NaN for NaN and ±Inf, complex', () => cuda.tidy(() => {
      for (const d of FLOATS) {
        const r = download(cumath.sinc(upload(d, [0, -0, N, I, -I, 0.5]))) as number[];
        expect(r.slice(0, 5)).toEqual([1, 1, N, N, N]);
        expect(Math.abs(r[5] - 2 / Math.PI)).toBeLessThanOrEqual(2 / Math.PI * EPS[d][1]);
      }
      const i = cumath.sinc(upload('int8', [0, 1, 2]));
      expect(i.dtype.name).toBe('float64');
      const iv = download(i) as number[];
      expect([iv[0], Math.abs(iv[1]) < 1e-15, Math.abs(iv[2]) < 1e-15]).toEqual([1, true, true]);
      expect(cumath.sinc(upload('bool', [1])).dtype.name).toBe('float64');
      expectArray(cumath.sinc(upload('complex64', [cx(0, 0), cx(-0, 0)])), 'complex64', [2], [cx(1, 0), cx(1, 0)]);
      const z = download(cumath.sinc(upload('complex128', [cx(0.5, 0)]))) as C[];
      expect(Math.abs(z[0].re - 2 / Math.PI) < 1e-15 && Math.abs(z[0].im) < 1e-15).toBe(true);
    }));
  });

  describe('conj, angle, nanToNum', () => {
    test('conj/conjugate: complex conjugate; real dtypes a copy; a.conj() keeps bool; out in place', () => cuda.tidy(() => {
      const Z = [cx(1, 2), cx(-3, -0), cx(N, I)], z = upload('complex64', Z);
      const want = [cx(1, -2), cx(-3, 0), cx(N, -I)];
      expectArray(cumath.conj(z), 'complex64', [3], want);
      expectArray(cumath.conjugate(z), 'complex64', [3], want);
      expectArray(z.conj(), 'complex64', [3], want);
      expectArray(z.conjugate(), 'complex64', [3], want);
      expect(z.conj({ out: z })).toBe(z);
      expectArray(z, 'complex64', [3], want);
      const f = upload('float32', [1.5, -2]);
      const c = f.conj();
      expect(c).not.toBe(f);
      expect(c.ptr).not.toBe(f.ptr);
      expectArray(c, 'float32', [2], [1.5, -2]);
      expectArray(cumath.conj(upload('bool', [1, 0])), 'int8', [2], [1, 0]);
      expectArray(upload('bool', [1, 0]).conj(), 'bool', [2], [1, 0]);
      expectArray(upload('uint64', [2n ** 64n - 1n]).conj(), 'uint64', [1], [2n ** 64n - 1n]);
      // strided complex input
      const s = upload('complex128', [cx(1, 1), cx(2, 2), cx(3, 3), cx(4, 4)], [2, 2]).T;
      expectArray(s.conj(), 'complex128', [2, 2], [cx(1, -1), cx(3, -3), cx(2, -2), cx(4, -4)]);
    }));
    test('angle: complex phases, deg; real inputs 0 or π; NumPy\'s dtypes', () => cuda.tidy(() => {
      const Z = [cx(1, 0), cx(0, 1), cx(-1, 0), cx(-1, -0), cx(1, 1), cx(0, 0), cx(N, 1)];
      const rad = [0, Math.PI / 2, Math.PI, -Math.PI, Math.PI / 4, 0, N];
      const t64 = 4 * 2 ** -52, t32 = 8 * 2 ** -23; // CUDA's atan2 error (and one multiplication)
      expectArray(cumath.angle(upload('complex128', Z)), 'float64', [7], rad, t64);
      expectArray(cumath.angle(upload('complex128', Z), { deg: true }), 'float64', [7], rad.map((v) => v * (180 / Math.PI)), t64);
      expectArray(cumath.angle(upload('complex64', Z), { deg: true }), 'float32', [7],
        rad.map((v) => Math.fround(Math.fround(v) * Math.fround(180 / Math.PI))), t32);
      const R = [1, -1, 0, -0, N, I, -I];
      const pi = [0, Math.PI, 0, Math.PI, N, 0, Math.PI];
      expectArray(cumath.angle(upload('float64', R)), 'float64', [7], pi, t64);
      expectArray(cumath.angle(upload('float32', R), { deg: true }), 'float32', [7], [0, 180, 0, 180, N, 0, 180], t32);
      // float16 computes in float: one rounding (NumPy's float16 `a *= 180/pi` gives 179.875)
      expectArray(cumath.angle(upload('float16', R), { deg: true }), 'float16', [7], [0, 180, 0, 180, N, 0, 180]);
      expectArray(cumath.angle(upload('float16', R)), 'float16', [7], pi.map(halfOf));
      expectArray(cumath.angle(upload('int8', [3, -3])), 'float16', [2], [0, halfOf(Math.PI)]);
      expectArray(cumath.angle(upload('bool', [1, 0])), 'float64', [2], [0, 0]);
      expectArray(cumath.apply('angle', [upload('float64', [-2])]), 'float64', [1], [Math.PI], t64);
      const out = gpuarray.empty([2], 'float64');
      expect(cumath.angle(upload('complex64', [cx(0, 1), cx(0, -1)]), { out, deg: true })).toBe(out);
      expectArray(out, 'float64', [2], [90, -90], t32);
      expectCode(() => cumath.angle(upload('float32', [1]), { deg: 'yes' as never }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => cumath.angle(upload('float32', [1]), { fastMath: true } as never), TypeError, 'ERR_INVALID_ARG_VALUE');
      expectCode(() => cumath.angle(1 as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    }));
    test('nanToNum: defaults per dtype, custom values (converted to the dtype), complex parts, integers copied, in place', () => cuda.tidy(() => {
      const X = [N, I, -I, 1.5, -0];
      for (const d of FLOATS) {
        const a = upload(d, X);
        expectArray(cumath.nanToNum(a), d, [5], [0, FMAX[d], -FMAX[d], 1.5, -0]);
        expectArray(cumath.nanToNum(a, { nan: -1, posinf: 100, neginf: -7.25 }), d, [5], [-1, 100, -7.25, 1.5, -0]);
        expectArray(cumath.nanToNum(a, { posinf: 1e300, nan: 0.1 }), d, [5], [roundTo(d, 0.1), roundTo(d, 1e300), -FMAX[d], 1.5, -0]);
        expectArray(cumath.apply('nanToNum', [a]), d, [5], [0, FMAX[d], -FMAX[d], 1.5, -0]);
      }
      const Z = [cx(N, I), cx(-I, N), cx(1, -2)];
      expectArray(cumath.nanToNum(upload('complex64', Z)), 'complex64', [3], [cx(0, FMAX.float32), cx(-FMAX.float32, 0), cx(1, -2)]);
      expectArray(cumath.nanToNum(upload('complex128', Z), { nan: 5, neginf: -1 }), 'complex128', [3], [cx(5, FMAX.float64), cx(-1, 5), cx(1, -2)]);
      const i = upload('int16', [1, -2, 3]), ci = cumath.nanToNum(i, { nan: 9 });
      expect(ci).not.toBe(i);
      expectArray(ci, 'int16', [3], [1, -2, 3]);
      expectArray(cumath.nanToNum(upload('bool', [1, 0])), 'bool', [2], [1, 0]);
      const b = upload('float64', [N, 1, I, 2]), v = b.index('::2');
      expect(cumath.nanToNum(v, { out: v })).toBe(v);
      expectArray(b, 'float64', [4], [0, 1, FMAX.float64, 2]);
      expectCode(() => cumath.nanToNum(b, { nan: '0' as never }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => cumath.nanToNum(b, { copy: false } as never), TypeError, 'ERR_INVALID_ARG_VALUE');
      expectCode(() => cumath.nanToNum([1] as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    }));
  });

  describe('real and imag', () => {
    const Z = [cx(1, 2), cx(3, 4), cx(5, 6), cx(7, 8), cx(9, 10), cx(11, 12)];
    test.each(['complex64', 'complex128'] as DTypeName[])('%s: views of the parts, read and written through', (d) => cuda.tidy(() => {
      const part = d === 'complex64' ? 'float32' : 'float64', pb = d === 'complex64' ? 4 : 8;
      const z = upload(d, Z, [2, 3]);
      const re = z.real, im = z.imag;
      expect([re.dtype.name, im.dtype.name, re.shape, im.strides, im.offset - re.offset]).toEqual([part, part, [2, 3], z.strides, pb]);
      expect(re.base).toBe(z);
      expect(im.ptr).toBe(z.ptr + BigInt(pb));
      expectArray(re, part, [2, 3], [1, 3, 5, 7, 9, 11]);
      expectArray(im, part, [2, 3], [2, 4, 6, 8, 10, 12]);
      expectArray(gpuarray.real(z), part, [2, 3], [1, 3, 5, 7, 9, 11]);
      expectArray(gpuarray.imag(z), part, [2, 3], [2, 4, 6, 8, 10, 12]);
      // writes: fill, set (host data and a GPUArray), out=, a strided part of a part
      im.index(0).fill(-1);
      re.index(1).set(new (d === 'complex64' ? Float32Array : Float64Array)([70, 90, 110]));
      cumath.square(upload(part, [2]), { out: z.index(1, '2:').imag });
      expectArray(z, d, [2, 3], [cx(1, -1), cx(3, -1), cx(5, -1), cx(70, 8), cx(90, 10), cx(110, 4)]);
      z.real.set(z.imag); // overlapping views of one allocation: read whole first
      expectArray(z, d, [2, 3], [cx(-1, -1), cx(-1, -1), cx(-1, -1), cx(8, 8), cx(10, 10), cx(4, 4)]);
      z.imag.set(upload(part, [0.5, 0.25, 0.125])); // broadcast along axis 0
      expectArray(z.imag, part, [2, 3], [0.5, 0.25, 0.125, 0.5, 0.25, 0.125]);
      re.dispose(); // a view: disposing it frees nothing
      expectArray(z.real, part, [2, 3], [-1, -1, -1, 8, 10, 4]);
    }));
    test('strided, transposed, reversed, 0-d and empty complex arrays', () => cuda.tidy(() => {
      const z = upload('complex64', Z, [2, 3]);
      const t = z.T; // [3, 2]
      expectArray(t.real, 'float32', [3, 2], viewOf([1, 3, 5, 7, 9, 11], [3, 2], [1, 3]));
      expectArray(t.imag, 'float32', [3, 2], viewOf([2, 4, 6, 8, 10, 12], [3, 2], [1, 3]));
      const r = z.index(':', '::-2'); // columns 2 and 0
      expectArray(r.imag, 'float32', [2, 2], [6, 2, 12, 8]);
      r.real.fill(0);
      expectArray(z.real, 'float32', [2, 3], [0, 3, 0, 0, 9, 0]);
      const s = z.index(1, 1); // 0-d
      expect([s.real.shape, s.imag.ndim]).toEqual([[], 0]);
      expect([s.real.item(), s.imag.item()]).toEqual([9, 10]);
      s.imag.fill(-10);
      expect(z.index(1, 1).item()).toEqual(cx(9, -10));
      const e = gpuarray.zeros([0, 3], 'complex128');
      expect([e.real.shape, e.imag.shape, e.imag.dtype.name]).toEqual([[0, 3], [0, 3], 'float64']);
      e.imag.fill(1);
      expect([...cumath.sin(e.real).shape]).toEqual([0, 3]);
      // a broadcast complex view: its parts are read-only too
      const bc = upload('complex64', [cx(1, 1)]).broadcastTo([3]);
      expectArray(bc.imag, 'float32', [3], [1, 1, 1]);
      expectCode(() => cumath.square(upload('float32', [1, 2, 3]), { out: bc.real }), TypeError, 'ERR_READ_ONLY');
    }));
    test('other dtypes: real is the array itself, imag a new zeros array; bad arguments', () => cuda.tidy(() => {
      const f = upload('float64', [1, -2, 3]);
      expect(f.real).toBe(f);
      expect(gpuarray.real(f)).toBe(f);
      const im = f.imag;
      expect(im).not.toBe(f);
      expect(im.base).toBeNull();
      expectArray(im, 'float64', [3], [0, 0, 0]);
      im.fill(5); // writes go nowhere near f
      expectArray(f, 'float64', [3], [1, -2, 3]);
      expectArray(gpuarray.imag(upload('int8', [1, 2], [2, 1]).T), 'int8', [1, 2], [0, 0]);
      expectArray(upload('bool', [1]).imag, 'bool', [1], [0]);
      expectCode(() => gpuarray.real(3 as never), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => gpuarray.imag(null as never), TypeError, 'ERR_INVALID_ARG_TYPE');
      const gone = upload('complex64', [cx(1, 1)]);
      gone.dispose();
      expectCode(() => gone.real, TypeError, 'ERR_USE_AFTER_DISPOSE');
      expect(() => { (f as unknown as { real: GPUArray }).real = f; }).toThrow(TypeError); // a getter
    }));
  });

  test('no leaked device memory', async () => {
    await collect();
    expect(cuda.memory().liveAllocations).toBe(baseline);
  });
});
