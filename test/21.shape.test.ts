/**
 * Layer 21: shapes, byte strides, broadcasting, dimension collapsing, reshape views and NumPy
 * basic indexing — pure TypeScript, no GPU. Expected values are NumPy's, computed by hand.
 */
import {
  Shape, broadcastShapes, broadcastStrides, checkAligned, collapseDims, contiguousStrides, expandDims, formatShape,
  isCContiguous, isFContiguous, normalizeAxis, normalizeShape, reshapeStrides, resolveReshape, sizeOf,
  squeezeAxes, transposeAxes,
} from '../lib/base/shape';
import { IndexItem, Slice, applyIndex, ellipsis, newaxis, slice } from '../lib/base/indexing';
import { expectCode } from './helpers';
import { DTYPES } from '../lib/base/dtype';

/** Byte offsets of every element of a layout, in C (row-major) order. */
function offsets(shape: Shape, strides: readonly number[], base = 0): number[] {
  const out: number[] = [];
  const walk = (d: number, off: number): void => {
    if (d === shape.length) { out.push(off); return; }
    for (let i = 0; i < shape[d]; i++) walk(d + 1, off + i * strides[d]);
  };
  walk(0, base);
  return out;
}

describe('normalizeShape / sizeOf / formatShape', () => {
  test('accepts numbers and arrays of non-negative integers, returns a copy', () => {
    expect(normalizeShape(5)).toEqual([5]);
    const s = [2, 3];
    expect(normalizeShape(s)).toEqual([2, 3]);
    expect(normalizeShape(s)).not.toBe(s);
    expect(normalizeShape([])).toEqual([]);
    expect(normalizeShape([0, 7])).toEqual([0, 7]);
  });

  test('rejects bad dimensions with coded errors naming the argument', () => {
    expect(expectCode(() => normalizeShape(-1, 'foo'), RangeError, 'ERR_OUT_OF_RANGE').message).toContain('foo');
    expectCode(() => normalizeShape(1.5), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => normalizeShape([2, NaN]), RangeError, 'ERR_OUT_OF_RANGE');
    // 2^53 is an integer, but not a safe one: the message says the bound.
    expect(expectCode(() => normalizeShape([2 ** 53]), RangeError, 'ERR_OUT_OF_RANGE').message)
      .toBe('shape[0] must be a non-negative integer (at most 2^53 - 1). Received 9007199254740992');
    expectCode(() => normalizeShape([2 ** 30, 2 ** 30]), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => normalizeShape('3' as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expect(expectCode(() => normalizeShape([1, '3'] as never), TypeError, 'ERR_INVALID_ARG_TYPE').message)
      .toContain('shape[1]');
    expectCode(() => normalizeShape(null as never), TypeError, 'ERR_INVALID_ARG_TYPE');
  });

  test('axis lists with holes: a hole is an axis that is not an integer (TypeError), not a skipped one', () => {
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point
    const holed = [0, , 1] as number[];
    expectCode(() => transposeAxes(3, holed), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => squeezeAxes([1, 1, 1], holed), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => expandDims([2, 3], [3, 1], holed), TypeError, 'ERR_INVALID_ARG_TYPE');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- reductions' axis list, loaded without a GPU
    const { axesOf } = require('../lib/array/reductions') as typeof import('../lib/array/reductions');
    expectCode(() => axesOf(holed, 3), TypeError, 'ERR_INVALID_ARG_TYPE');
    expect(axesOf([0, -1], 3)).toEqual([0, 2]);
  });

  test('sizeOf and formatShape', () => {
    expect(sizeOf([2, 3])).toBe(6);
    expect(sizeOf([])).toBe(1);
    expect(sizeOf([4, 0, 3])).toBe(0);
    expect(formatShape([3, 4])).toBe('(3,4)');
    expect(formatShape([5])).toBe('(5,)');
    expect(formatShape([])).toBe('()');
  });
});

describe('strides and contiguity', () => {
  test.each([
    [[4, 5], 4, 'C', [20, 4]],
    [[2, 3, 4], 8, 'C', [96, 32, 8]],
    [[], 8, 'C', []],
    [[3, 0], 8, 'C', [8, 8]],
    [[0, 3], 4, 'C', [12, 4]],
    [[2, 0, 3], 2, 'C', [6, 6, 2]],
    [[4, 5], 4, 'F', [4, 16]],
    [[2, 3, 4], 8, 'F', [8, 16, 48]],
  ] as const)('contiguousStrides(%j, %d, %s) = %j', (shape, itemsize, order, want) => {
    expect(contiguousStrides(shape, itemsize, order)).toEqual(want);
  });

  test.each([
    // shape, strides, itemsize, C, F
    [[4, 5], [20, 4], 4, true, false],
    [[4, 5], [4, 16], 4, false, true],
    [[1, 5], [999, 4], 4, true, true],
    [[4, 1], [4, 4], 4, true, true],
    [[4, 1], [4, 77], 4, true, true],
    [[0, 5], [123, 7], 4, true, true],
    [[], [], 4, true, true],
    [[3], [4], 4, true, true],
    [[3], [8], 4, false, false],
    [[4, 5], [40, 8], 4, false, false],
    [[4, 5], [-20, 4], 4, false, false],
    [[4, 5], [0, 4], 4, false, false],
    [[2, 3, 4], [96, 32, 8], 8, true, false],
  ] as const)('shape %j strides %j itemsize %d: C %s, F %s', (shape, strides, itemsize, c, f) => {
    expect(isCContiguous(shape, strides, itemsize)).toBe(c);
    expect(isFContiguous(shape, strides, itemsize)).toBe(f);
  });
});

describe('broadcasting', () => {
  test.each([
    [[[3, 1], [4]], [3, 4]],
    [[[2, 1, 3], [5, 1]], [2, 5, 3]],
    [[[8, 1, 6, 1], [7, 1, 5]], [8, 7, 6, 5]],
    [[], []],
    [[[]], []],
    [[[], [3]], [3]],
    [[[0], [1]], [0]],
    [[[1], [0]], [0]],
    [[[5, 0], [1, 1]], [5, 0]],
    [[[1, 3], [2, 1], [1]], [2, 3]],
  ] as const)('broadcastShapes(...%j) = %j', (shapes, want) => {
    const copies = shapes.map((s) => [...s]);
    expect(broadcastShapes(...copies)).toEqual(want);
    expect(copies).toEqual(shapes);
  });

  test('mismatch is a RangeError ERR_SHAPE_MISMATCH naming every shape', () => {
    const e = expectCode(() => broadcastShapes([3, 4], [5]), RangeError, 'ERR_SHAPE_MISMATCH');
    expect(e.message).toContain('(3,4)');
    expect(e.message).toContain('(5,)');
    const e3 = expectCode(() => broadcastShapes([2], [1, 1], [3]), RangeError, 'ERR_SHAPE_MISMATCH');
    for (const s of ['(2,)', '(1,1)', '(3,)']) expect(e3.message).toContain(s);
    expectCode(() => broadcastShapes([0], [2]), RangeError, 'ERR_SHAPE_MISMATCH');
  });

  test.each([
    [[3, 1], [4, 4], [2, 3, 5], [0, 4, 0]],
    [[5], [8], [4, 5], [0, 8]],
    [[], [], [2, 2], [0, 0]],
    [[4, 5], [20, 4], [4, 5], [20, 4]],
    [[1], [4], [0], [0]],
    [[4, 5], [-20, 4], [2, 4, 5], [0, -20, 4]],
  ] as const)('broadcastStrides(%j, %j, %j) = %j', (shape, strides, target, want) => {
    expect(broadcastStrides(shape, strides, target)).toEqual(want);
  });

  test('broadcastStrides refuses impossible targets', () => {
    const e = expectCode(() => broadcastStrides([3], [4], [4]), RangeError, 'ERR_SHAPE_MISMATCH');
    expect(e.message).toContain('(3,)');
    expect(e.message).toContain('(4,)');
    expectCode(() => broadcastStrides([2, 3], [12, 4], [3]), RangeError, 'ERR_SHAPE_MISMATCH');
    expectCode(() => broadcastStrides([2], [4], [2, 0]), RangeError, 'ERR_SHAPE_MISMATCH');
  });
});

describe('collapseDims', () => {
  test.each([
    ['contiguous', [2, 3, 4], [[48, 16, 4]], [24], [[4]]],
    ['broadcast inner operand', [2, 3, 4], [[48, 16, 4], [0, 0, 4]], [6, 4], [[16, 4], [0, 4]]],
    ['transposed', [4, 5], [[4, 16]], [4, 5], [[4, 16]]],
    ['size-1 dims dropped', [2, 1, 3], [[12, 999, 4]], [6], [[4]]],
    ['all ones', [1, 1], [[8, 4], [0, 0]], [1], [[4], [0]]],
    ['0-d', [], [[], []], [], [[], []]],
    ['size 0 unchanged', [3, 0], [[8, 8]], [3, 0], [[8, 8]]],
    ['row-strided', [4, 5], [[40, 4]], [4, 5], [[40, 4]]],
    ['reversed rows only', [4, 5], [[-20, 4]], [4, 5], [[-20, 4]]],
    ['fully reversed', [3, 4], [[-16, -4]], [12], [[-4]]],
    ['element units', [2, 3], [[3, 1], [6, 2]], [6], [[1], [2]]],
    ['one operand blocks', [2, 3], [[3, 1], [4, 1]], [2, 3], [[3, 1], [4, 1]]],
    ['all broadcast', [2, 3], [[0, 0]], [6], [[0]]],
  ] as const)('%s', (_name, shape, strides, wantShape, wantStrides) => {
    const r = collapseDims(shape, strides);
    expect(r).toEqual({ shape: wantShape, strides: wantStrides });
  });

  test('collapsing keeps the C-order offset sequence of every operand', () => {
    const layouts: Array<[number[], number[][]]> = [
      [[2, 3, 4], [[48, 16, 4], [0, 16, 4], [4, 8, 0]]],
      [[3, 1, 4, 2], [[32, 7, 8, 4], [-32, 0, 8, 4]]],
      [[5, 2, 2], [[16, 8, 4], [0, 0, 0]]],
      [[2, 2, 3], [[-48, 24, 8]]],
    ];
    for (const [shape, strides] of layouts) {
      const r = collapseDims(shape, strides);
      expect(r.shape.length).toBeLessThanOrEqual(shape.length);
      strides.forEach((s, k) => expect(offsets(r.shape, r.strides[k])).toEqual(offsets(shape, s)));
    }
  });

  test('strides that do not match the shape are refused', () => {
    expectCode(() => collapseDims([2, 3], [[3]]), RangeError, 'ERR_INVALID_ARG_VALUE');
  });
});

describe('reshape', () => {
  test.each([
    ['contiguous flatten', [4, 5], [20, 4], [20], [4]],
    ['contiguous split', [4, 5], [20, 4], [2, 10], [40, 4]],
    ['contiguous regroup', [4, 5], [20, 4], [5, 4], [16, 4]],
    ['transposed flatten needs a copy', [5, 4], [4, 20], [20], null],
    ['transposed split is a view', [5, 4], [4, 20], [5, 2, 2], [4, 40, 20]],
    ['uniformly strided flatten is a view', [4, 5], [40, 8], [20], [8]],
    ['sub-block flatten needs a copy', [4, 5], [40, 4], [20], null],
    ['sub-block split', [4, 5], [40, 4], [2, 2, 5], [80, 40, 4]],
    ['sub-block regroup needs a copy', [4, 5], [40, 4], [5, 4], null],
    ['column-strided split', [4, 5], [40, 8], [2, 2, 5], [80, 40, 8]],
    ['trailing 1', [4, 5], [40, 8], [4, 5, 1], [40, 8, 8]],
    ['leading 1', [4, 5], [40, 8], [1, 4, 5], [160, 40, 8]],
    ['size 0', [0, 3], [12, 4], [3, 0], [4, 4]],
    ['reversed', [4], [-4], [2, 2], [-8, -4]],
    ['inner dims merge', [2, 3, 4], [100, 16, 4], [2, 12], [100, 4]],
    ['outer dims cannot merge', [2, 3, 4], [100, 16, 4], [6, 4], null],
    ['broadcast rows', [3, 4], [0, 4], [3, 2, 2], [0, 8, 4]],
    ['broadcast rows flatten', [3, 4], [0, 4], [12], null],
  ] as const)('%s', (_name, shape, strides, newShape, want) => {
    const r = reshapeStrides(shape, strides, newShape, 4);
    expect(r).toEqual(want);
    if (r) expect(offsets(newShape, r)).toEqual(offsets(shape, strides));
  });

  test('reshapeStrides refuses a different size', () => {
    expectCode(() => reshapeStrides([4, 5], [20, 4], [3, 7], 4), RangeError, 'ERR_INVALID_RESHAPE');
  });

  test.each([
    [12, [3, -1], [3, 4]],
    [12, -1, [12]],
    [12, [-1, 2, 3], [2, 2, 3]],
    [0, [-1, 5], [0, 5]],
    [12, [3, 4], [3, 4]],
    [12, 12, [12]],
    [1, [], []],
    [1, [1, -1, 1], [1, 1, 1]],
  ] as const)('resolveReshape(%d, %j) = %j', (size, shape, want) => {
    expect(resolveReshape(size, shape)).toEqual(want);
  });

  test('resolveReshape errors', () => {
    expect(expectCode(() => resolveReshape(12, [5, -1]), RangeError, 'ERR_INVALID_RESHAPE').message)
      .toBe('cannot reshape array of size 12 into shape (5,-1)');
    expect(expectCode(() => resolveReshape(12, [3, 5]), RangeError, 'ERR_INVALID_RESHAPE').message)
      .toBe('cannot reshape array of size 12 into shape (3,5)');
    expectCode(() => resolveReshape(12, [-1, -1]), RangeError, 'ERR_INVALID_RESHAPE');
    expectCode(() => resolveReshape(0, [0, -1]), RangeError, 'ERR_INVALID_RESHAPE');
    expectCode(() => resolveReshape(12, [-2, -6]), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => resolveReshape(12, [1.5, 8]), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => resolveReshape(12, ['3', 4] as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => resolveReshape(12, '3' as never), TypeError, 'ERR_INVALID_ARG_TYPE');
  });
});

describe('axes', () => {
  test('normalizeAxis', () => {
    expect([normalizeAxis(-1, 3), normalizeAxis(0, 3), normalizeAxis(2, 3), normalizeAxis(-3, 3)]).toEqual([2, 0, 2, 0]);
    expect(expectCode(() => normalizeAxis(3, 3), RangeError, 'ERR_AXIS_OUT_OF_RANGE').message)
      .toBe('axis 3 is out of bounds for array of dimension 3');
    expectCode(() => normalizeAxis(-4, 3), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
    expectCode(() => normalizeAxis(0, 0), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
    expectCode(() => normalizeAxis(1.5, 3), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => normalizeAxis('1' as never, 3), TypeError, 'ERR_INVALID_ARG_TYPE');
  });

  test('transposeAxes', () => {
    expect(transposeAxes(3)).toEqual([2, 1, 0]);
    expect(transposeAxes(0)).toEqual([]);
    expect(transposeAxes(3, [0, -1, 1])).toEqual([0, 2, 1]);
    expectCode(() => transposeAxes(2, [0]), RangeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => transposeAxes(2, [0, 0]), RangeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => transposeAxes(2, [1, -1]), RangeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => transposeAxes(2, [0, 2]), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
  });

  test('squeezeAxes', () => {
    expect(squeezeAxes([1, 3, 1])).toEqual([0, 2]);
    expect(squeezeAxes([3])).toEqual([]);
    expect(squeezeAxes([1, 3, 1], -1)).toEqual([2]);
    expect(squeezeAxes([1, 3, 1], [2, 0])).toEqual([0, 2]);
    expect(expectCode(() => squeezeAxes([1, 3, 1], 1), RangeError, 'ERR_INVALID_ARG_VALUE').message).toContain('axis 1');
    expectCode(() => squeezeAxes([1, 3], 5), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
    expectCode(() => squeezeAxes([1, 1], [0, -2]), RangeError, 'ERR_INVALID_ARG_VALUE');
  });

  test.each([
    [[4, 5], [20, 4], 0, [1, 4, 5], [80, 20, 4]],
    [[4, 5], [20, 4], 1, [4, 1, 5], [20, 20, 4]],
    [[4, 5], [20, 4], -1, [4, 5, 1], [20, 4, 4]],
    [[4, 5], [20, 4], 2, [4, 5, 1], [20, 4, 4]],
    [[4, 5], [20, 4], [0, 3], [1, 4, 5, 1], [80, 20, 4, 4]],
    [[4, 5], [20, 4], [-1, 0], [1, 4, 5, 1], [80, 20, 4, 4]],
    [[4, 5], [40, 8], 0, [1, 4, 5], [160, 40, 8]],
    [[4, 5], [40, 8], 2, [4, 5, 1], [40, 8, 8]],
    [[3], [4], [0, 1], [1, 1, 3], [12, 12, 4]],
  ] as const)('expandDims(%j, %j, %j) → %j %j', (shape, strides, axis, wantShape, wantStrides) => {
    expect(expandDims(shape, strides, axis, 4)).toEqual({ shape: wantShape, strides: wantStrides });
  });

  test('expandDims of a 0-d array and errors', () => {
    expect(expandDims([], [], 0, 8)).toEqual({ shape: [1], strides: [8] });
    expect(expandDims([], [], -1)).toEqual({ shape: [1], strides: [0] });
    expectCode(() => expandDims([4, 5], [20, 4], 3), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
    expectCode(() => expandDims([4, 5], [20, 4], [0, 0]), RangeError, 'ERR_INVALID_ARG_VALUE');
  });
});

describe('Slice', () => {
  test.each([
    [slice(null, null, -1), 5, [4, -1, -1, 5]],
    [slice(1, null, 2), 5, [1, 5, 2, 2]],
    [slice(-3), 5, [2, 5, 1, 3]],
    [slice(null, -1), 0, [0, 0, 1, 0]],
    [slice(5, 0, -2), 10, [5, 0, -2, 3]],
    [slice(-1, -11, -1), 10, [9, -1, -1, 10]],
    [slice(-20, 20), 10, [0, 10, 1, 10]],
    [slice(20, -20, -3), 10, [9, -1, -3, 4]],
    [slice(3, 1), 10, [3, 1, 1, 0]],
  ] as const)('%s .indices(%d) = %j (Python slice.indices + length)', (s, n, [start, stop, step, length]) => {
    expect(s.indices(n)).toEqual({ start, stop, step, length });
  });

  test('positive steps agree with Array.prototype.slice + stride (every start/stop)', () => {
    const bounds = [null, -8, -5, -3, -1, 0, 1, 2, 4, 5, 8];
    for (let n = 0; n <= 6; n++) {
      const arr = Array.from({ length: n }, (_, i) => i);
      for (const a of bounds) {
        for (const b of bounds) {
          for (const step of [1, 2, 3]) {
            const want = arr.slice(a ?? undefined, b ?? undefined).filter((_, i) => i % step === 0);
            const v = applyIndex([n], [1], [slice(a, b, step)]);
            expect(offsets(v.shape, v.strides, v.offset)).toEqual(want);
          }
        }
      }
    }
  });

  test('toString, constructor checks, exported constants', () => {
    expect(String(slice(1, null, 2))).toBe('1::2');
    expect(String(slice())).toBe(':');
    expect(String(slice(null, null, -1))).toBe('::-1');
    expect(String(slice(1, 5))).toBe('1:5');
    expect(slice(2)).toEqual(new Slice(2, null, null));
    expect(slice(2)).toBeInstanceOf(Slice);
    expectCode(() => slice(1, 2, 0), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => slice(1.5), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => slice('1' as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expect(newaxis).toBeNull();
    expect(typeof ellipsis).toBe('symbol');
    expect(ellipsis).toBe(Symbol.for('nodecuda.ellipsis'));
  });
});

describe('applyIndex', () => {
  const S = [4, 5];
  const T = [20, 4]; // float32 C-contiguous
  test.each([
    [[1], [5], [4], 20],
    [[-1], [5], [4], 60],
    [[1, 2], [], [], 28],
    [[-1, -1], [], [], 76],
    [['::-1'], [4, 5], [-20, 4], 60],
    [[':', '::-1'], [4, 5], [20, -4], 16],
    [['::-1', '::-1'], [4, 5], [-20, -4], 76],
    [[null, '...', 2], [1, 4], [0, 20], 8],
    [[slice(1, null, 2), -1], [2], [40], 36],
    [['1:3'], [2, 5], [20, 4], 20],
    [['1:5:2'], [2, 5], [40, 4], 20],
    [[':', '1:5:2'], [4, 2], [20, 8], 4],
    [['-2:'], [2, 5], [20, 4], 40],
    [[':-1'], [3, 5], [20, 4], 0],
    [['10:'], [0, 5], [20, 4], 0],
    [['3:1'], [0, 5], [20, 4], 0],
    [['::-2'], [2, 5], [-40, 4], 60],
    [['-1::-2'], [2, 5], [-40, 4], 60],
    [['2::-1'], [3, 5], [-20, 4], 40],
    [[':1:-1'], [2, 5], [-20, 4], 60],
    [['-100:100'], [4, 5], [20, 4], 0],
    [['100::-1'], [4, 5], [-20, 4], 60],
    [[slice(-100, null, -1)], [0, 5], [20, 4], 0],
    [[null], [1, 4, 5], [0, 20, 4], 0],
    [[newaxis, null], [1, 1, 4, 5], [0, 0, 20, 4], 0],
    [[':', null], [4, 1, 5], [20, 0, 4], 0],
    [['...', null], [4, 5, 1], [20, 4, 0], 0],
    [[ellipsis], [4, 5], [20, 4], 0],
    [['...'], [4, 5], [20, 4], 0],
    [[], [4, 5], [20, 4], 0],
    [[1, '...'], [5], [4], 20],
    [['...', 1], [4], [20], 4],
    [[1, ellipsis, 2], [], [], 28],
    [[1, null, 2], [1], [0], 28],
    [['1, ::-1'], [5], [-4], 36],
    [['1:3, None, ...'], [2, 1, 5], [20, 0, 4], 20],
    [[' 1 : 3 ', 'newaxis'], [2, 1, 5], [20, 0, 4], 20],
    [[1n], [5], [4], 20],
    [['-1'], [5], [4], 60],
    [['+1', ':'], [5], [4], 20],
    [[slice(2)], [2, 5], [20, 4], 40],
    [[slice(null, 2)], [2, 5], [20, 4], 0],
  ] as Array<[IndexItem[], number[], number[], number]>)('[4,5] float32 a[%j] → shape %j strides %j offset %d',
    (items, shape, strides, offset) => {
      expect(applyIndex(S, T, items)).toEqual({ shape, strides, offset });
    });

  test('a single item need not be wrapped in an array', () => {
    expect(applyIndex(S, T, 2)).toEqual({ shape: [5], strides: [4], offset: 40 });
    expect(applyIndex(S, T, '::2')).toEqual({ shape: [2, 5], strides: [40, 4], offset: 0 });
    expect(applyIndex(S, T, null)).toEqual({ shape: [1, 4, 5], strides: [0, 20, 4], offset: 0 });
  });

  test('3-d, 0-d, already-strided and broadcast bases', () => {
    const s3 = [2, 3, 4];
    const t3 = [96, 32, 8]; // float64
    expect(applyIndex(s3, t3, ['...', 1])).toEqual({ shape: [2, 3], strides: [96, 32], offset: 8 });
    expect(applyIndex(s3, t3, [1, '...'])).toEqual({ shape: [3, 4], strides: [32, 8], offset: 96 });
    expect(applyIndex(s3, t3, [':', 1])).toEqual({ shape: [2, 4], strides: [96, 8], offset: 32 });
    expect(applyIndex(s3, t3, [-1, '::-1', '1::2'])).toEqual({ shape: [3, 2], strides: [-32, 16], offset: 168 });
    expect(applyIndex([], [], [])).toEqual({ shape: [], strides: [], offset: 0 });
    expect(applyIndex([], [], [null])).toEqual({ shape: [1], strides: [0], offset: 0 });
    expect(applyIndex([], [], ['...'])).toEqual({ shape: [], strides: [], offset: 0 });
    expect(applyIndex([4], [-4], [1])).toEqual({ shape: [], strides: [], offset: -4 });
    expect(applyIndex([4], [-4], ['::-1'])).toEqual({ shape: [4], strides: [4], offset: -12 });
    expect(applyIndex([3, 4], [0, 4], [2])).toEqual({ shape: [4], strides: [4], offset: 0 });
    expect(applyIndex([0, 5], [20, 4], ['1:'])).toEqual({ shape: [0, 5], strides: [20, 4], offset: 0 });
  });

  test('integer out of range: RangeError ERR_INDEX_OUT_OF_RANGE naming index, axis and size', () => {
    const e = expectCode(() => applyIndex(S, T, [4]), RangeError, 'ERR_INDEX_OUT_OF_RANGE');
    expect(e.message).toBe('index 4 is out of bounds for axis 0 with size 4');
    expect(expectCode(() => applyIndex(S, T, [0, 5]), RangeError, 'ERR_INDEX_OUT_OF_RANGE').message).toContain('axis 1 with size 5');
    expectCode(() => applyIndex(S, T, [-5]), RangeError, 'ERR_INDEX_OUT_OF_RANGE');
    expect(expectCode(() => applyIndex(S, T, [0, -6]), RangeError, 'ERR_INDEX_OUT_OF_RANGE').message).toContain('-6');
    expectCode(() => applyIndex([0, 5], [20, 4], [0]), RangeError, 'ERR_INDEX_OUT_OF_RANGE');
    expectCode(() => applyIndex(S, T, [null, '...', 5]), RangeError, 'ERR_INDEX_OUT_OF_RANGE');
  });

  test('too many indices, two ellipses, step 0', () => {
    const e = expectCode(() => applyIndex(S, T, [1, 2, 3]), RangeError, 'ERR_TOO_MANY_INDICES');
    expect(e.message).toContain('2-dimensional, but 3 were indexed');
    expectCode(() => applyIndex(S, T, [null, 1, 2, ':']), RangeError, 'ERR_TOO_MANY_INDICES');
    expectCode(() => applyIndex(S, T, ['...', 1, 2, 3]), RangeError, 'ERR_TOO_MANY_INDICES');
    expectCode(() => applyIndex([], [], [0]), RangeError, 'ERR_TOO_MANY_INDICES');
    expectCode(() => applyIndex(S, T, ['...', '...']), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => applyIndex(S, T, [ellipsis, 0, '...']), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => applyIndex(S, T, ['::0']), RangeError, 'ERR_OUT_OF_RANGE');
  });

  test('unknown item types are TypeError ERR_INVALID_ARG_TYPE, bad strings ERR_INVALID_ARG_VALUE', () => {
    for (const bad of [1.5, NaN, Infinity, true, undefined, {}, [1, 2], () => 0, Symbol('x')]) {
      expectCode(() => applyIndex(S, T, [bad as never]), TypeError, 'ERR_INVALID_ARG_TYPE');
    }
    expect(expectCode(() => applyIndex(S, T, [undefined as never]), TypeError, 'ERR_INVALID_ARG_TYPE').message)
      .toContain('null');
    for (const bad of ['abc', '1:2:3:4', '1.5:', '', '1,', ':: -1 x', '....']) {
      expectCode(() => applyIndex(S, T, [bad]), TypeError, 'ERR_INVALID_ARG_VALUE');
    }
  });
});

describe('hostile axes, slices and misaligned layouts', () => {
  test('squeeze/transpose/expandDims axes: typed errors; squeeze(null) is every length-1 axis', () => {
    for (const bad of ['1', {}, Symbol('a'), 1n, () => 0]) {
      expectCode(() => squeezeAxes([1, 3], bad as never), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => transposeAxes(2, bad as never), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => expandDims([2, 3], [12, 4], bad as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    }
    expect(squeezeAxes([1, 3, 1], null)).toEqual([0, 2]);
    expect(transposeAxes(3, null)).toEqual([2, 1, 0]);
    expectCode(() => squeezeAxes([1, 3], [1.5]), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => squeezeAxes([1, 3], [NaN]), TypeError, 'ERR_INVALID_ARG_TYPE');
    // A Symbol inside a list of axes: the error message itself must not throw.
    expectCode(() => transposeAxes(2, [Symbol('a')] as never), RangeError, 'ERR_INVALID_ARG_VALUE');
    expect(formatShape([Symbol('s') as never, 2])).toBe('(Symbol(s),2)');
  });

  test('Slice.indices(size) refuses non-sizes', () => {
    for (const bad of [-1, 1.5, NaN, Infinity, 1n, '3', Symbol('x')]) {
      expectCode(() => slice(1, 3).indices(bad as never), RangeError, 'ERR_OUT_OF_RANGE');
    }
    expect(slice(1, 3).indices(5)).toEqual({ start: 1, stop: 3, step: 1, length: 2 });
  });

  test('views must be aligned for their dtype (ERR_MISALIGNED_VIEW)', () => {
    const f64 = DTYPES.float64, c128 = DTYPES.complex128, c64 = DTYPES.complex64;
    // Float32Array(8).index('1:7').view('float64'): offset 4.
    expectCode(() => checkAligned(4, [3], [8], f64), RangeError, 'ERR_MISALIGNED_VIEW');
    // Float64Array(6).index('1:5').view('complex128'): offset 8.
    const e = expectCode(() => checkAligned(8, [2], [16], c128), RangeError, 'ERR_MISALIGNED_VIEW');
    expect(e.message).toContain('16');
    // reshape(3,3).index(':', '0:2').view('float64'): strides [12, 8] (wrong values before).
    expectCode(() => checkAligned(0, [3, 1], [12, 8], f64), RangeError, 'ERR_MISALIGNED_VIEW');
    expectCode(() => checkAligned(0, [2, 2], [16, 4], c64), RangeError, 'ERR_MISALIGNED_VIEW');
    expectCode(() => checkAligned(0, [2], [-12], f64), RangeError, 'ERR_MISALIGNED_VIEW');
    // Aligned layouts, negative strides, broadcast (0) strides, length-1 axes and empty views pass.
    for (const [addr, shape, strides, dt] of [
      [0, [3, 1], [16, 8], f64], [8, [3], [-8], f64], [16, [2, 3], [0, 16], c128], [0, [1, 3], [12, 8], f64],
      [4, [0], [8], f64], [4, [3], [4], DTYPES.float32], [1, [3], [1], DTYPES.uint8], [2, [3], [-2], DTYPES.float16],
    ] as const) {
      expect(() => checkAligned(addr, shape, strides, dt)).not.toThrow();
    }
    // Every dtype's alignment is its itemsize (so strides that are multiples of it index whole elements).
    for (const d of Object.values(DTYPES)) expect(d.align).toBe(d.bytes);
  });
});
