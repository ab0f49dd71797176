/**
 * tidy(): a view returned without its owner keeps the memory alive and takes the owner's place
 * (disposing the last returned view frees it); nested scopes; a Promise result is refused.
 * CPU tests run here; GPU tests run on the GPU machine.
 */
import * as cuda from '../lib';
import { GPUArray, gpuarray } from '../lib';
import { collect, describeGpu, expectCode, settledLive } from './helpers';
import { expectArray, upload } from './reference';

const live = (): number => cuda.memory().liveAllocations;

describe('c) tidy (CPU)', () => {
  test('a Promise result is a TypeError ERR_INVALID_RETURN_VALUE', () => {
    expectCode(() => cuda.tidy(async () => 1), TypeError, 'ERR_INVALID_RETURN_VALUE');
    expectCode(() => cuda.tidy(() => Promise.resolve(2)), TypeError, 'ERR_INVALID_RETURN_VALUE');
    expect(cuda.tidy(() => ({ then: 1 }))).toEqual({ then: 1 }); // not a thenable
    expect(cuda.tidy(() => 5)).toBe(5);
  });
});

describeGpu('tidy and returned views (GPU)', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
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
