/**
 * A hostile user of the shape and matrix functions (flip, swapaxes, moveaxis, roll, tile, repeat,
 * split, arraySplit, hstack, vstack, clip, isclose, allclose; eye, identity, diagonal, diag, trace,
 * tril, triu, meshgrid, diff, ptp), nanargmin/nanargmax and the newer cumath functions: absurd
 * sizes (past 2^53, past the device), NaN/Infinity/fractional/negative/-0/bigint counts, disposed
 * inputs and outs, outs of the wrong shape, dtype or kind, empty and 0-d arrays, views with
 * negative strides, outs that alias an input. Every scenario must end either normally (with the
 * right values where it says so) or with a typed error (TypeError, RangeError, CudaError or
 * NvrtcError carrying a string `code`) — never a crash, a hang, an untyped error or a poisoned
 * context. As in 72.hostile-sweep, all scenarios run in one child process (its own, so these have
 * their own time limit), and a final computation checks the process still works.
 */
import { describeGpu, runChild } from './helpers';

/** Expectation per scenario: 'ok' must not throw; 'throws' must throw a typed error; 'either' may. */
const SCRIPT = String.raw`
  const cuda = require(process.env.NODECUDA_DIST);
  const { driver, gpuarray, cumath } = cuda;
  const eq = (a, b) => { if (JSON.stringify(Array.from(a)) !== JSON.stringify(Array.from(b))) throw new Error('WRONG ' + Array.from(a).slice(0, 8) + ' != ' + Array.from(b).slice(0, 8)); };
  const num = (a) => Array.from(a.get(), Number); // int64 and bool results as plain numbers
  const shapeIs = (a, s) => { if (JSON.stringify(a.shape) !== JSON.stringify(s)) throw new Error('WRONG shape (' + a.shape + ') != (' + s + ')'); };
  const f32 = (xs, shape) => { const a = gpuarray.toGpu(new Float32Array(xs)); return shape ? a.reshape(shape) : a; };
  const dead = () => { const a = gpuarray.zeros([2, 2], 'float32'); a.dispose(); return a; };
  const deadStream = () => { const s = new driver.Stream(); s.dispose(); return s; };
  const m23 = () => f32([1, 2, 3, 4, 5, 6], [2, 3]);
  const S = [
    // Disposed arrays as inputs, and as outs.
    ...[['flip', (d) => gpuarray.flip(d)], ['fliplr', (d) => gpuarray.fliplr(d)], ['flipud', (d) => gpuarray.flipud(d)],
      ['swapaxes', (d) => gpuarray.swapaxes(d, 0, 1)], ['moveaxis', (d) => gpuarray.moveaxis(d, 0, 1)], ['roll', (d) => gpuarray.roll(d, 1)],
      ['tile', (d) => gpuarray.tile(d, 2)], ['repeat', (d) => gpuarray.repeat(d, 2)], ['split', (d) => gpuarray.split(d, 2)],
      ['arraySplit', (d) => gpuarray.arraySplit(d, 3)], ['hstack', (d) => gpuarray.hstack([f32([1, 2, 3, 4], [2, 2]), d])],
      ['vstack', (d) => gpuarray.vstack([d])], ['clip', (d) => gpuarray.clip(d, 0, 1)], ['clip bound', (d) => gpuarray.clip(f32([1, 2]), d, null)],
      ['isclose', (d) => gpuarray.isclose(d, 1)], ['allclose', (d) => gpuarray.allclose(f32([1, 2]), d)],
      ['diagonal', (d) => gpuarray.diagonal(d)], ['diag', (d) => gpuarray.diag(d)], ['trace', (d) => gpuarray.trace(d)],
      ['tril', (d) => gpuarray.tril(d)], ['triu', (d) => gpuarray.triu(d, 1)], ['meshgrid', (d) => gpuarray.meshgrid(f32([1]), d)],
      ['diff', (d) => gpuarray.diff(d)], ['diff append', (d) => gpuarray.diff(f32([1, 2, 3, 4], [2, 2]), { append: d })],
      ['ptp', (d) => gpuarray.ptp(d)], ['nanargmin', (d) => gpuarray.nanargmin(d)], ['nanargmax', (d) => gpuarray.nanargmax(d, { axis: 0 })],
      ['cumath.asinh', (d) => cumath.asinh(d)], ['cumath.atanh', (d) => cumath.atanh(d)], ['cumath.degrees', (d) => cumath.degrees(d)],
      ['cumath.copysign', (d) => cumath.copysign(f32([1, 2]), d)],
    ].map(([name, f]) => [name + ' of a disposed array', 'throws', () => f(dead())]),
    ...[['clip', (o) => gpuarray.clip(f32([1, 2, 3, 4], [2, 2]), 0, 1, { out: o })], ['isclose', (o) => gpuarray.isclose(f32([1, 2, 3, 4], [2, 2]), 1, { out: o })],
      ['trace', (o) => gpuarray.trace(gpuarray.zeros([2, 2]), { out: o })], // disposed: refused before its shape is compared
      ['ptp', (o) => gpuarray.ptp(f32([1, 2, 3, 4], [2, 2]), { axis: [], out: o })], ['nanargmin', (o) => gpuarray.nanargmin(gpuarray.zeros([2, 2]), { axis: 0, out: o })],
      ['cumath.acosh', (o) => cumath.acosh(f32([1, 2, 3, 4], [2, 2]), { out: o })],
    ].map(([name, f]) => [name + ' into a disposed out', 'throws', () => f(dead())]),
    // Outs of the wrong shape, dtype or kind.
    ['clip into an out of the wrong shape', 'throws', () => gpuarray.clip(f32([1, 2, 3]), 0, 1, { out: gpuarray.zeros([4], 'float32') })],
    ['clip of float32 into an int32 out', 'throws', () => gpuarray.clip(f32([1, 2, 3]), 0, 1, { out: gpuarray.zeros([3], 'int32') })],
    ['clip into a plain object', 'throws', () => gpuarray.clip(f32([1, 2, 3]), 0, 1, { out: {} })],
    ['isclose into the number 5', 'throws', () => gpuarray.isclose(f32([1, 2, 3]), 1, { out: 5 })],
    ['isclose into an out of the wrong shape', 'throws', () => gpuarray.isclose(f32([1, 2, 3]), 1, { out: gpuarray.zeros([3, 1], 'bool') })],
    ['trace into a plain object', 'throws', () => gpuarray.trace(gpuarray.zeros([2, 2]), { out: { shape: [] } })],
    ['ptp into a string', 'throws', () => gpuarray.ptp(gpuarray.zeros([2, 2]), { axis: 0, out: 'x' })],
    ['nanargmax into an out of the wrong shape', 'throws', () => gpuarray.nanargmax(gpuarray.zeros([2, 3]), { axis: 1, out: gpuarray.zeros([3], 'int64') })],
    ['cumath.copysign into an int32 out', 'throws', () => cumath.copysign(f32([1, 2]), -1, { out: gpuarray.zeros([2], 'int32') })],
    ['allclose with an out', 'throws', () => gpuarray.allclose(f32([1]), 1, { out: gpuarray.zeros([1], 'bool') })],
    // tile and repeat: absurd sizes are typed errors, not crashes or hangs; bad counts are refused.
    ['tile past 2^53 elements', 'throws', () => gpuarray.tile(f32([1, 2, 3, 4]), [2 ** 26, 2 ** 26])],
    ['tile larger than the device', 'throws', () => gpuarray.tile(gpuarray.zeros([1024], 'float64'), 2 ** 33)],
    ['tile of an empty array to a dimension past 2^53', 'throws', () => gpuarray.tile(gpuarray.zeros([0, 3], 'float32'), [1, 2 ** 52])],
    ['tile with reps of 65 dimensions', 'throws', () => gpuarray.tile(f32([1, 2]), new Array(65).fill(1))],
    ['tile with 10^6 reps (no call-stack overflow)', 'throws', () => gpuarray.tile(f32([1, 2]), new Array(1e6).fill(1))],
    ['tile by NaN', 'throws', () => gpuarray.tile(f32([1, 2]), NaN)],
    ['tile by Infinity', 'throws', () => gpuarray.tile(f32([1, 2]), [1, Infinity])],
    ['tile by 1.5', 'throws', () => gpuarray.tile(f32([1, 2]), 1.5)],
    ['tile by -1', 'throws', () => gpuarray.tile(f32([1, 2]), -1)],
    ['tile by 2n', 'throws', () => gpuarray.tile(f32([1, 2]), 2n)],
    ['tile by a string', 'throws', () => gpuarray.tile(f32([1, 2]), '2')],
    ['tile by -0: an empty result with a +0 dimension', 'ok', () => { const r = gpuarray.tile(f32([1, 2]), -0); if (r.size !== 0 || !Object.is(r.shape[0], 0)) throw new Error('WRONG ' + r.shape); }],
    ['tile of a 0-d array', 'ok', () => { const r = gpuarray.tile(f32([5]).reshape([]), [2, 3]); shapeIs(r, [2, 3]); eq(r.get(), [5, 5, 5, 5, 5, 5]); }],
    ['tile of an empty array by 2^52', 'ok', () => shapeIs(gpuarray.tile(gpuarray.zeros([0], 'float32'), 2 ** 52), [0])],
    ['tile of a reversed, transposed view', 'ok', () => { const r = gpuarray.tile(m23().index('::-1').T, [1, 2]); shapeIs(r, [3, 4]); eq(r.get(), [4, 1, 4, 1, 5, 2, 5, 2, 6, 3, 6, 3]); }],
    ['tile on a disposed stream', 'throws', () => gpuarray.tile(f32([1, 2]), 2, { stream: deadStream() })],
    ['repeat past 2^53 elements', 'throws', () => gpuarray.repeat(f32([1, 2, 3, 4]), 2 ** 52)],
    ['repeat larger than the device', 'throws', () => gpuarray.repeat(gpuarray.zeros([1024], 'float64'), 2 ** 33)],
    ['repeat with counts that add up past 2^53', 'throws', () => gpuarray.repeat(f32([1, 2]), [2 ** 52, 2 ** 52])],
    ['repeat with per-element counts larger than the device (no host-side expansion)', 'throws', () => gpuarray.repeat(gpuarray.zeros([2], 'float64'), [2 ** 41, 2 ** 41])],
    ['repeat along an axis of an empty array to a dimension past 2^53', 'throws', () => gpuarray.repeat(gpuarray.zeros([0, 3], 'float32'), 2 ** 52, { axis: 1 })],
    ['repeat by NaN', 'throws', () => gpuarray.repeat(f32([1, 2]), NaN)],
    ['repeat by Infinity', 'throws', () => gpuarray.repeat(f32([1, 2]), Infinity)],
    ['repeat by 1.5', 'throws', () => gpuarray.repeat(f32([1, 2]), 1.5)],
    ['repeat by -1', 'throws', () => gpuarray.repeat(f32([1, 2]), -1)],
    ['repeat by 2n', 'throws', () => gpuarray.repeat(f32([1, 2]), 2n)],
    ['repeat with a NaN among the counts', 'throws', () => gpuarray.repeat(f32([1, 2]), [1, NaN])],
    ['repeat with more counts than elements', 'throws', () => gpuarray.repeat(f32([1, 2]), [1, 2, 3])],
    ['repeat of a 0-d array along axis 0', 'throws', () => gpuarray.repeat(f32([7]).reshape([]), 2, { axis: 0 })],
    ['repeat on a disposed stream', 'throws', () => gpuarray.repeat(f32([1, 2]), [1, 2], { stream: deadStream() })],
    ['repeat with per-element counts, zeros included', 'ok', () => eq(gpuarray.repeat(f32([1, 2, 3]), [1, 0, 2]).get(), [1, 3, 3])],
    ['repeat across index-upload chunks (2^21 + 2 elements)', 'ok', () => {
      const n = 2 ** 20; const h = gpuarray.repeat(gpuarray.toGpu(new Int32Array([7, 8, 9])), [n - 1, 3, n]).get();
      if (h.length !== 2 * n + 2) throw new Error('WRONG length ' + h.length);
      for (let i = 0; i < h.length; i++) if (h[i] !== (i < n - 1 ? 7 : i < n + 2 ? 8 : 9)) throw new Error('WRONG at ' + i + ': ' + h[i]); }],
    ['repeat of a 0-d array', 'ok', () => eq(gpuarray.repeat(f32([7]).reshape([]), 3).get(), [7, 7, 7])],
    ['repeat of an empty array by 2^52', 'ok', () => shapeIs(gpuarray.repeat(gpuarray.zeros([0, 3], 'float32'), 2 ** 52), [0])],
    ['repeat of a transposed view by per-column counts', 'ok', () => { const r = gpuarray.repeat(m23().T, [2, 0], { axis: 1 }); shapeIs(r, [3, 2]); eq(r.get(), [1, 1, 2, 2, 3, 3]); }],
    // roll
    ['roll by NaN', 'throws', () => gpuarray.roll(f32([1, 2]), NaN)],
    ['roll by Infinity', 'throws', () => gpuarray.roll(f32([1, 2]), [Infinity])],
    ['roll by 2^53', 'throws', () => gpuarray.roll(f32([1, 2]), 2 ** 53)],
    ['roll by 1n', 'throws', () => gpuarray.roll(f32([1, 2]), 1n)],
    ['roll along a NaN axis', 'throws', () => gpuarray.roll(f32([1, 2]), 1, { axis: NaN })],
    ['roll by -0 and by ±(2^53 - 1)', 'ok', () => {
      const v = f32([1, 2, 3, 4, 5]); eq(gpuarray.roll(v, -0).get(), [1, 2, 3, 4, 5]);
      eq(gpuarray.roll(v, 2 ** 53 - 1).get(), [5, 1, 2, 3, 4]); eq(gpuarray.roll(v, -(2 ** 53 - 1)).get(), [2, 3, 4, 5, 1]); }],
    ['roll of a reversed 2-D view, flattened and along axis 1', 'ok', () => {
      const v = m23().index('::-1', '::-1'); // [[6, 5, 4], [3, 2, 1]]
      const r = gpuarray.roll(v, 2); shapeIs(r, [2, 3]); eq(r.get(), [2, 1, 6, 5, 4, 3]); eq(gpuarray.roll(v, 1, { axis: 1 }).get(), [4, 6, 5, 1, 3, 2]); }],
    ['roll along all 24 axes of a [2, 2, …] array (in rounds, not 2^24 block copies)', 'ok', () => {
      const n = 2 ** 24; const a = gpuarray.arange(0, n, 1, 'int32').reshape(new Array(24).fill(2));
      const h = gpuarray.roll(a, 1, { axis: Array.from({ length: 24 }, (_, i) => i) }).reshape(-1).get(); // every index bit flipped
      for (const i of [0, 1, 12345, n - 2, n - 1]) if (h[i] !== n - 1 - i) throw new Error('WRONG at ' + i + ': ' + h[i]); }],
    ['roll along 5 of 6 axes (two rounds), axis 0 three times', 'ok', () => {
      const a = gpuarray.arange(0, 64, 1, 'int32').reshape([2, 2, 2, 2, 2, 2]);
      const h = gpuarray.roll(a, 1, { axis: [0, 1, 3, 4, 5, 0, 0] }).reshape(-1).get(); // bits 5, 4, 2, 1, 0 of the index flipped
      for (let i = 0; i < 64; i++) if (h[i] !== (i ^ 55)) throw new Error('WRONG at ' + i + ': ' + h[i]); }],
    ['roll of an empty array and of a 0-d array', 'ok', () => { shapeIs(gpuarray.roll(gpuarray.zeros([0, 3], 'float32'), 5, { axis: 1 }), [0, 3]); eq(gpuarray.roll(f32([4]).reshape([]), 7).get(), [4]); }],
    // split, arraySplit
    ['split into 0 sections', 'throws', () => gpuarray.split(f32([1, 2]), 0)],
    ['arraySplit into 2^40 sections', 'throws', () => gpuarray.arraySplit(f32([1, 2]), 2 ** 40)],
    ['split of an empty axis into 10^9 sections', 'throws', () => gpuarray.split(gpuarray.zeros([0], 'float32'), 1e9)],
    ['split at 2^20 indices', 'throws', () => gpuarray.split(f32([1, 2]), new Array(2 ** 20).fill(1))],
    ['split by NaN sections', 'throws', () => gpuarray.split(f32([1, 2]), NaN)],
    ['split at a fractional index', 'throws', () => gpuarray.split(f32([1, 2]), [0.5])],
    ['split by 2n', 'throws', () => gpuarray.split(f32([1, 2]), 2n)],
    ['split of a 0-d array', 'throws', () => gpuarray.split(f32([1]).reshape([]), 1)],
    ['split along a string axis', 'throws', () => gpuarray.split(f32([1, 2]), 2, { axis: '0' })],
    ['arraySplit at indices out of order, negative and past the ends', 'ok', () => {
      const p = gpuarray.arraySplit(gpuarray.arange(0, 5, 1, 'float32'), [3, 1, -1, 100]);
      eq(p.map((x) => x.size), [3, 0, 3, 1, 0]); eq(p[2].get(), [1, 2, 3]); eq(p[3].get(), [4]); eq(p[4].get(), []); }],
    ['split at an index below -n', 'ok', () => eq(gpuarray.split(gpuarray.arange(0, 5, 1, 'float32'), [-100]).map((x) => x.size), [0, 5])],
    ['empty pieces of arraySplit copied and read', 'ok', () => {
      const p = gpuarray.arraySplit(f32([1, 2, 3], [3, 1]), 5); eq(p.map((x) => x.shape[0]), [1, 1, 1, 0, 0]); for (const x of p) x.copy().get(); }],
    // moveaxis, swapaxes, flip, hstack, vstack
    ['moveaxis with a repeated source axis', 'throws', () => gpuarray.moveaxis(gpuarray.zeros([2, 3, 4]), [0, 0], [1, 2])],
    ['moveaxis with a repeated destination axis (-1 and 2)', 'throws', () => gpuarray.moveaxis(gpuarray.zeros([2, 3, 4]), [0, 1], [-1, 2])],
    ['moveaxis with 2 sources and 1 destination', 'throws', () => gpuarray.moveaxis(gpuarray.zeros([2, 3, 4]), [0, 1], 2)],
    ['moveaxis with a NaN axis', 'throws', () => gpuarray.moveaxis(gpuarray.zeros([2, 3]), NaN, 0)],
    ['moveaxis with no axes', 'ok', () => shapeIs(gpuarray.moveaxis(gpuarray.zeros([2, 3]), [], []), [2, 3])],
    ['swapaxes of a 0-d array', 'throws', () => gpuarray.swapaxes(f32([1]).reshape([]), 0, 0)],
    ['swapaxes with axis 1.5', 'throws', () => gpuarray.swapaxes(gpuarray.zeros([2, 3]), 1.5, 0)],
    ['fliplr of a 1-D array', 'throws', () => gpuarray.fliplr(f32([1, 2]))],
    ['flipud of a 0-d array', 'throws', () => gpuarray.flipud(f32([1]).reshape([]))],
    ['flip with a repeated axis', 'throws', () => gpuarray.flip(gpuarray.zeros([2, 3]), { axis: [1, -1] })],
    ['flip of an empty 2-D array along its non-empty axis, read and copied', 'ok', () => {
      const r = gpuarray.flip(gpuarray.zeros([3, 0], 'float32'), { axis: 0 }); shapeIs(r, [3, 0]); eq(r.get(), []); eq(r.copy().get(), []); }],
    ['hstack of an empty list', 'throws', () => gpuarray.hstack([])],
    ['hstack of a list with holes', 'throws', () => gpuarray.hstack(new Array(2))],
    ['vstack of an array and a hole', 'throws', () => gpuarray.vstack([f32([1]), , f32([2])])],
    ['hstack of a 1-D and a 2-D array', 'throws', () => gpuarray.hstack([f32([1, 2]), m23()])],
    ['vstack of a number', 'throws', () => gpuarray.vstack([f32([1]), 2])],
    ['hstack of a 0-d and a 1-D array', 'ok', () => eq(gpuarray.hstack([f32([1]).reshape([]), f32([2, 3])]).get(), [1, 2, 3])],
    ['vstack of 0-d arrays', 'ok', () => { const r = gpuarray.vstack([f32([1]).reshape([]), f32([2]).reshape([])]); shapeIs(r, [2, 1]); eq(r.get(), [1, 2]); }],
    // clip
    ['clip with a string bound', 'throws', () => gpuarray.clip(f32([1, 2]), '0', 1)],
    ['clip with an array-like bound', 'throws', () => gpuarray.clip(f32([1, 2]), [0], 1)],
    ['clip with a { re } bound that has no im', 'throws', () => gpuarray.clip(f32([1, 2]), { re: 0 }, 1)],
    ['clip of uint8 with a max of -1', 'throws', () => gpuarray.clip(gpuarray.toGpu(new Uint8Array([1, 2])), null, -1)],
    ['clip with a bound of another shape that does not broadcast', 'throws', () => gpuarray.clip(f32([1, 2, 3]), f32([0, 1]), null)],
    ['clip into a reversed view of its input', 'ok', () => { const x = f32([1, 2, 3, 4, 5, 6]); gpuarray.clip(x, 2, 4, { out: x.index('::-1') }); eq(x.get(), [4, 4, 4, 3, 2, 2]); }],
    ['clip into its own bound array', 'ok', () => { const lo = f32([0, 5, 0]); gpuarray.clip(f32([1, 2, 3]), lo, null, { out: lo }); eq(lo.get(), [1, 5, 3]); }],
    ['clip of uint8 with a NaN bound: float64 NaN', 'ok', () => {
      const r = gpuarray.clip(gpuarray.toGpu(new Uint8Array([1, 200])), NaN, null); if (r.dtype.name !== 'float64' || !r.get().every(Number.isNaN)) throw new Error('WRONG ' + r.dtype.name); }],
    ['clip of int8 with bounds of ±2^70n: a copy', 'ok', () => {
      const r = gpuarray.clip(gpuarray.toGpu(new Int8Array([-128, 0, 127])), -(2n ** 70n), 2n ** 70n); if (r.dtype.name !== 'int8') throw new Error('WRONG ' + r.dtype.name); eq(r.get(), [-128, 0, 127]); }],
    ['clip of an empty array', 'ok', () => shapeIs(gpuarray.clip(gpuarray.zeros([0, 2], 'float32'), 0, 1), [0, 2])],
    ['clip with a bound that makes the result wider', 'ok', () => { const r = gpuarray.clip(f32([1, 5]), f32([0, 3], [2, 1]), null); shapeIs(r, [2, 2]); eq(r.get(), [1, 5, 3, 5]); }],
    // isclose, allclose
    ['isclose with a negative rtol', 'throws', () => gpuarray.isclose(f32([1]), 1, { rtol: -1e-5 })],
    ['allclose with a negative atol', 'throws', () => gpuarray.allclose(f32([1]), 1, { atol: -1 })],
    ['isclose with a NaN atol', 'throws', () => gpuarray.isclose(f32([1]), 1, { atol: NaN })],
    ['isclose with a bigint rtol', 'throws', () => gpuarray.isclose(f32([1]), 1, { rtol: 1n })],
    ['isclose of two scalars', 'throws', () => gpuarray.isclose(1, 1)],
    ['isclose with a string operand', 'throws', () => gpuarray.isclose(f32([1]), '1')],
    ['allclose of shapes that do not broadcast', 'throws', () => gpuarray.allclose(f32([1, 2, 3]), f32([1, 2]))],
    ['isclose of ±Inf, NaN and near values', 'ok', () => {
      const a = gpuarray.toGpu(new Float64Array([Infinity, -Infinity, NaN, 1, 1])), b = gpuarray.toGpu(new Float64Array([Infinity, Infinity, NaN, 1 + 1e-9, 1.1]));
      eq(num(gpuarray.isclose(a, b)), [1, 0, 0, 1, 0]); eq(num(gpuarray.isclose(a, b, { equalNan: true })), [1, 0, 1, 1, 0]); }],
    ['allclose of empty arrays', 'ok', () => { if (gpuarray.allclose(gpuarray.zeros([0]), gpuarray.zeros([0])) !== true) throw new Error('WRONG'); }],
    // eye, identity, diagonal, diag, trace, tril, triu
    ['eye(-1)', 'throws', () => gpuarray.eye(-1)],
    ['eye(NaN)', 'throws', () => gpuarray.eye(NaN)],
    ['eye(Infinity)', 'throws', () => gpuarray.eye(Infinity)],
    ['eye(2^31): 2^62 elements', 'throws', () => gpuarray.eye(2 ** 31)],
    ['eye(3n)', 'throws', () => gpuarray.eye(3n)],
    ['eye(3, 2^53)', 'throws', () => gpuarray.eye(3, 2 ** 53)],
    ['eye with k NaN', 'throws', () => gpuarray.eye(3, { k: NaN })],
    ['eye with k 2^53', 'throws', () => gpuarray.eye(3, { k: 2 ** 53 })],
    ['eye with k 1n', 'throws', () => gpuarray.eye(3, { k: 1n })],
    ['identity(2^31)', 'throws', () => gpuarray.identity(2 ** 31)],
    ['eye with k ±(2^53 - 1): all zeros', 'ok', () => { eq(gpuarray.eye(2, { k: 2 ** 53 - 1 }).get(), [0, 0, 0, 0]); eq(gpuarray.eye(2, 3, { k: -(2 ** 53 - 1) }).get(), [0, 0, 0, 0, 0, 0]); }],
    ['eye(0) and eye(0, 5)', 'ok', () => { shapeIs(gpuarray.eye(0), [0, 0]); shapeIs(gpuarray.eye(0, 5), [0, 5]); }],
    ['diagonal of a 1-D array', 'throws', () => gpuarray.diagonal(f32([1, 2]))],
    ['diagonal with axis1 = axis2 (0 and -2)', 'throws', () => gpuarray.diagonal(gpuarray.zeros([2, 2]), { axis1: 0, axis2: -2 })],
    ['diagonal along axis 5', 'throws', () => gpuarray.diagonal(gpuarray.zeros([2, 2]), { axis2: 5 })],
    ['diagonal with offset NaN', 'throws', () => gpuarray.diagonal(gpuarray.zeros([2, 2]), { offset: NaN })],
    ['diagonal with offset 1n', 'throws', () => gpuarray.diagonal(gpuarray.zeros([2, 2]), { offset: 1n })],
    ['diagonal of an empty batch, copied and read', 'ok', () => {
      const d = gpuarray.diagonal(gpuarray.zeros([0, 3, 3], 'float32'), { offset: 1, axis1: 1, axis2: 2 }); shapeIs(d, [0, 2]); eq(d.get(), []); eq(d.copy().get(), []); }],
    ['diagonal with offset 2^53 - 1', 'ok', () => shapeIs(gpuarray.diagonal(gpuarray.zeros([3, 3]), { offset: 2 ** 53 - 1 }), [0])],
    ['diagonal of a reversed view', 'ok', () => {
      const m = gpuarray.arange(0, 9, 1, 'float32').reshape(3, 3).index('::-1'); // [[6, 7, 8], [3, 4, 5], [0, 1, 2]]
      eq(gpuarray.diagonal(m, { offset: 1 }).get(), [7, 5]); eq(m.diagonal({ offset: -1 }).get(), [3, 1]); }],
    ['diag of a 3-D array', 'throws', () => gpuarray.diag(gpuarray.zeros([2, 2, 2]))],
    ['diag of a 1-D array with k = 2^27 (a square past 2^53)', 'throws', () => gpuarray.diag(f32([1]), 2 ** 27)],
    ['diag with k = 1.5', 'throws', () => gpuarray.diag(f32([1, 2]), 1.5)],
    ['diag with k = 2^53', 'throws', () => gpuarray.diag(f32([1, 2]), 2 ** 53)],
    ['diag of a reversed 1-D view below the diagonal', 'ok', () => eq(gpuarray.diag(f32([1, 2]).index('::-1'), -1).get(), [0, 0, 0, 2, 0, 0, 0, 1, 0])],
    ['trace of a 1-D array', 'throws', () => gpuarray.trace(f32([1, 2]))],
    ['trace of an empty matrix', 'ok', () => { if (gpuarray.trace(gpuarray.zeros([0, 3])).item() !== 0) throw new Error('WRONG'); }],
    ['tril of a 0-d array', 'throws', () => gpuarray.tril(f32([1]).reshape([]))],
    ['triu with k NaN', 'throws', () => gpuarray.triu(gpuarray.zeros([2, 2]), NaN)],
    ['tril with k 1n', 'throws', () => gpuarray.tril(gpuarray.zeros([2, 2]), 1n)],
    ['tril and triu with k = ±(2^53 - 1)', 'ok', () => {
      const m = f32([1, 2, 3, 4], [2, 2]), K = 2 ** 53 - 1;
      eq(gpuarray.tril(m, K).get(), [1, 2, 3, 4]); eq(gpuarray.tril(m, -K).get(), [0, 0, 0, 0]); eq(gpuarray.triu(m, K).get(), [0, 0, 0, 0]); eq(gpuarray.triu(m, -K).get(), [1, 2, 3, 4]); }],
    ['tril of a transposed view', 'ok', () => eq(gpuarray.tril(f32([1, 2, 3, 4, 5, 6, 7, 8, 9], [3, 3]).T).get(), [1, 0, 0, 2, 5, 0, 3, 6, 9])],
    ['tril of an empty 1-D array', 'ok', () => shapeIs(gpuarray.tril(gpuarray.zeros([0], 'float32')), [0, 0])],
    // meshgrid
    ['meshgrid with indexing "xz"', 'throws', () => gpuarray.meshgrid(f32([1]), { indexing: 'xz' })],
    ['meshgrid of numbers', 'throws', () => gpuarray.meshgrid(1, 2)],
    ['meshgrid with copy "no"', 'throws', () => gpuarray.meshgrid(f32([1]), { copy: 'no' })],
    ['meshgrid of 2-D inputs: flattened, as NumPy 2', 'ok', () => {
      const [X, Y] = gpuarray.meshgrid(f32([1, 2, 3, 4], [2, 2]), f32([10, 20, 30])); shapeIs(X, [3, 4]); shapeIs(Y, [3, 4]);
      eq(X.get(), [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]); eq(Y.get(), [10, 10, 10, 10, 20, 20, 20, 20, 30, 30, 30, 30]); }],
    ['meshgrid of a 0-d input, ij indexing', 'ok', () => {
      const [I, J] = gpuarray.meshgrid(f32([5]).reshape([]), f32([1, 2]), { indexing: 'ij' }); shapeIs(I, [1, 2]); eq(I.get(), [5, 5]); eq(J.get(), [1, 2]); }],
    ['meshgrid of zero inputs', 'ok', () => { if (gpuarray.meshgrid().length !== 0 || gpuarray.meshgrid({ sparse: true }).length !== 0) throw new Error('WRONG'); }],
    ['meshgrid with an empty input', 'ok', () => shapeIs(gpuarray.meshgrid(f32([1, 2]), gpuarray.zeros([0], 'float32'))[0], [0, 2])],
    ['meshgrid copy: false of a transposed input; disposing the views frees the copy it made', 'ok', () => {
      const x = m23().T, y = f32([7, 8]); const before = cuda.memory().liveAllocations;
      const outs = gpuarray.meshgrid(x, y, { copy: false }); eq(outs[0].get(), [1, 4, 2, 5, 3, 6, 1, 4, 2, 5, 3, 6]); eq(outs[1].get(), [7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8]);
      for (const o of outs) o.dispose();
      if (cuda.memory().liveAllocations > before) throw new Error('LEAK ' + (cuda.memory().liveAllocations - before)); }],
    // diff, ptp
    ['diff with n NaN', 'throws', () => gpuarray.diff(f32([1, 2]), { n: NaN })],
    ['diff with n -1', 'throws', () => gpuarray.diff(f32([1, 2]), { n: -1 })],
    ['diff with n 2^53', 'throws', () => gpuarray.diff(f32([1, 2]), { n: 2 ** 53 })],
    ['diff with n 1n', 'throws', () => gpuarray.diff(f32([1, 2]), { n: 1n })],
    ['diff of a 0-d array', 'throws', () => gpuarray.diff(f32([1]).reshape([]))],
    ['diff with a prepend of the wrong shape', 'throws', () => gpuarray.diff(f32([1, 2, 3, 4], [2, 2]), { prepend: f32([1, 2, 3]) })],
    ['diff with a string prepend', 'throws', () => gpuarray.diff(f32([1, 2]), { prepend: '0' })],
    ['diff with n = 2^53 - 1 (stops once the axis is empty)', 'ok', () => shapeIs(gpuarray.diff(f32([1, 4, 9]), { n: 2 ** 53 - 1 }), [0])],
    ['diff of a reversed view, with a 0-d prepend', 'ok', () => {
      const v = f32([1, 4, 9, 16]).index('::-1'); eq(gpuarray.diff(v).get(), [-7, -5, -3]); eq(gpuarray.diff(v, { prepend: f32([0]).reshape([]) }).get(), [16, -7, -5, -3]); }],
    ['diff along a length-1 axis', 'ok', () => { const r = gpuarray.diff(gpuarray.zeros([3, 1], 'float32')); shapeIs(r, [3, 0]); eq(r.get(), []); }],
    ['diff with n = 0 returns its input', 'ok', () => { const x = f32([1, 2]); if (gpuarray.diff(x, { n: 0 }) !== x) throw new Error('WRONG'); }],
    ['ptp of bool', 'throws', () => gpuarray.ptp(gpuarray.zeros([2], 'bool'))],
    ['ptp of an empty array', 'throws', () => gpuarray.ptp(gpuarray.zeros([0], 'float32'))],
    ['ptp along axis 2 of a 2-D array', 'throws', () => gpuarray.ptp(gpuarray.zeros([2, 2]), { axis: 2 })],
    ['ptp into an out that is a column of its input', 'ok', () => {
      const x = f32([1, 5, 3, 4, 2, 9], [2, 3]); gpuarray.ptp(x, { axis: 1, out: x.index(':', 0) }); eq(x.get(), [4, 5, 3, 7, 2, 9]); }],
    // nanargmin, nanargmax
    ['nanargmax of an empty array', 'throws', () => gpuarray.nanargmax(gpuarray.zeros([0], 'float32'))],
    ['nanargmin over an empty axis of a [3, 0] array', 'throws', () => gpuarray.nanargmin(gpuarray.zeros([3, 0], 'float32'), { axis: 1 })],
    ['nanargmax along axis 2 of a 2-D array', 'throws', () => gpuarray.nanargmax(gpuarray.zeros([2, 2]), { axis: 2 })],
    ['nanargmax with axis [0]', 'throws', () => gpuarray.nanargmax(gpuarray.zeros([2, 2]), { axis: [0] })],
    ['nanargmin along the long axis of a [3, 0] array', 'ok', () => shapeIs(gpuarray.nanargmin(gpuarray.zeros([3, 0], 'float32'), { axis: 0 }), [0])],
    ['nanargmax/nanargmin of rows with NaN, -Inf, and all NaN', 'ok', () => {
      const m = gpuarray.toGpu(new Float32Array([NaN, -Infinity, NaN, NaN, NaN, NaN, 1, NaN, 3])).reshape(3, 3);
      eq(num(gpuarray.nanargmax(m, { axis: 1 })), [1, -1, 2]); eq(num(gpuarray.nanargmin(m, { axis: 1 })), [1, -1, 0]);
      eq(num(gpuarray.nanargmin(m.T, { axis: 0 })), [1, -1, 0]); }],
    ['nanargmin of integers (as argmin)', 'ok', () => { if (Number(gpuarray.nanargmin(gpuarray.toGpu(new Int32Array([3, -1, -1]))).item()) !== 1) throw new Error('WRONG'); }],
    // cumath
    ['cumath.copysign of complex', 'throws', () => cumath.copysign(gpuarray.zeros([2], 'complex64'), 1)],
    ['cumath.degrees of complex', 'throws', () => cumath.degrees(gpuarray.zeros([2], 'complex128'))],
    ['cumath.atanh of a string', 'throws', () => cumath.atanh('1')],
    ['cumath.copysign of two scalars', 'throws', () => cumath.copysign(1, -1)],
    ['cumath inverse hyperbolics at their domain edges', 'ok', () => {
      const t = cumath.atanh(gpuarray.toGpu(new Float64Array([1, -1, 2, 0]))).get();
      if (t[0] !== Infinity || t[1] !== -Infinity || !Number.isNaN(t[2]) || t[3] !== 0) throw new Error('WRONG atanh ' + Array.from(t));
      const c = cumath.acosh(gpuarray.toGpu(new Float64Array([0.5, 1]))).get(); if (!Number.isNaN(c[0]) || c[1] !== 0) throw new Error('WRONG acosh ' + Array.from(c));
      const s = cumath.asinh(gpuarray.toGpu(new Float64Array([-0, Infinity]))).get(); if (!Object.is(s[0], -0) || s[1] !== Infinity) throw new Error('WRONG asinh ' + Array.from(s)); }],
    ['cumath.degrees of an empty array, cumath.radians of a 0-d int32', 'ok', () => {
      shapeIs(cumath.degrees(gpuarray.zeros([0, 2], 'float32')), [0, 2]);
      const r = cumath.radians(gpuarray.toGpu(new Int32Array([180])).reshape([])); if (Math.abs(r.item() - Math.PI) > 1e-12) throw new Error('WRONG ' + r.item()); }],
    ['cumath.copysign into a reversed view of its input', 'ok', () => { const x = f32([1, -2, 3]); cumath.copysign(x, -1, { out: x.index('::-1') }); eq(x.get(), [-3, -2, -1]); }],
  ];
  (async () => {
    const results = [];
    for (const [name, expect, fn] of S) {
      let outcome;
      try { await fn(); outcome = { ok: true }; }
      catch (e) {
        const typed = (e instanceof TypeError || e instanceof RangeError || e instanceof cuda.CudaError || e instanceof cuda.NvrtcError ||
          e instanceof cuda.CublasError || e instanceof cuda.CufftError) && typeof e.code === 'string';
        outcome = { ok: false, typed, error: e && e.name, code: e && e.code, message: String(e && e.message).slice(0, 200) };
      }
      results.push({ name, expect, ...outcome });
    }
    // The process and its context still work.
    const health = gpuarray.arange(0, 1000, 1, 'float32').mul(2).sum().item();
    console.log(JSON.stringify({ ok: true, results, health }));
  })().catch((e) => console.log(JSON.stringify({ ok: false, error: String(e && e.stack) })));
`;

interface Outcome { name: string; expect: 'ok' | 'throws' | 'either'; ok: boolean; typed?: boolean; error?: string; code?: string; message?: string }

describeGpu('hostile sweep of the shape and matrix functions on the GPU', () => {
  test('every scenario ends normally or with a typed error; the context stays healthy', () => {
    const { status, out, stderr } = runChild(SCRIPT, ['--expose-gc']);
    if (!out.ok) throw new Error(`child failed (status ${status}): ${String(out.error ?? '')}\n${stderr}`);
    expect(status).toBe(0);
    const bad = (out.results as Outcome[]).filter((r) =>
      (r.expect === 'ok' && !r.ok) || (r.expect === 'throws' && r.ok) || (!r.ok && !r.typed));
    expect(bad).toEqual([]);
    expect(out.health).toBe(999000);
  });
});
