/**
 * JS numbers/bigints stored into an integer dtype (fill, full, toGpu(number[]), set(number[])) are
 * range-checked like NumPy 2 stores Python scalars: out of range, NaN or ±Infinity → RangeError
 * ERR_OUT_OF_RANGE (NumPy: OverflowError / ValueError); fractions truncate toward zero; typed
 * Scalars convert with C's rules (NumPy's unsafe cast of a NumPy scalar).
 * CPU tests run here; GPU tests run on the GPU machine.
 */
import * as cuda from '../lib';
import { gpuarray } from '../lib';
import type { DTypeName } from '../lib';
import { DTYPES, checkStorable } from '../lib/base/dtype';
import { hostInput } from '../lib/array/host_input';
import { collect, describeGpu, expectCode, settledLive } from './helpers';
import { DTYPE_NAMES, expectArray, kind, softly } from './reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Number, BigInt } = globalThis;

const INT_DTYPES = DTYPE_NAMES.filter((d) => kind(d) === 'i' || kind(d) === 'u');
const live = (): number => cuda.memory().liveAllocations;

/** [lo, hi] of an integer dtype, as bigints (computed here, independently of lib/). */
function bounds(d: DTypeName): [bigint, bigint] {
  const bits = BigInt(DTYPES[d].bytes * 8);
  return kind(d) === 'u' ? [0n, 2n ** bits - 1n] : [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n];
}
/** A JS value for `v` in dtype d: a bigint for 64-bit types (not exact as numbers), else a number. */
const js = (d: DTypeName, v: bigint): number | bigint => (DTYPES[d].bytes === 8 ? v : Number(v));
/** The value as the GPU array reads it back (reference.ts convention). */
const val = (d: DTypeName, v: bigint): number | bigint => (DTYPES[d].bytes === 8 ? v : Number(v));

describe('a) weak scalars stored into integer dtypes (CPU)', () => {
  test.each(INT_DTYPES)('checkStorable %s: the bounds pass, one past them is ERR_OUT_OF_RANGE naming value and dtype', (d) => {
    const dt = DTYPES[d];
    const [lo, hi] = bounds(d);
    for (const ok of [lo, hi, 0n]) {
      expect(() => checkStorable(dt, ok)).not.toThrow();
      if (dt.bytes < 8) expect(() => checkStorable(dt, Number(ok))).not.toThrow();
    }
    for (const bad of [lo - 1n, hi + 1n, hi * 4n + 7n]) {
      const e = expectCode(() => checkStorable(dt, bad, 'fill value'), RangeError, 'ERR_OUT_OF_RANGE');
      expect(e.message).toContain(String(bad));
      expect(e.message).toContain(d);
      if (dt.bytes < 8) expectCode(() => checkStorable(dt, Number(bad)), RangeError, 'ERR_OUT_OF_RANGE');
    }
    for (const bad of [NaN, Infinity, -Infinity]) {
      const e = expectCode(() => checkStorable(dt, bad), RangeError, 'ERR_OUT_OF_RANGE');
      expect(e.message).toContain(String(bad));
      expect(e.message).toContain(d);
    }
    // Fractions truncate toward zero before the check (NumPy: np.full(1, 127.9, np.int8) → 127).
    if (dt.bytes < 8) {
      expect(() => checkStorable(dt, Number(hi) + 0.9)).not.toThrow();
      expect(() => checkStorable(dt, Number(lo) - 0.9)).not.toThrow();
      expectCode(() => checkStorable(dt, Number(hi) + 1), RangeError, 'ERR_OUT_OF_RANGE');
    }
  });

  test('int64/uint64 bounds are exact (2^63 is not an int64 even as a JS number)', () => {
    expectCode(() => checkStorable(DTYPES.int64, 2 ** 63), RangeError, 'ERR_OUT_OF_RANGE');
    expect(() => checkStorable(DTYPES.int64, -(2 ** 63))).not.toThrow();
    expect(() => checkStorable(DTYPES.uint64, 2 ** 63)).not.toThrow();
    expectCode(() => checkStorable(DTYPES.uint64, 2 ** 64), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => checkStorable(DTYPES.uint64, -1), RangeError, 'ERR_OUT_OF_RANGE');
  });

  test('float, complex and bool dtypes take any number', () => {
    for (const d of ['bool', 'float16', 'bfloat16', 'float32', 'float64', 'complex64', 'complex128'] as DTypeName[]) {
      for (const v of [NaN, Infinity, -Infinity, 1e300, -1e300, 2n ** 70n]) expect(() => checkStorable(DTYPES[d], v)).not.toThrow();
    }
  });

  test.each(INT_DTYPES)('toGpu(number[], {dtype: %s}) host conversion: truncates, refuses out of range / NaN / Inf', (d) => {
    const [lo, hi] = bounds(d);
    const { h, dtype } = hostInput([js(d, lo), js(d, hi), 2.9, -0.9], { dtype: d });
    expect(dtype.name).toBe(d);
    const got = Array.from(h as unknown as ArrayLike<number | bigint>);
    // -0.9 truncates to -0, stored as 0 (any integer dtype, unsigned too: NumPy gives 0).
    expect(got.map(String)).toEqual([lo, hi, 2n, 0n].map(String));
    for (const bad of [lo - 1n, hi + 1n]) {
      const e = expectCode(() => hostInput([[1, 2], [3, js(d, bad)]], { dtype: d }), RangeError, 'ERR_OUT_OF_RANGE');
      expect(e.message).toContain(String(bad));
      expect(e.message).toContain(d);
    }
    for (const bad of [NaN, Infinity, -Infinity]) expectCode(() => hostInput([0, bad], { dtype: d }), RangeError, 'ERR_OUT_OF_RANGE');
  });

  test('toGpu host conversion into bool: any nonzero number is true, NaN included (NumPy)', () => {
    const { h } = hostInput([0, -0, NaN, 0.5, -3, Infinity], { dtype: 'bool' });
    expect(Array.from(h as Uint8Array)).toEqual([0, 0, 1, 1, 1, 1]);
  });

  test('typed Scalars still convert with C rules in kernel arguments (not weak)', () => {
    expect(cuda.int8(300).value).toBe(44);
    expect(cuda.uint8(-1).value).toBe(255);
  });
});

