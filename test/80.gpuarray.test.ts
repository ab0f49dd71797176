/**
 * GPUArray on a real GPU: creation from every host form, transfers (sync and async, never
 * blocking the event loop), views and indexing, printing, tidy/dispose, and
 * bad input (right error, nothing leaked, the process keeps working). Expected values are NumPy's.
 */
import { inspect } from 'util';
import * as cuda from '../lib';
import { GPUArray, ellipsis, gpuarray, slice } from '../lib';
import type { DTypeName } from '../lib';
import { collect, describeGpu, expectCode, settledLive } from './helpers';
import { C, download, expectArray, softly, upload, viewOf } from './reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, BigInt } = globalThis;

const live = (): number => cuda.memory().liveAllocations;
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const cplx = (re: number, im: number): C => ({ re, im });

describeGpu('GPUArray', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  describe('creation', () => {
    test('toGpu from every TypedArray keeps its dtype; get() gives the same type back', () => cuda.tidy(() => {
      const cases: Array<[ArrayBufferView, DTypeName]> = [
        [new Int8Array([1, -2, 127, -128]), 'int8'], [new Uint8Array([1, 2, 255, 0]), 'uint8'],
        [new Uint8ClampedArray([1, 2, 255, 0]), 'uint8'], [new Int16Array([1, -2, 32767, -32768]), 'int16'],
        [new Uint16Array([1, 2, 65535, 0]), 'uint16'], [new Int32Array([1, -2, 2 ** 31 - 1, -(2 ** 31)]), 'int32'],
        [new Uint32Array([1, 2, 2 ** 32 - 1, 0]), 'uint32'], [new BigInt64Array([1n, -2n, 2n ** 63n - 1n, -(2n ** 63n)]), 'int64'],
        [new BigUint64Array([1n, 2n, 2n ** 64n - 1n, 0n]), 'uint64'], [new Float32Array([1.5, -0, NaN, -Infinity]), 'float32'],
        [new Float64Array([0.1, -0, NaN, Infinity]), 'float64'],
      ];
      for (const [h, d] of cases) {
        const a = gpuarray.toGpu(h);
        expect([a.dtype.name, a.shape, a.size, a.nbytes]).toEqual([d, [4], 4, h.byteLength]);
        const back = a.get();
        expect(back.constructor).toBe(d === 'uint8' ? Uint8Array : h.constructor);
        expect(Array.from(back as unknown as ArrayLike<unknown>)).toEqual(Array.from(h as unknown as ArrayLike<unknown>));
      }
      const sub = new Float32Array([9, 1, 2, 3, 4, 5, 6, 9]).subarray(1, 7);
      expectArray(gpuarray.toGpu(sub, { shape: [2, 3] }), 'float32', [2, 3], [1, 2, 3, 4, 5, 6]);
    }));

    test('a dtype reinterprets host bits (float16, complex) or converts', () => cuda.tidy(() => {
      const check = softly();
      check(() => expectArray(gpuarray.toGpu(new Uint16Array([0x3c00, 0xc000, 0x7bff, 0x0001, 0x8000]), { dtype: 'float16' }), 'float16', [5],
        [1, -2, 65504, 2 ** -24, -0]));
      check(() => expectArray(gpuarray.toGpu(new Float32Array([1, 2, 3, -4]), { dtype: 'complex64' }), 'complex64', [2], [cplx(1, 2), cplx(3, -4)]));
      check(() => expectArray(gpuarray.toGpu(new Float64Array([1.7, -1.7, 300.5]), { dtype: 'int32' }), 'int32', [3], [1, -1, 300]));
      check(() => expectArray(gpuarray.toGpu(new Int32Array([1, -2]), { dtype: 'float32' }), 'float32', [2], [1, -2]));
      check(() => expectArray(gpuarray.toGpu(new Uint8Array([0, 1]), { dtype: 'bool' }), 'bool', [2], [0, 1]));
      check(() => expectArray(gpuarray.toGpu(new Uint16Array([0x3f80, 0xc000, 0x7f7f, 0x0001, 0x8000]), { dtype: 'bfloat16' }), 'bfloat16', [5],
        [1, -2, 3.3895313892515355e38, 2 ** -133, -0]));
      check(() => expectArray(gpuarray.toGpu(new Float64Array([1 + 2 ** -8 + 2 ** -40, -0.1]), { dtype: 'bfloat16' }), 'bfloat16', [2],
        [1 + 2 ** -7, -0.10009765625]));
      check.done();
    }));

    test('bool data read back is 0/1 even when made from bytes other than 0/1', () => cuda.tidy(() => {
      const b = gpuarray.toGpu(new Uint8Array([0, 2, 255]), { dtype: 'bool' });
      expect(b.toArray()).toEqual([false, true, true]);
      expect(Array.from(b.get() as Uint8Array)).toEqual([0, 1, 1]);
    }));

    test('nested arrays, scalars, ArrayBuffer + dtype', () => cuda.tidy(() => {
      const check = softly();
      check(() => expectArray(gpuarray.toGpu([[1, 2, 3], [4, 5, 6]]), 'float64', [2, 3], [1, 2, 3, 4, 5, 6]));
      check(() => expectArray(gpuarray.toGpu([[1, 2], [3, 4]], { dtype: 'int16' }), 'int16', [2, 2], [1, 2, 3, 4]));
      check(() => expectArray(gpuarray.toGpu([true, false]), 'bool', [2], [1, 0]));
      check(() => expectArray(gpuarray.toGpu([2n ** 40n, -1n]), 'int64', [2], [2n ** 40n, -1n]));
      check(() => expectArray(gpuarray.toGpu([{ re: 1, im: -1 }, 2]), 'complex128', [2], [cplx(1, -1), cplx(2, 0)]));
      check(() => expectArray(gpuarray.toGpu([1.5, 2.5, -0.5], { dtype: 'float16' }), 'float16', [3], [1.5, 2.5, -0.5]));
      check(() => expectArray(gpuarray.toGpu([1.5, 0.1, NaN, -Infinity], { dtype: 'bfloat16' }), 'bfloat16', [4], [1.5, 0.10009765625, NaN, -Infinity]));
      const s = gpuarray.toGpu(5);
      check(() => expect([s.shape, s.ndim, s.size, s.item()]).toEqual([[], 0, 1, 5]));
      check(() => expectArray(gpuarray.toGpu([]), 'float64', [0], []));
      check(() => expectArray(gpuarray.toGpu([1, 2, 3, 4], { shape: [2, 2], dtype: 'uint8' }), 'uint8', [2, 2], [1, 2, 3, 4]));
      check(() => expectCode(() => gpuarray.toGpu([[1, 2], [3]]), RangeError, 'ERR_RAGGED_ARRAY'));
      check(() => expectCode(() => gpuarray.toGpu(new ArrayBuffer(6), { dtype: 'float32' }), RangeError, 'ERR_OUT_OF_RANGE'));
      check(() => expectCode(() => gpuarray.toGpu([1, 2, 3], { shape: [2, 2] }), RangeError, 'ERR_INVALID_RESHAPE'));
      check(() => expect(() => gpuarray.toGpu('abc' as never)).toThrow(TypeError));
      check.done();
    }));

    test('ArrayBuffer + dtype (a new ArrayBuffer, and the .buffer of a TypedArray from any realm)', () => cuda.tidy(() => {
      const own = new ArrayBuffer(16);
      new Float32Array(own).set([1, 2, 3, 4]);
      expectArray(gpuarray.toGpu(own, { dtype: 'float32', shape: [2, 2] }), 'float32', [2, 2], [1, 2, 3, 4]);
      expectArray(gpuarray.toGpu(own, { dtype: 'int16' }), 'int16', [8], [0, 16256, 0, 16384, 0, 16448, 0, 16512]);
      // Under Jest (a vm context) a TypedArray's .buffer is not an instance of the global ArrayBuffer.
      expectArray(gpuarray.toGpu(new Float32Array([1, 2, 3, 4]).buffer, { dtype: 'float32' }), 'float32', [4], [1, 2, 3, 4]);
      expectArray(gpuarray.toGpu(new Int8Array([7, -8]).buffer), 'uint8', [2], [7, 248]);
    }));

    test('empty, zeros, ones, full, *Like', () => cuda.tidy(() => {
      const check = softly();
      const e = gpuarray.empty([2, 3]);
      check(() => expect([e.dtype.name, e.shape, e.strides, e.nbytes]).toEqual(['float64', [2, 3], [24, 8], 48]));
      check(() => expectArray(gpuarray.zeros(3), 'float64', [3], [0, 0, 0]));
      check(() => expectArray(gpuarray.zeros([2, 2], 'int64'), 'int64', [2, 2], [0n, 0n, 0n, 0n]));
      check(() => expectArray(gpuarray.ones([2], 'complex64'), 'complex64', [2], [cplx(1, 0), cplx(1, 0)]));
      check(() => expectArray(gpuarray.ones(2, 'bool'), 'bool', [2], [1, 1]));
      check(() => expectArray(gpuarray.ones(3, 'float16'), 'float16', [3], [1, 1, 1]));
      check(() => expectArray(gpuarray.full([2], 7, 'uint8'), 'uint8', [2], [7, 7]));
      check(() => expectArray(gpuarray.full([2], 1.5), 'float64', [2], [1.5, 1.5]));
      check(() => expectArray(gpuarray.full([2], -0), 'float64', [2], [-0, -0]));
      check(() => expectArray(gpuarray.full([1], true), 'bool', [1], [1]));
      check(() => expectArray(gpuarray.full([1], 2n ** 62n), 'int64', [1], [2n ** 62n]));
      check(() => expectArray(gpuarray.full([1], { re: 1, im: 2 }), 'complex128', [1], [cplx(1, 2)]));
      check(() => expectArray(gpuarray.full([1], cuda.float32(0.1)), 'float32', [1], [Math.fround(0.1)]));
      check(() => expectArray(gpuarray.empty(0, 'int8'), 'int8', [0], []));
      check(() => expectArray(gpuarray.zeros([3, 0]), 'float64', [3, 0], []));
      const a = upload('int16', [1, 2, 3, 4, 5, 6], [2, 3]);
      const l = gpuarray.emptyLike(a);
      check(() => expect([l.dtype.name, l.shape]).toEqual(['int16', [2, 3]]));
      check(() => expectArray(gpuarray.zerosLike(a, 'float32'), 'float32', [2, 3], Array(6).fill(0)));
      check(() => expectArray(gpuarray.onesLike(a.T), 'int16', [3, 2], Array(6).fill(1)));
      check.done();
    }));

    test('arange and linspace', () => cuda.tidy(() => {
      const check = softly();
      check(() => expectArray(gpuarray.arange(5), 'int64', [5], [0n, 1n, 2n, 3n, 4n]));
      check(() => expectArray(gpuarray.arange(2, 8, 2), 'int64', [3], [2n, 4n, 6n]));
      check(() => expectArray(gpuarray.arange(5, 0, -2), 'int64', [3], [5n, 3n, 1n]));
      check(() => expectArray(gpuarray.arange(0, 1, 0.25), 'float64', [4], [0, 0.25, 0.5, 0.75]));
      check(() => expectArray(gpuarray.arange(5, 0, -1.5), 'float64', [4], [5, 3.5, 2, 0.5]));
      check(() => expectArray(gpuarray.arange(0, 4, 1, 'uint8'), 'uint8', [4], [0, 1, 2, 3]));
      check(() => expectArray(gpuarray.arange(5, 0), 'int64', [0], []));
      const f = gpuarray.arange(0, 1, 0.1, 'float32');
      check(() => expect([f.dtype.name, f.shape]).toEqual(['float32', [10]]));
      download(f).forEach((v, i) => expect(v as number).toBeCloseTo(i / 10, 6));
      check(() => expectCode(() => gpuarray.arange(0, 5, 0), RangeError, 'ERR_OUT_OF_RANGE'));
      check(() => expect(() => gpuarray.arange(NaN)).toThrow(TypeError));
      check(() => expectArray(gpuarray.linspace(0, 1, 5), 'float64', [5], [0, 0.25, 0.5, 0.75, 1]));
      check(() => expectArray(gpuarray.linspace(0, 1, 5, { endpoint: false }), 'float64', [5], range(5).map((i) => i * 0.2)));
      check(() => expectArray(gpuarray.linspace(1, 0, 3), 'float64', [3], [1, 0.5, 0]));
      check(() => expectArray(gpuarray.linspace(0, 0.3, 4), 'float64', [4], [0, 1, 2].map((i) => i * (0.3 / 3)).concat(0.3))); // stop exactly
      // NumPy: start + i * step, rounded twice (no fused multiply-add).
      check(() => expectArray(gpuarray.linspace(0.1, 0.7, 7), 'float64', [7], range(6).map((i) => i * ((0.7 - 0.1) / 6) + 0.1).concat(0.7)));
      check(() => expectArray(gpuarray.linspace(2, 3, 1), 'float64', [1], [2]));
      check(() => expectArray(gpuarray.linspace(0, 1, 0), 'float64', [0], []));
      check(() => expectArray(gpuarray.linspace(0, 2, 3, { dtype: 'float32' }), 'float32', [3], [0, 1, 2]));
      check.done();
    }));

    test('toGpuAsync', async () => {
      const a = await gpuarray.toGpuAsync(new Int32Array([3, 1, 4]));
      expectArray(a, 'int32', [3], [3, 1, 4]);
      const b = await gpuarray.toGpuAsync([1, 2], { dtype: 'float16' });
      expectArray(b, 'float16', [2], [1, 2]);
      a.dispose();
      b.dispose();
    });
  });

  describe('transfers', () => {
    test('get(out), getAsync(out), wrong out size', async () => {
      const a = upload('float32', [1, 2, 3, 4], [2, 2]);
      const out = new Float32Array(4);
      const got: Float32Array = a.get(out); // typed as `out`'s own type
      expect(got).toBe(out);
      expect(Array.from(out)).toEqual([1, 2, 3, 4]);
      const out2 = new Float32Array(4);
      const got2: Float32Array = await a.getAsync(out2);
      expect(got2).toBe(out2);
      expect(Array.from(out2)).toEqual([1, 2, 3, 4]);
      expect(Array.from(await a.T.getAsync() as Float32Array)).toEqual([1, 3, 2, 4]);
      expectCode(() => a.get(new Float32Array(3)), RangeError, 'ERR_OUT_OF_RANGE');
      const h = upload('float16', [1.5]).get();
      expect(h instanceof Uint16Array || h.constructor.name === 'Float16Array').toBe(true);
      expect(upload('bfloat16', [1.5, -2]).get()).toEqual(new Uint16Array([0x3fc0, 0xc000])); // bits, on every Node
      expect(upload('complex64', [cplx(1, 2)]).get()).toEqual(new Float32Array([1, 2]));
      expect(upload('bool', [1, 0]).get()).toEqual(new Uint8Array([1, 0]));
      expect(upload('uint64', [5n]).get()).toEqual(new BigUint64Array([5n]));
      a.dispose();
    });

    test('set, setAsync (also through non-contiguous views), size and type checks', async () => {
      const a = gpuarray.zeros([2, 3], 'int32');
      a.set(new Int32Array([1, 2, 3, 4, 5, 6]));
      expectArray(a, 'int32', [2, 3], [1, 2, 3, 4, 5, 6]);
      a.set([[6, 5, 4], [3, 2, 1]]);
      expectArray(a, 'int32', [2, 3], [6, 5, 4, 3, 2, 1]);
      a.T.set(new Int32Array([10, 20, 30, 40, 50, 60])); // a.T is [[a00, a10], [a01, a11], [a02, a12]]
      expectArray(a, 'int32', [2, 3], [10, 30, 50, 20, 40, 60]);
      a.index(':', '::2').set([[-1, -2], [-3, -4]]);
      expectArray(a, 'int32', [2, 3], [-1, 30, -2, -3, 40, -4]);
      await a.setAsync(new Int32Array([0, 1, 2, 3, 4, 5]));
      expectArray(a, 'int32', [2, 3], [0, 1, 2, 3, 4, 5]);
      await a.index('::-1').setAsync([[9, 9, 9], [8, 8, 8]]);
      expectArray(a, 'int32', [2, 3], [8, 8, 8, 9, 9, 9]);
      expectCode(() => a.set(new Int32Array(5)), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => a.set([1, 2]), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => a.set(new Float64Array(6)), TypeError, 'ERR_INVALID_ARG_TYPE');
      const h = gpuarray.zeros(2, 'float16');
      h.set(new Uint16Array([0x3c00, 0x4000]));
      expectArray(h, 'float16', [2], [1, 2]);
      const bh = gpuarray.zeros(2, 'bfloat16');
      bh.set(new Uint16Array([0x3f80, 0x4000]));
      expectArray(bh, 'bfloat16', [2], [1, 2]);
      bh.set([0.1, -3]);
      expectArray(bh, 'bfloat16', [2], [0.10009765625, -3]);
      expectCode(() => bh.set(new Float32Array(2)), TypeError, 'ERR_INVALID_ARG_TYPE');
      a.dispose();
      h.dispose();
      bh.dispose();
    });

    test('item() and toArray()', () => cuda.tidy(() => {
      const check = softly();
      check(() => expect(upload('float32', [2.5]).item()).toBe(2.5));
      check(() => expect(upload('int64', [-(2n ** 63n)]).item()).toBe(-(2n ** 63n)));
      check(() => expect(upload('bool', [1]).item()).toBe(true));
      check(() => expect(upload('complex128', [cplx(1, -2)]).item()).toEqual({ re: 1, im: -2 }));
      check(() => expect(upload('float16', [0.5]).item()).toBe(0.5));
      check(() => expect(upload('bfloat16', [0.1]).item()).toBe(0.10009765625));
      check(() => expect(upload('bfloat16', [1, -0.5], [2, 1]).toArray()).toEqual([[1], [-0.5]]));
      const m = upload('int32', range(6), [2, 3]);
      check(() => expect(m.index(1, 2).item()).toBe(5));
      check(() => expect(m.T.index(2, 1).item()).toBe(5));
      check(() => expect(m.index('1:', '2:').item()).toBe(5));
      check(() => expectCode(() => m.item(), RangeError, 'ERR_OUT_OF_RANGE'));
      check(() => expect(m.toArray()).toEqual([[0, 1, 2], [3, 4, 5]]));
      check(() => expect(m.T.toArray()).toEqual([[0, 3], [1, 4], [2, 5]]));
      check(() => expect(upload('bool', [1, 0]).toArray()).toEqual([true, false]));
      check(() => expect(upload('uint64', [1n]).toArray()).toEqual([1n]));
      check(() => expect(gpuarray.toGpu(3.5).toArray()).toBe(3.5));
      check(() => expect(gpuarray.zeros([2, 0]).toArray()).toEqual([[], []]));
      check.done();
    }));

    test('getAsync never blocks the event loop (200 ms kernel on the default stream)', async () => {
      const spin = new cuda.SourceModule(`
__global__ void spin(long long cycles, int *out, int n, int v) {
  long long start = clock64();
  while (clock64() - start < cycles) { }
  for (int k = 0; k < n; k++) out[k] = v;
}`).getFunction('spin');
      const khz = new cuda.driver.Device(0).getAttribute('CLOCK_RATE') || 2_000_000;
      const a = gpuarray.zeros([5], 'int32');
      const t0 = Date.now();
      spin(BigInt(Math.round(khz * 200)), a, 5, 7, { block: [1] });
      let ticks = 0;
      const timer = setInterval(() => ticks++, 5);
      let h: ArrayBufferView;
      try {
        h = await a.getAsync();
      } finally {
        clearInterval(timer);
      }
      expect(Array.from(h as Int32Array)).toEqual([7, 7, 7, 7, 7]);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
      expect(ticks).toBeGreaterThan(5);
      a.dispose();
    });
  });

  describe('views', () => {
    test('shape attributes, strides in bytes, ptr of a view, flags', () => cuda.tidy(() => {
      const a = gpuarray.zeros([2, 3, 4], 'float32');
      expect([a.ndim, a.size, a.itemsize, a.nbytes, a.strides]).toEqual([3, 24, 4, 96, [48, 16, 4]]);
      expect(a.flags).toEqual({ cContiguous: true, fContiguous: false });
      expect(a.T.flags).toEqual({ cContiguous: false, fContiguous: true });
      expect(a.T.strides).toEqual([4, 16, 48]);
      expect(a.index(0, '::2').flags).toEqual({ cContiguous: false, fContiguous: false });
      expect(a.index(1, 2, '1:').ptr).toBe(a.ptr + BigInt(48 + 32 + 4));
      expect(gpuarray.zeros([1, 5]).flags).toEqual({ cContiguous: true, fContiguous: true });
      expect(a.index(1).base).toBe(a);
      expect(a.index(1).index(0).base).toBe(a);
    }));

    test('reshape: a view when possible (shares memory), a copy otherwise; ravel', () => cuda.tidy(() => {
      const a = upload('float32', range(6));
      const r = a.reshape(2, 3);
      expect([r.shape, r.base]).toEqual([[2, 3], a]);
      expect(a.reshape([3, -1]).shape).toEqual([3, 2]);
      r.index(1).fill(9);
      expectArray(a, 'float32', [6], [0, 1, 2, 9, 9, 9]);
      const m = upload('int32', range(6), [2, 3]);
      const c = m.T.reshape(-1);
      expectArray(c, 'int32', [6], [0, 3, 1, 4, 2, 5]);
      c.fill(-1);
      expectArray(m, 'int32', [2, 3], range(6)); // a copy: m untouched
      expectArray(m.T.ravel(), 'int32', [6], [0, 3, 1, 4, 2, 5]);
      const v = m.ravel();
      v.fill(4);
      expectArray(m, 'int32', [2, 3], Array(6).fill(4)); // a view
      expectArray(m.index(':', '::2').reshape(4), 'int32', [4], [4, 4, 4, 4]);
      expect(gpuarray.zeros([2, 0]).reshape(0, 5).shape).toEqual([0, 5]);
    }));

    test('dispose() of a reshape that had to copy frees its memory', () => {
      const m = upload('float64', range(12), [3, 4]);
      const before = settledLive();
      const c = m.T.reshape(12);
      expect(live()).toBe(before + 1);
      c.dispose();
      expect(live()).toBe(before);
      m.dispose();
    });

    test('view(dtype)', () => cuda.tidy(() => {
      const check = softly();
      check(() => expectArray(upload('float32', [1, -2]).view('uint32'), 'uint32', [2], [0x3f800000, 0xc0000000]));
      check(() => expectArray(upload('complex64', [cplx(1, 2), cplx(3, -4)]).view('float32'), 'float32', [4], [1, 2, 3, -4]));
      check(() => expectArray(upload('int32', [1, 2, 3, 4], [2, 2]).view('int16'), 'int16', [2, 4], [1, 0, 2, 0, 3, 0, 4, 0]));
      check(() => expectArray(upload('uint8', range(8)).view('float64').view('uint8'), 'uint8', [8], range(8)));
      check(() => expectArray(upload('int32', [1, 2, 3, 4], [2, 2]).T.view('uint32'), 'uint32', [2, 2], [1, 3, 2, 4]));
      check(() => expectCode(() => upload('int32', [1, 2, 3, 4], [2, 2]).T.view('int16'), RangeError, 'ERR_INVALID_VIEW'));
      check(() => expectCode(() => upload('int8', [1, 2, 3]).view('int16'), RangeError, 'ERR_INVALID_VIEW'));
      check.done();
    }));

    test('misaligned views are refused (ERR_MISALIGNED_VIEW) and the context stays healthy', () => cuda.tidy(() => {
      const check = softly();
      // Each of these once faulted the context (MISALIGNED_ADDRESS) or read wrong bytes on add(1).
      check(() => expectCode(() => gpuarray.toGpu(new Float32Array(8)).index('1:7').view('float64'), RangeError, 'ERR_MISALIGNED_VIEW'));
      check(() => expectCode(() => gpuarray.toGpu(new Float64Array(6)).index('1:5').view('complex128'), RangeError, 'ERR_MISALIGNED_VIEW'));
      check(() => expectCode(() => upload('float32', range(9), [3, 3]).index(':', '0:2').view('float64'), RangeError, 'ERR_MISALIGNED_VIEW'));
      check(() => expectCode(() => upload('uint8', range(9)).index('1:').view('int32'), RangeError, 'ERR_MISALIGNED_VIEW'));
      // Aligned offsets and strides still view, and compute right.
      const f = new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]);
      const ok = gpuarray.toGpu(f).index('2:6').view('float64');
      const expected = new Float64Array(f.slice(2, 6).buffer).map((x) => x + 1);
      check(() => expectArray(ok.add(1), 'float64', [2], Array.from(expected)));
      const rows = upload('float32', range(12), [3, 4]).index(':', '0:2').view('float64'); // strides [16, 8]
      check(() => expect(rows.strides).toEqual([16, 8]));
      const ref = new Float64Array(new Float32Array(range(12)).buffer);
      check(() => expectArray(rows.add(1), 'float64', [3, 1], [ref[0] + 1, ref[2] + 1, ref[4] + 1]));
      // The misaligned case as a copy works, and later work is correct (nothing poisoned).
      const copied = gpuarray.toGpu(new Float32Array(8)).index('1:7').copy().view('float64');
      check(() => expectArray(copied.add(1), 'float64', [3], [1, 1, 1]));
      check(() => expectArray(upload('float64', [1, 2, 3]).mul(2), 'float64', [3], [2, 4, 6]));
      check.done();
    }));

    test('a broadcast view of more than 2^32 elements sums exactly (64-bit indexing, as NumPy)', () => cuda.tidy(() => {
      const n = 2 ** 33 + 3; // no memory behind it: stride 0
      expect(upload('float64', [1]).broadcastTo([n]).sum().item()).toBe(n);
      const rows = upload('int32', [2, 3], [2, 1]).broadcastTo([2, 2 ** 32 + 1]).sum({ axis: 1 });
      expect(rows.dtype.name).toBe('int64');
      expect(Array.from(rows.get() as BigInt64Array)).toEqual([2n * (2n ** 32n + 1n), 3n * (2n ** 32n + 1n)]);
    }));

    test('transpose, T, squeeze, expandDims, broadcastTo', () => cuda.tidy(() => {
      const check = softly();
      const base = range(24);
      const a = upload('int16', base, [2, 3, 4]);
      check(() => expectArray(a.transpose([1, 0, 2]), 'int16', [3, 2, 4], viewOf(base, [3, 2, 4], [4, 12, 1])));
      check(() => expectArray(a.T, 'int16', [4, 3, 2], viewOf(base, [4, 3, 2], [1, 4, 12])));
      check(() => expectArray(a.transpose([-1, 0, 1]), 'int16', [4, 2, 3], viewOf(base, [4, 2, 3], [1, 12, 4])));
      check(() => expect(upload('int16', [1, 2]).T.shape).toEqual([2]));
      check(() => expect(() => a.transpose([0, 0, 1])).toThrow(RangeError));
      const s = upload('float32', [1, 2, 3], [1, 3, 1]);
      check(() => expect(s.squeeze().shape).toEqual([3]));
      check(() => expect(s.squeeze(0).shape).toEqual([3, 1]));
      check(() => expect(s.squeeze(-1).shape).toEqual([1, 3]));
      check(() => expect(() => s.squeeze(1)).toThrow(RangeError));
      check(() => expect(s.squeeze().expandDims(0).shape).toEqual([1, 3]));
      check(() => expectArray(s.squeeze().expandDims(-1), 'float32', [3, 1], [1, 2, 3]));
      const b = upload('float32', [1, 2, 3]).broadcastTo([2, 3]);
      check(() => expect(b.strides).toEqual([0, 4]));
      check(() => expectArray(b, 'float32', [2, 3], [1, 2, 3, 1, 2, 3]));
      check(() => expectArray(upload('float32', [5, 6], [2, 1]).broadcastTo([2, 2, 3]), 'float32', [2, 2, 3], [5, 5, 5, 6, 6, 6, 5, 5, 5, 6, 6, 6]));
      check(() => expectCode(() => upload('float32', [1, 2, 3]).broadcastTo([2, 4]), RangeError, 'ERR_SHAPE_MISMATCH'));
      check.done();
    }));

    test('index: integers, negative, slices, steps, newaxis, ellipsis (views that write through)', () => cuda.tidy(() => {
      const check = softly();
      const base = range(24);
      const a = upload('int32', base, [2, 3, 4]); // a[i, j, k] = 12 i + 4 j + k
      check(() => expectArray(a.index(1), 'int32', [3, 4], base.slice(12)));
      check(() => expectArray(a.index(-1, -1), 'int32', [4], [20, 21, 22, 23]));
      check(() => expectArray(a.index(1, '::-1', -1), 'int32', [3], [23, 19, 15]));
      check(() => expectArray(a.index(':', '1:', '::2'), 'int32', [2, 2, 2], [4, 6, 8, 10, 16, 18, 20, 22]));
      check(() => expectArray(a.index('...', -2), 'int32', [2, 3], [2, 6, 10, 14, 18, 22]));
      check(() => expectArray(a.index(ellipsis, 0, slice(null, null, 3)), 'int32', [2, 2], [0, 3, 12, 15]));
      check(() => expectArray(a.index(null, 0, 0), 'int32', [1, 4], [0, 1, 2, 3]));
      check(() => expect(a.index('...', null).shape).toEqual([2, 3, 4, 1]));
      check(() => expect(a.index(0, null, '1:3', null).shape).toEqual([1, 2, 1, 4]));
      check(() => expectArray(a.index('0, 1:3, -1'), 'int32', [2], [7, 11]));
      check(() => expectArray(a.index(slice(1), '5:'), 'int32', [1, 0, 4], []));
      check(() => expect(a.index(-1, -1, -1).item()).toBe(23));
      check(() => expect(a.index('::-1', '::-1', '::-1').index(0, 0, 0).item()).toBe(23));
      a.index(0, ':', 1).fill(-7);
      check(() => expectArray(a.index(0), 'int32', [3, 4], [0, -7, 2, 3, 4, -7, 6, 7, 8, -7, 10, 11]));
      check(() => expectCode(() => a.index(2), RangeError, 'ERR_INDEX_OUT_OF_RANGE'));
      check(() => expectCode(() => a.index(0, -4), RangeError, 'ERR_INDEX_OUT_OF_RANGE'));
      check(() => expectCode(() => a.index(0, 0, 0, 0), RangeError, 'ERR_TOO_MANY_INDICES'));
      check.done();
    }));
  });

  test('util.inspect and toString', () => cuda.tidy(() => {
    const one = (s: string): string => s.replace(/\s+/g, ' ');
    expect(one(inspect(upload('float32', [1, 2, 3, 4], [2, 2])))).toBe('GPUArray([[1, 2], [3, 4]], dtype=float32)');
    expect(inspect(upload('int32', [1, 2, 3]))).toBe('GPUArray([1, 2, 3], dtype=int32)');
    expect(inspect(upload('int64', [-(2n ** 63n)]))).toBe('GPUArray([-9223372036854775808], dtype=int64)');
    expect(String(upload('int8', [1, 2, 3, 4], [2, 2]).T).replace(/\s+/g, ' ')).toBe('[[1, 3], [2, 4]]');
    const big = inspect(gpuarray.arange(5000));
    expect(big).toContain('...');
    expect(big.length).toBeLessThan(200);
    const d = upload('float32', [1, 2]);
    d.dispose();
    expect(inspect(d)).toContain('<disposed>');
  }));

  describe('tidy and dispose', () => {
    test('tidy disposes temporaries and keeps the result (and what a returned view needs)', () => {
      const a = upload('float32', [1, 2, 3]), b = upload('float32', [4, 5, 6]);
      const base = settledLive();
      const r = cuda.tidy(() => a.add(b).mul(2).sub(1));
      expect(live()).toBe(base + 1);
      expectArray(r, 'float32', [3], [9, 13, 17]);
      r.dispose();
      expect(live()).toBe(base);
      const v = cuda.tidy(() => a.add(1).mul(b).index('1:'));
      expect(live()).toBe(base + 1);
      expectArray(v, 'float32', [2], [15, 24]);
      const o = cuda.tidy(() => {
        const inner = cuda.tidy(() => a.mul(b).add(0));
        expect(live()).toBe(base + 2);
        return { inner, list: [inner.neg(), a.add(b)] };
      });
      expect(live()).toBe(base + 4);
      expectArray(o.list[0], 'float32', [3], [-4, -10, -18]);
      for (const x of [v.base!, o.inner, ...o.list]) x.dispose(); // v is a view: its owner frees the memory
      expect(live()).toBe(base);
      expect(a.disposed || b.disposed).toBe(false); // created outside: untouched
      a.dispose();
      b.dispose();
    });

    test('tidy disposes what it created when fn throws', () => {
      const base = settledLive();
      expect(() => cuda.tidy(() => {
        gpuarray.zeros(10);
        gpuarray.ones(10).add(1);
        throw new Error('boom');
      })).toThrow('boom');
      expect(live()).toBe(base);
    });

    test('dispose(), Symbol.dispose, views, idempotence', () => {
      const base = settledLive();
      const x = gpuarray.zeros(100);
      expect(live()).toBe(base + 1);
      const v = x.index('10:20');
      v.dispose();
      expect(v.disposed).toBe(true);
      expectArray(x.index('0:2'), 'float64', [2], [0, 0]); // the base survives its view's dispose
      x.dispose();
      x.dispose();
      expect(x.disposed).toBe(true);
      expect(live()).toBe(base);
      let held: GPUArray | undefined;
      {
        using y = gpuarray.ones([4, 4], 'int32');
        held = y;
        expect(live()).toBe(base + 1);
      }
      expect(held!.disposed).toBe(true);
      expect(live()).toBe(base);
    });

    test('a disposed array (or a view of one) used again → TypeError ERR_USE_AFTER_DISPOSE', async () => {
      const a = upload('float32', [1, 2, 3, 4], [2, 2]), ok = upload('float32', [1, 2]), one = upload('int32', [1]);
      const view = a.index(0);
      a.dispose();
      one.dispose();
      expect(view.disposed).toBe(true);
      const uses: Array<() => unknown> = [
        () => a.get(), () => a.add(1), () => ok.add(a), () => gpuarray.where(a, 1, 2), () => a.index(0), () => a.T,
        () => a.reshape(-1), () => one.item(), () => a.fill(1), () => a.astype('int32'), () => a.copy(), () => a.set([1, 2, 3, 4]),
        () => a.toArray(), () => view.get(), () => view.add(ok), () => ok.add(ok, { out: view }), () => a.ptr,
      ];
      for (const use of uses) expectCode(use, TypeError, 'ERR_USE_AFTER_DISPOSE');
      await expect(a.getAsync()).rejects.toMatchObject({ code: 'ERR_USE_AFTER_DISPOSE' });
      await expect(a.setAsync([1, 2, 3, 4])).rejects.toMatchObject({ code: 'ERR_USE_AFTER_DISPOSE' });
      expectArray(ok.add(ok), 'float32', [2], [2, 4]);
      ok.dispose();
    });
  });

  test('bad input: right error class and code, no allocation survives the call, the process keeps working', () => {
    const base = settledLive();
    const a = upload('float32', [1, 2, 3]), b = upload('float32', [1, 2, 3, 4]), m = upload('float32', range(6), [2, 3]);
    const x = upload('float32', range(15), [3, 1, 5]), y = upload('float32', range(8), [4, 2]);
    const c64 = upload('complex64', [cplx(1, 1)]), c128 = upload('complex128', [cplx(1, 0)]), i32 = upload('int32', [1]);
    const i8 = upload('int8', [1]), o4 = gpuarray.empty([4], 'float32'), o3 = gpuarray.empty([3], 'int32'), o1 = gpuarray.empty([1], 'int8');
    const all = [a, b, m, x, y, c64, c128, i32, i8, o4, o3, o1];
    expect(live()).toBe(base + all.length);
    const bad = (fn: () => unknown, cls: new (...args: never[]) => Error, code?: string): Error => {
      const before = settledLive();
      const e = code ? expectCode(fn, cls, code) : (() => { try { fn(); } catch (err) { return err as Error; } return null; })();
      expect(e).toBeInstanceOf(cls);
      expect(live()).toBe(before); // nothing allocated by the failed call is left (no GC needed)
      return e!;
    };
    expect(bad(() => a.add(b), RangeError, 'ERR_SHAPE_MISMATCH').message).toMatch(/\(3,\).*\(4,\)/);
    expect(bad(() => gpuarray.mul(m, m.T), RangeError, 'ERR_SHAPE_MISMATCH').message).toMatch(/\(2,3\).*\(3,2\)/);
    expect(bad(() => x.add(y), RangeError, 'ERR_SHAPE_MISMATCH').message).toMatch(/\(3,1,5\).*\(4,2\)/);
    for (const f of [() => a.and(a), () => a.or(1), () => a.xor(a), () => a.not(), () => a.shl(1), () => a.shr(a), () => c64.and(1),
      () => i32.and(1.5), () => c128.mod(2), () => c128.floorDiv(c128)]) {
      bad(f, TypeError);
    }
    bad(() => a.add(a, { out: o4 }), RangeError, 'ERR_SHAPE_MISMATCH');
    bad(() => a.add(a, { out: o3 }), TypeError, 'ERR_INVALID_DTYPE');
    bad(() => i8.div(2, { out: o1 }), TypeError, 'ERR_INVALID_DTYPE');
    bad(() => a.add(a, { out: {} as GPUArray }), TypeError);
    bad(() => m.reshape(4, 2), RangeError, 'ERR_INVALID_RESHAPE');
    bad(() => m.reshape(-1, -1), RangeError, 'ERR_INVALID_RESHAPE');
    bad(() => m.index(0, 3), RangeError, 'ERR_INDEX_OUT_OF_RANGE');
    bad(() => m.index(-3), RangeError, 'ERR_INDEX_OUT_OF_RANGE');
    bad(() => m.index(0, 0, 0), RangeError, 'ERR_TOO_MANY_INDICES');
    bad(() => gpuarray.add(1, 2), TypeError);
    bad(() => a.add('1' as never), TypeError);
    bad(() => a.astype('float128' as DTypeName), TypeError);
    bad(() => gpuarray.zeros(-1), RangeError);
    bad(() => a.set([1, 2]), RangeError, 'ERR_OUT_OF_RANGE');
    bad(() => a.T.set([1, 2]), RangeError, 'ERR_OUT_OF_RANGE');
    const r = a.add(m);
    expectArray(r, 'float32', [2, 3], [1, 3, 5, 4, 6, 8]);
    for (const z of [r, ...all]) z.dispose();
    expect(live()).toBe(base);
  });

  test('nothing leaked by this suite', async () => {
    await collect();
    expect(live()).toBe(baseline);
  });
});
