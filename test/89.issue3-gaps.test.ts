/**
 * Issue 3 leftovers:
 *  a) JS numbers/bigints stored into an integer dtype (fill, full, toGpu(number[]), set(number[]))
 *     are range-checked like NumPy 2 stores Python scalars: out of range, NaN or ±Infinity →
 *     RangeError ERR_OUT_OF_RANGE (NumPy: OverflowError / ValueError); fractions truncate toward
 *     zero; typed Scalars convert with C's rules (NumPy's unsafe cast of a NumPy scalar).
 *  b) concatenate/stack/take/put refuse arrays of two contexts (TypeError ERR_DEVICE_MISMATCH),
 *     like the operators.
 *  c) tidy(): a view returned without its owner keeps the memory alive and takes the owner's place
 *     (disposing the last returned view frees it); nested scopes; a Promise result is refused.
 * CPU tests run here; GPU tests run on the GPU machine.
 */
import * as cuda from '../lib';
import { GPUArray, driver, gpuarray } from '../lib';
import type { DTypeName } from '../lib';
import { DTYPES, checkStorable } from '../lib/base/dtype';
import { hostInput } from '../lib/array/gpuarray';
import { collect, describeGpu, expectCode, settledLive } from './helpers';
import { DTYPE_NAMES, expectArray, kind, softly, upload } from './reference';
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
    for (const d of ['bool', 'float16', 'float32', 'float64', 'complex64', 'complex128'] as DTypeName[]) {
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

describe('c) tidy (CPU)', () => {
  test('a Promise result is a TypeError ERR_INVALID_RETURN_VALUE', () => {
    expectCode(() => cuda.tidy(async () => 1), TypeError, 'ERR_INVALID_RETURN_VALUE');
    expectCode(() => cuda.tidy(() => Promise.resolve(2)), TypeError, 'ERR_INVALID_RETURN_VALUE');
    expect(cuda.tidy(() => ({ then: 1 }))).toEqual({ then: 1 }); // not a thenable
    expect(cuda.tidy(() => 5)).toBe(5);
  });
});

describeGpu('issue 3 gaps (GPU)', () => {
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

  describe('b) joins with arrays of two contexts', () => {
    test('concatenate/stack/take/put (and an operator) → TypeError ERR_DEVICE_MISMATCH; nothing leaked', () => {
      const a = upload('float32', [1, 2, 3]), ia = upload('int64', [0n, 2n]);
      const ctx = new driver.Device(0).makeContext();
      expect(ctx).toBeInstanceOf(driver.Context);
      let b: GPUArray, ib: GPUArray;
      try {
        b = upload('float32', [4, 5, 6]);
        ib = upload('int64', [1n]);
      } finally {
        driver.Context.pop();
      }
      expect(b.context).not.toBe(a.context);
      const before = settledLive();
      const bad = (fn: () => unknown): void => {
        const e = expectCode(fn, TypeError, 'ERR_DEVICE_MISMATCH');
        expect(e.message).toMatch(/context|device/);
        expect(live()).toBe(before);
      };
      bad(() => a.add(b));
      bad(() => gpuarray.concatenate([a, b]));
      bad(() => gpuarray.concatenate([a, a, b]));
      bad(() => gpuarray.stack([b, a], 1));
      bad(() => gpuarray.take(a, ib));
      bad(() => gpuarray.take(b, ia));
      bad(() => gpuarray.put(a, ib, a));
      bad(() => gpuarray.put(a, ia, b));
      bad(() => gpuarray.put(a, [0, 1], b));
      // Same-context calls still work.
      cuda.tidy(() => {
        expectArray(gpuarray.concatenate([a, a]), 'float32', [6], [1, 2, 3, 1, 2, 3]);
        expectArray(gpuarray.stack([a, a], 1), 'float32', [3, 2], [1, 1, 2, 2, 3, 3]);
        expectArray(gpuarray.take(a, ia), 'float32', [2], [1, 3]);
      });
      for (const x of [a, ia, b!, ib!]) x.dispose();
    });
  });

  describe('c) tidy and returned views', () => {
    test('a view returned without its owner keeps the memory; disposing the view frees it', () => {
      const a = upload('float32', [1, 2, 3, 4, 5, 6], [2, 3]);
      const base = settledLive();
      const v = cuda.tidy(() => a.mul(2).add(1).index('1:', '::2'));
      expect(live()).toBe(base + 1);
      expect(v.base).not.toBeNull();
      expectArray(v, 'float32', [1, 2], [9, 13]);
      v.dispose();
      expect(v.disposed).toBe(true);
      expect(live()).toBe(base); // the owner went with its only view (tfjs-like)
      expect(a.disposed).toBe(false);
      a.dispose();
    });

    test('views of views, transposes, reshape views: the same', () => {
      const a = upload('int32', [1, 2, 3, 4, 5, 6], [2, 3]);
      const base = settledLive();
      const v = cuda.tidy(() => a.add(10).T.index(1).reshape(1, 2).index(0));
      expect(live()).toBe(base + 1);
      expectArray(v, 'int32', [2], [12, 15]);
      v.dispose();
      expect(live()).toBe(base);
      a.dispose();
    });

    test('several views of one owner: the memory lives until the last is disposed', () => {
      const a = upload('float64', [1, 2, 3, 4]);
      const base = settledLive();
      const [v0, v1, v2] = cuda.tidy(() => {
        const t = a.neg();
        return [t.index('0:2'), t.index('2:'), t.index('::-1')];
      });
      expect(live()).toBe(base + 1);
      v0.dispose();
      expect(live()).toBe(base + 1);
      expectArray(v1, 'float64', [2], [-3, -4]);
      v2.dispose();
      expect(live()).toBe(base + 1);
      expectArray(v1, 'float64', [2], [-3, -4]);
      v1.dispose();
      expect(live()).toBe(base);
      a.dispose();
    });

    test('owner returned with its view: the view\'s dispose only detaches; the owner frees', () => {
      const base = settledLive();
      const { t, v } = cuda.tidy(() => {
        const x = gpuarray.arange(6, undefined, 1, 'int32');
        return { t: x, v: x.index('1:3') };
      });
      expect(live()).toBe(base + 1);
      v.dispose();
      expect(live()).toBe(base + 1);
      expectArray(t, 'int32', [6], [0, 1, 2, 3, 4, 5]);
      t.dispose();
      expect(live()).toBe(base);
    });

    test('disposing the owner of a returned view frees it too (and the view reads as disposed)', () => {
      const base = settledLive();
      const v = cuda.tidy(() => gpuarray.ones([4], 'float32').index('1:'));
      v.base!.dispose();
      expect(live()).toBe(base);
      expect(v.disposed).toBe(true);
      expectCode(() => v.get(), TypeError, 'ERR_USE_AFTER_DISPOSE');
      v.dispose(); // idempotent, no error
      expect(live()).toBe(base);
    });

    test('a view of an array created outside the scope: returning or disposing it never frees that array', () => {
      const a = upload('float32', [1, 2, 3]);
      const base = settledLive();
      const v = cuda.tidy(() => a.index('1:'));
      expect(live()).toBe(base);
      v.dispose();
      expect(a.disposed).toBe(false);
      expectArray(a, 'float32', [3], [1, 2, 3]);
      a.dispose();
    });

    test('nested scopes: the inner view passes to the outer scope; ownership follows what the outer returns', () => {
      const base = settledLive();
      // Outer returns the inner view: disposing it frees the memory.
      const v = cuda.tidy(() => {
        const inner = cuda.tidy(() => gpuarray.arange(8, undefined, 1, 'float32').mul(3).index('::4'));
        expect(live()).toBe(base + 1);
        return inner;
      });
      expect(live()).toBe(base + 1);
      expectArray(v, 'float32', [2], [0, 12]);
      v.dispose();
      expect(live()).toBe(base);
      // Outer returns nothing: the memory is freed when the outer scope ends.
      let escaped: GPUArray | undefined;
      cuda.tidy(() => {
        escaped = cuda.tidy(() => gpuarray.zeros([10], 'int8').index('2:'));
        expect(live()).toBe(base + 1);
      });
      expect(live()).toBe(base);
      expect(escaped!.disposed).toBe(true);
      // Outer returns the owner itself: the owner is the user's; disposing the view does not free it.
      const r = cuda.tidy(() => {
        const w = cuda.tidy(() => gpuarray.ones([5], 'int16').index('1:'));
        return { owner: w.base!, w };
      });
      r.w.dispose();
      expect(live()).toBe(base + 1);
      expectArray(r.owner, 'int16', [5], [1, 1, 1, 1, 1]);
      r.owner.dispose();
      expect(live()).toBe(base);
    });

    test('a view disposed inside fn and returned does not keep its owner', () => {
      const base = settledLive();
      const v = cuda.tidy(() => {
        const x = gpuarray.zeros([4]).index('1:');
        x.dispose();
        return x;
      });
      expect(v.disposed).toBe(true);
      expect(live()).toBe(base);
    });

    test('a Promise result: what fn created synchronously is disposed, TypeError', () => {
      const base = settledLive();
      let made: GPUArray | undefined;
      expectCode(() => cuda.tidy(() => {
        made = gpuarray.zeros([8]);
        return Promise.resolve(made);
      }), TypeError, 'ERR_INVALID_RETURN_VALUE');
      expect(made!.disposed).toBe(true);
      expect(live()).toBe(base);
    });
  });

  test('nothing leaked by this suite', async () => {
    await collect();
    expect(live()).toBe(baseline);
  });
});