describeGpu('integer stores of JS scalars (GPU)', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  describe('a) fill / full / toGpu / set with JS scalars out of an integer dtype', () => {
    test.each(INT_DTYPES)('%s: bounds stored exactly, fractions truncated; out of range / NaN / Inf → ERR_OUT_OF_RANGE, nothing leaked', (d) => {
      const check = softly();
      const [lo, hi] = bounds(d);
      const base = settledLive();
      check(() => cuda.tidy(() => {
        expectArray(gpuarray.full([2], js(d, hi), d), d, [2], [val(d, hi), val(d, hi)]);
        expectArray(gpuarray.full([1], js(d, lo), d), d, [1], [val(d, lo)]);
        expectArray(gpuarray.zeros([3], d).fill(js(d, hi)), d, [3], Array(3).fill(val(d, hi)));
        expectArray(gpuarray.toGpu([js(d, lo), js(d, hi)], { dtype: d }), d, [2], [val(d, lo), val(d, hi)]);
        expectArray(gpuarray.full([2], 5.9, d), d, [2], [val(d, 5n), val(d, 5n)]);
        expectArray(gpuarray.full([1], -0.9, d), d, [1], [val(d, 0n)]);
        if (kind(d) === 'i') expectArray(gpuarray.zeros(2, d).fill(-7.5), d, [2], [val(d, -7n), val(d, -7n)]);
        expectArray(gpuarray.toGpu([[1.9], [-0.5]], { dtype: d }), d, [2, 1], [val(d, 1n), val(d, 0n)]);
        const s = gpuarray.zeros([2], d);
        s.set([js(d, hi), 3.7]);
        expectArray(s, d, [2], [val(d, hi), val(d, 3n)]);
      }));
      const target = gpuarray.full([3], 1, d);
      for (const bad of [lo - 1n, hi + 1n, hi * 3n]) {
        const b = js(d, bad);
        check(() => expect(expectCode(() => gpuarray.full([4], b, d), RangeError, 'ERR_OUT_OF_RANGE').message).toMatch(
          new RegExp(`${bad}.*${d}`)));
        check(() => expectCode(() => target.fill(b), RangeError, 'ERR_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.toGpu([1, b], { dtype: d }), RangeError, 'ERR_OUT_OF_RANGE'));
        check(() => expectCode(() => target.set([1, 2, b]), RangeError, 'ERR_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.full([2], bad, d), RangeError, 'ERR_OUT_OF_RANGE')); // bigint too
      }
      for (const bad of [NaN, Infinity, -Infinity]) {
        check(() => expect(expectCode(() => gpuarray.full([4], bad, d), RangeError, 'ERR_OUT_OF_RANGE').message).toContain(d));
        check(() => expectCode(() => target.fill(bad), RangeError, 'ERR_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.toGpu([bad], { dtype: d }), RangeError, 'ERR_OUT_OF_RANGE'));
      }
      check(() => expectArray(target, d, [3], Array(3).fill(val(d, 1n)))); // failed fills left it untouched
      target.dispose();
      check(() => expect(live()).toBe(base));
      check.done();
    });

    test('typed Scalars are not weak: they convert like NumPy\'s unsafe cast (wrap), no error', () => cuda.tidy(() => {
      const check = softly();
      check(() => expectArray(gpuarray.zeros(2, 'int8').fill(cuda.int32(300)), 'int8', [2], [44, 44]));
      check(() => expectArray(gpuarray.full([1], cuda.int16(-1), 'uint16'), 'uint16', [1], [65535]));
      check.done();
    }));

    test('bool, float and complex dtypes take any JS number (NaN is true; float overflow is Inf)', () => cuda.tidy(() => {
      const check = softly();
      check(() => expectArray(gpuarray.full([2], NaN, 'bool'), 'bool', [2], [1, 1]));
      check(() => expectArray(gpuarray.toGpu([NaN, 0, -0, 2], { dtype: 'bool' }), 'bool', [4], [1, 0, 0, 1]));
      check(() => expectArray(gpuarray.full([1], 1e300, 'float32'), 'float32', [1], [Infinity]));
      check(() => expectArray(gpuarray.full([1], 1e6, 'float16'), 'float16', [1], [Infinity]));
      check(() => expectArray(gpuarray.toGpu([-1e300], { dtype: 'float32' }), 'float32', [1], [-Infinity]));
      check(() => expectArray(gpuarray.full([1], 2 ** 70, 'complex64'), 'complex64', [1], [{ re: 2 ** 70, im: 0 }]));
      check.done();
    }));

    test('linspace/arange into a narrow integer dtype do not range-check (NumPy casts unsafely)', () => cuda.tidy(() => {
      expectArray(gpuarray.linspace(0, 1000, 3, { dtype: 'int16' }), 'int16', [3], [0, 500, 1000]);
      expect(() => gpuarray.linspace(0, 300, 2, { dtype: 'uint8' })).not.toThrow();
      expectArray(gpuarray.linspace(0, 300, 2, { dtype: 'int32' }), 'int32', [2], [0, 300]);
    }));
  });

  test('nothing leaked by this suite', async () => {
    await collect();
    expect(live()).toBe(baseline);
  });
});
