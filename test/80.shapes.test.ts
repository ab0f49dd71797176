/**
 * Shape functions (lib/array/shapes.ts) against a CPU reference with NumPy 2 semantics: flip,
 * fliplr, flipud, swapaxes, moveaxis, split, arraySplit (views); roll, tile, repeat, hstack,
 * vstack (copies); clip (NaN, ±Inf, weak-scalar promotion, integer bounds past the range, out);
 * isclose and allclose. Every function over several dtypes and over contiguous, transposed,
 * stepped and reversed inputs, with empty, 1-element and 0-d arrays. Argument errors and the
 * NVRTC compile of the generated clip/isclose kernels need no GPU.
 */
import * as cuda from '../lib';
import { DTYPES, GPUArray, driver, gpuarray, withDevice } from '../lib';
import type { DType, DTypeName } from '../lib';
import { impl } from '../lib/array/methods';
import { clipBody, closeBody, realOf } from '../lib/array/clip';
import { ElementwiseSpec, Variant, elementwiseKernel } from '../lib/engine/templates/elementwise';
import { PREAMBLE } from '../lib/engine/templates/preamble';
import { UFUNC_PREAMBLE } from '../lib/array/ufunc';
import { collect, compileBoth, describeGpu, expectCode, expectEntries, hasGpu, settledLive, startAll } from './helpers';
import { C, V, expectArray, kind, pairs, pool, softly, store, upload, viewOf } from './reference';
import {
  clipRef, closeRef, concatRef, cyc, flipRef, gather, inexactOf, isNanV, mod, permRef, range, rollRef, sliceRef,
} from './shape-reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number } = globalThis;

const DT: DTypeName[] = ['float32', 'float64', 'int32', 'uint8', 'bool', 'int64', 'complex64', 'float16'];
type Fn = (...args: unknown[]) => unknown;
const G = gpuarray as unknown as Record<string, Fn>;

interface Case { label: string; a: GPUArray; host: V[] }
const S = [3, 4, 5];
/** The same kind of [3, 4, 5] data in four layouts: contiguous, transposed, stepped, reversed and stepped. */
function layouts(d: DTypeName): Case[] {
  const vals = cyc(pool(d), 120, 1, 7);
  return [
    { label: 'contiguous', a: upload(d, vals.slice(0, 60), S), host: vals.slice(0, 60) },
    { label: 'transposed', a: upload(d, vals.slice(0, 60), [5, 4, 3]).T, host: viewOf(vals, S, [1, 3, 12]) },
    { label: 'stepped', a: upload(d, vals, [6, 4, 5]).index('::2'), host: viewOf(vals, S, [40, 5, 1]) },
    { label: 'reversed', a: upload(d, vals, [3, 4, 10]).index(':', '::-1', '1::2'), host: viewOf(vals, S, [40, -10, 2], 31) },
  ];
}
/** Small cases: 1-D of 31, empty [0] and [0, 3], one element, 0-d. */
function smalls(d: DTypeName): Array<{ label: string; a: GPUArray; host: V[]; shape: number[] }> {
  const p = pool(d);
  return [
    { label: '31', a: upload(d, cyc(p, 31, 2, 3)), host: cyc(p, 31, 2, 3), shape: [31] },
    { label: '[0]', a: upload(d, []), host: [], shape: [0] },
    { label: '[0,3]', a: upload(d, [], [0, 3]), host: [], shape: [0, 3] },
    { label: '[1]', a: upload(d, [p[1 % p.length]]), host: [p[1 % p.length]], shape: [1] },
    { label: '0-d', a: upload(d, [p[2 % p.length]]).reshape([]), host: [p[2 % p.length]], shape: [] },
  ];
}
const isView = (r: GPUArray, a: GPUArray): boolean => r.base !== null && r.base === (a.base ?? a);

// ---- no GPU -------------------------------------------------------------------------------------

describe('shape functions: argument errors before any GPU work', () => {
  test('a non-GPUArray is a TypeError ERR_INVALID_ARG_TYPE', () => {
    for (const [name, args] of [
      ['flip', [5]], ['fliplr', [null]], ['flipud', [{}]], ['swapaxes', [[1, 2], 0, 1]], ['moveaxis', ['a', 0, 1]],
      ['roll', [1, 1]], ['tile', [1, 2]], ['repeat', [1, 2]], ['split', [1, 2]], ['arraySplit', [[1, 2], 2]],
      ['clip', [1, 0, 1]], ['hstack', [[]]], ['hstack', [[1]]], ['vstack', ['x']], ['vstack', [undefined]],
      ['hstack', [new Array(2)]], ['vstack', [new Array(1)]], // holes: refused, not skipped (some() skips them)
      ['concatenate', [new Array(2)]], ['stack', [new Array(3)]],
      ['isclose', [1, 2]], ['isclose', ['a', 2]], ['allclose', [1, 2]],
    ] as Array<[string, unknown[]]>) {
      expectCode(() => G[name](...args), TypeError, 'ERR_INVALID_ARG_TYPE');
    }
  });

  test('isclose/allclose tolerances: finite numbers ≥ 0 (RangeError ERR_OUT_OF_RANGE), checked first', () => {
    for (const f of [gpuarray.isclose, gpuarray.allclose] as Fn[]) {
      for (const bad of [{ rtol: -1 }, { atol: -1e-9 }, { atol: NaN }, { rtol: Infinity }, { atol: -Infinity }]) {
        expectCode(() => f(null, null, bad), RangeError, 'ERR_OUT_OF_RANGE');
      }
      expectCode(() => f(null, null, { rtol: '1' }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => f(null, null, { equalNan: 1 }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => f(null, null, { tolerance: 1 }), TypeError, 'ERR_INVALID_ARG_VALUE');
    }
    expectCode(() => gpuarray.allclose(1, 2, { out: null } as never), TypeError, 'ERR_INVALID_ARG_VALUE');
  });

  test('the functions are in gpuarray; swapaxes, repeat and clip are GPUArray methods (registered)', () => {
    for (const name of ['flip', 'fliplr', 'flipud', 'swapaxes', 'moveaxis', 'roll', 'tile', 'repeat', 'split', 'arraySplit',
      'hstack', 'vstack', 'clip', 'isclose', 'allclose']) {
      expect(typeof G[name]).toBe('function');
    }
    for (const name of ['swapaxes', 'repeat', 'clip'] as const) {
      const desc = Object.getOwnPropertyDescriptor(GPUArray.prototype, name);
      expect([typeof desc?.value, desc?.enumerable]).toEqual(['function', false]);
      // Registered: the implementation's own argument check answers, not ERR_INVALID_STATE.
      expectCode(() => (impl[name] as Fn)(undefined, 0, 1), TypeError, 'ERR_INVALID_ARG_TYPE');
    }
  });
});

// ---- NVRTC (no GPU) -----------------------------------------------------------------------------

const VARIANTS: Variant[] = [
  { kind: 'contiguous', e: 4, wide: false },
  { kind: 'strided', e: 1, wide: true, ndim: 3, inner: ['any', 'any', 'any', 'any', 'any'] },
];

/** clip (every bound combination, array and scalar bounds) and isclose specs whose result or first operand is `d`. */
function kernelSpecs(d: DType): ElementwiseSpec[] {
  const out: ElementwiseSpec[] = [];
  const arr = (x: DType, c: DType = x) => ({ dtype: x, compute: c, scalar: false });
  const sc = (c: DType) => ({ dtype: c, compute: c, scalar: true });
  for (const [lo, hi] of [[true, true], [true, false], [false, true], [false, false]]) {
    const n = 1 + Number(lo) + Number(hi);
    out.push({ name: `clip${n}${lo ? 'l' : ''}`, inputs: [arr(d), ...range(n - 1).map(() => arr(d))], outputs: [{ dtype: d, compute: d }],
      body: clipBody(d, lo, hi) });
    if (n > 1) {
      out.push({ name: `clips${n}${lo ? 'l' : ''}`, inputs: [arr(d), ...range(n - 1).map(() => sc(d))], outputs: [{ dtype: d, compute: d }],
        body: clipBody(d, lo, hi) });
    }
  }
  const inexact = d.kind === 'f' || d.kind === 'c' ? d : DTYPES.float64;
  const combos: Array<[DType, DType, DType]> = [[d, inexact, inexact]]; // [x stored, common c, y compute]
  if (d === DTYPES.float32) combos.push([d, DTYPES.float64, DTYPES.float32], [d, DTYPES.complex64, DTYPES.float32]);
  if (d === DTYPES.complex64) combos.push([d, DTYPES.complex128, DTYPES.complex64], [d, DTYPES.complex64, DTYPES.float32]);
  if (d === DTYPES.float16) combos.push([d, DTYPES.float32, DTYPES.bfloat16], [d, DTYPES.float64, DTYPES.float16]);
  if (d === DTYPES.complex128) combos.push([d, DTYPES.complex128, DTYPES.float64]);
  combos.forEach(([x, c, y], k) => {
    for (const nan of [false, true]) {
      out.push({ name: `isclose${k}${nan ? 'n' : ''}`, inputs: [arr(x, c), arr(y), sc(realOf(y)), sc(realOf(y))],
        outputs: [{ dtype: DTYPES.bool, compute: DTYPES.bool }], body: closeBody(c, y, nan) });
      out.push({ name: `isclose${k}s${nan ? 'n' : ''}`, inputs: [arr(x, c), sc(y), sc(realOf(y)), sc(realOf(y))],
        outputs: [{ dtype: DTYPES.bool, compute: DTYPES.bool }], body: closeBody(c, y, nan) });
    }
  });
  return out;
}

describe('generated clip and isclose kernels compile (NVRTC, no GPU)', () => {
  const dtypes = Object.values(DTYPES);
  const built = startAll(dtypes, async (d) => {
    const names: string[] = [];
    const parts = [PREAMBLE, UFUNC_PREAMBLE];
    for (const spec of kernelSpecs(d)) {
      for (const v of VARIANTS) {
        const arrays = 1 + spec.inputs.filter((x) => !x.scalar).length;
        const { source, name } = elementwiseKernel(spec, v.inner ? { ...v, inner: v.inner.slice(0, arrays) } : v);
        names.push(name);
        parts.push(source);
      }
    }
    return { names, r: await compileBoth(parts.join('\n')) };
  });
  test.each(dtypes.map((d) => [d.name, d] as const))('%s', async (_n, d) => {
    const { names, r } = await built(d);
    expect(new Set(names).size).toBe(names.length);
    expectEntries(r, names);
  });
});

// ---- GPU ----------------------------------------------------------------------------------------

describeGpu('shape functions × dtypes (CPU reference, NumPy semantics)', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  for (const d of DT) {
    describe(d, () => {
      test('flip, fliplr, flipud: views with negative strides', () => cuda.tidy(() => {
        const check = softly();
        for (const { label, a, host } of layouts(d)) {
          const FLIPS: Array<[unknown, number[]]> = [[undefined, [0, 1, 2]], [1, [1]], [[0, -1], [0, 2]], [-1, [2]], [[], []]];
          for (const [axis, axes] of FLIPS) {
            const r = gpuarray.flip(a, { axis: axis as number });
            check(() => expect([label, axis, isView(r, a)]).toEqual([label, axis, true]));
            check(() => expectArray(r, d, S, flipRef(host, S, axes), 0, `${label} flip ${JSON.stringify(axis)}`));
          }
          check(() => expectArray(gpuarray.fliplr(a), d, S, flipRef(host, S, [1]), 0, `${label} fliplr`));
          check(() => expectArray(gpuarray.flipud(a), d, S, flipRef(host, S, [0]), 0, `${label} flipud`));
          check(() => expectArray(gpuarray.flip(gpuarray.flip(a)), d, S, host, 0, `${label} flip twice`));
        }
        for (const { label, a, host, shape } of smalls(d)) {
          check(() => expectArray(gpuarray.flip(a), d, shape, flipRef(host, shape, range(shape.length)), 0, `${label} flip`));
          if (shape.length) check(() => expectArray(gpuarray.flipud(a), d, shape, flipRef(host, shape, [0]), 0, `${label} flipud`));
        }
        const [v] = smalls(d);
        check(() => expectCode(() => gpuarray.fliplr(v.a), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.flip(v.a, { axis: 1 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.flip(v.a, { axis: [0, -1] }), RangeError, 'ERR_INVALID_ARG_VALUE'));
        check.done();
      }));

      test('swapaxes, moveaxis: views', () => cuda.tidy(() => {
        const check = softly();
        for (const { label, a, host } of layouts(d)) {
          const cases: Array<[string, GPUArray, number[]]> = [
            ['swapaxes(0, -1)', gpuarray.swapaxes(a, 0, -1), [2, 1, 0]],
            ['a.swapaxes(1, 2)', a.swapaxes(1, 2), [0, 2, 1]],
            ['swapaxes(1, 1)', gpuarray.swapaxes(a, 1, -2), [0, 1, 2]],
            ['moveaxis(0, -1)', gpuarray.moveaxis(a, 0, -1), [1, 2, 0]],
            ['moveaxis(2, 0)', gpuarray.moveaxis(a, 2, 0), [2, 0, 1]],
            ['moveaxis([0, 1], [-1, -2])', gpuarray.moveaxis(a, [0, 1], [-1, -2]), [2, 1, 0]],
            ['moveaxis([2, 0], [0, 1])', gpuarray.moveaxis(a, [2, 0], [0, 1]), [2, 0, 1]],
          ];
          for (const [what, r, perm] of cases) {
            check(() => expect([label, what, isView(r, a)]).toEqual([label, what, true]));
            check(() => expectArray(r, d, perm.map((p) => S[p]), permRef(host, S, perm), 0, `${label} ${what}`));
          }
        }
        const a = layouts(d)[0].a;
        check(() => expectCode(() => gpuarray.swapaxes(a, 0, 3), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.moveaxis(a, [0, 0], [1, 2]), RangeError, 'ERR_INVALID_ARG_VALUE'));
        check(() => expectCode(() => gpuarray.moveaxis(a, [0, 1], [1]), RangeError, 'ERR_INVALID_ARG_VALUE'));
        check(() => expectCode(() => gpuarray.moveaxis(a, 0, -4), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
        check.done();
      }));

      test('roll: a C-contiguous copy', () => cuda.tidy(() => {
        const check = softly();
        for (const { label, a, host } of layouts(d)) {
          const flat = (k: number) => host.map((_, i) => host[mod(i - k, host.length)]);
          const cases: Array<[string, GPUArray, V[]]> = [
            ['roll(7)', gpuarray.roll(a, 7), flat(7)],
            ['roll(-61)', gpuarray.roll(a, -61), flat(-61)],
            ['roll([2, 3]) flattened', gpuarray.roll(a, [2, 3]), flat(5)],
            ['roll(-3, axis 1)', gpuarray.roll(a, -3, { axis: 1 }), rollRef(host, S, [0, -3, 0])],
            ['roll([1, -2], axes [0, 2])', gpuarray.roll(a, [1, -2], { axis: [0, 2] }), rollRef(host, S, [1, 0, -2])],
            ['roll([2, 3], axes [1, 1])', gpuarray.roll(a, [2, 3], { axis: [1, -2] }), rollRef(host, S, [0, 5, 0])],
            ['roll(1, axes [0, 1, 2])', gpuarray.roll(a, 1, { axis: [0, 1, 2] }), rollRef(host, S, [1, 1, 1])],
            ['roll(1e9 + 1, axis -1)', gpuarray.roll(a, 1e9 + 1, { axis: -1 }), rollRef(host, S, [0, 0, 1])],
            ['roll(4, axis 1)', gpuarray.roll(a, 4, { axis: 1 }), host],
          ];
          for (const [what, r, want] of cases) {
            check(() => expect([label, what, r.base, r.flags.cContiguous]).toEqual([label, what, null, true]));
            check(() => expectArray(r, d, S, want, 0, `${label} ${what}`));
          }
        }
        for (const { label, a, host, shape } of smalls(d)) {
          const n = host.length;
          check(() => expectArray(gpuarray.roll(a, 5), d, shape, host.map((_, i) => host[mod(i - 5, n)]), 0, `${label} roll(5)`));
          if (shape.length) {
            const want = rollRef(host, shape, [...shape.slice(1).map(() => 0), -2]);
            check(() => expectArray(gpuarray.roll(a, -2, { axis: -1 }), d, shape, want, 0, `${label} roll(-2, axis -1)`));
          }
        }
        const a = layouts(d)[0].a;
        check(() => expectCode(() => gpuarray.roll(a, [1, 2, 3], { axis: [0, 1] }), RangeError, 'ERR_INVALID_ARG_VALUE'));
        check(() => expectCode(() => gpuarray.roll(a, 1, { axis: 3 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.roll(a, 1.5), TypeError, 'ERR_INVALID_ARG_TYPE'));
        check.done();
      }));

      test('tile', () => cuda.tidy(() => {
        const check = softly();
        const tileRef = (host: V[], shape: number[], reps: number[]) => {
          const nd = Math.max(shape.length, reps.length);
          const s = [...Array(nd - shape.length).fill(1), ...shape], r = [...Array(nd - reps.length).fill(1), ...reps];
          const os = s.map((n, i) => n * r[i]);
          return { want: gather(host, s, os, (m) => m.map((x, i) => x % s[i])), os };
        };
        for (const { label, a, host } of layouts(d)) {
          for (const reps of [2, [2, 1, 3], [1, 2], [2, 1, 1, 3], [1, 1, 1], 0, [3, 0, 1]]) {
            const { want, os } = tileRef(host, S, typeof reps === 'number' ? [reps] : reps);
            const r = gpuarray.tile(a, reps);
            check(() => expect([label, reps, r.base, r.flags.cContiguous]).toEqual([label, reps, null, true]));
            check(() => expectArray(r, d, os, want, 0, `${label} tile(${JSON.stringify(reps)})`));
          }
        }
        for (const { label, a, host, shape } of smalls(d)) {
          for (const reps of [3, [2, 2], []]) {
            const { want, os } = tileRef(host, shape, typeof reps === 'number' ? [reps] : reps);
            check(() => expectArray(gpuarray.tile(a, reps), d, os, want, 0, `${label} tile(${JSON.stringify(reps)})`));
          }
        }
        check(() => expectCode(() => gpuarray.tile(layouts(d)[0].a, [2, -1]), RangeError, 'ERR_OUT_OF_RANGE'));
        check.done();
      }));

      test('repeat (also a.repeat)', () => cuda.tidy(() => {
        const check = softly();
        const alongRef = (host: V[], shape: number[], ax: number, counts: number[]) => {
          const src = counts.flatMap((c, i) => Array<number>(c).fill(i));
          const os = shape.map((n, i) => (i === ax ? src.length : n));
          return { want: gather(host, shape, os, (m) => m.map((x, i) => (i === ax ? src[x] : x))), os };
        };
        for (const { label, a, host } of layouts(d)) {
          check(() => expectArray(gpuarray.repeat(a, 2), d, [120], host.flatMap((v) => [v, v]), 0, `${label} repeat(2)`));
          check(() => expectArray(a.repeat(0), d, [0], [], 0, `${label} repeat(0)`));
          const cases: Array<[string, GPUArray, number, number[]]> = [
            ['repeat(3, axis 1)', gpuarray.repeat(a, 3, { axis: 1 }), 1, [3, 3, 3, 3]],
            ['a.repeat([2, 0, 1, 3], axis -2)', a.repeat([2, 0, 1, 3], { axis: -2 }), 1, [2, 0, 1, 3]],
            ['repeat([2], axis 0)', gpuarray.repeat(a, [2], { axis: 0 }), 0, [2, 2, 2]],
            ['repeat([1, 0, 0, 2, 1], axis 2)', gpuarray.repeat(a, [1, 0, 0, 2, 1], { axis: 2 }), 2, [1, 0, 0, 2, 1]],
            ['repeat(0, axis 2)', gpuarray.repeat(a, 0, { axis: 2 }), 2, [0, 0, 0, 0, 0]],
          ];
          for (const [what, r, ax, counts] of cases) {
            const { want, os } = alongRef(host, S, ax, counts);
            check(() => expectArray(r, d, os, want, 0, `${label} ${what}`));
          }
        }
        for (const { label, a, host, shape } of smalls(d)) {
          check(() => expectArray(gpuarray.repeat(a, 3), d, [3 * host.length], host.flatMap((v) => [v, v, v]), 0, `${label} repeat(3)`));
          const counts = host.map((_, i) => i % 4);
          const want = host.flatMap((v, i) => Array<V>(counts[i]).fill(v));
          check(() => expectArray(gpuarray.repeat(a, counts.length === 1 ? [3] : counts), d, [counts.length === 1 ? 3 : want.length],
            counts.length === 1 ? [host[0], host[0], host[0]] : want, 0, `${label} repeat(counts)`));
          if (shape.length) {
            const { want: w, os } = alongRef(host, shape, 0, range(shape[0]).map((i) => (i + 1) % 3));
            check(() => expectArray(gpuarray.repeat(a, range(shape[0]).map((i) => (i + 1) % 3), { axis: 0 }), d, os, w, 0, `${label} counts axis 0`));
          }
        }
        const a = layouts(d)[0].a;
        check(() => expectCode(() => gpuarray.repeat(a, [1, 2], { axis: 0 }), RangeError, 'ERR_SHAPE_MISMATCH'));
        check(() => expectCode(() => gpuarray.repeat(a, -1), RangeError, 'ERR_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.repeat(a, [1, -1, 1], { axis: 0 }), RangeError, 'ERR_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.repeat(a, 2, { axis: 3 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
        check.done();
      }));

      test('split, arraySplit: views', () => cuda.tidy(() => {
        const check = softly();
        for (const { label, a, host } of layouts(d)) {
          const cases: Array<[string, GPUArray[], number, Array<[number, number]>]> = [
            ['split(3)', gpuarray.split(a, 3), 0, [[0, 1], [1, 2], [2, 3]]],
            ['split([1, 3], axis 1)', gpuarray.split(a, [1, 3], { axis: 1 }), 1, [[0, 1], [1, 3], [3, 4]]],
            ['split(1, axis -1)', gpuarray.split(a, 1, { axis: -1 }), 2, [[0, 5]]],
            ['arraySplit(3, axis -1)', gpuarray.arraySplit(a, 3, { axis: -1 }), 2, [[0, 2], [2, 4], [4, 5]]],
            ['arraySplit(5, axis 0)', gpuarray.arraySplit(a, 5), 0, [[0, 1], [1, 2], [2, 3], [3, 3], [3, 3]]],
            ['arraySplit([-2, 10, 1], axis 2)', gpuarray.arraySplit(a, [-2, 10, 1], { axis: 2 }), 2, [[0, -2], [-2, 10], [10, 1], [1, 5]]],
            ['split([], axis 1)', gpuarray.split(a, [], { axis: 1 }), 1, [[0, 4]]],
          ];
          for (const [what, parts, ax, bounds] of cases) {
            check(() => expect([label, what, parts.length]).toEqual([label, what, bounds.length]));
            parts.forEach((p, k) => {
              const { host: want, shape } = sliceRef(host, S, ax, ...bounds[k]);
              check(() => expect([label, what, k, isView(p, a)]).toEqual([label, what, k, true]));
              check(() => expectArray(p, d, shape, want, 0, `${label} ${what} [${k}]`));
            });
          }
        }
        const a = layouts(d)[0].a;
        check(() => expectCode(() => gpuarray.split(a, 2), RangeError, 'ERR_INVALID_ARG_VALUE'));
        check(() => expectCode(() => gpuarray.split(a, 0), RangeError, 'ERR_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.arraySplit(a, -1), RangeError, 'ERR_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.split(a, 1.5), TypeError, 'ERR_INVALID_ARG_TYPE'));
        check(() => expectCode(() => gpuarray.split(a, 3, { axis: 3 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
        const [, empty] = smalls(d);
        check(() => expect(gpuarray.arraySplit(empty.a, 3).map((p) => p.shape)).toEqual([[0], [0], [0]]));
        check.done();
      }));

      test('hstack, vstack (NumPy 1-D rules)', () => cuda.tidy(() => {
        const check = softly();
        const [v31, , , one, scalar] = smalls(d);
        const cases = layouts(d);
        const h = (c: { a: GPUArray; host: V[] }, shape: number[]) => ({ host: c.host, shape });
        check(() => expectArray(gpuarray.hstack([v31.a, one.a, scalar.a]), d, [33], [...v31.host, ...one.host, ...scalar.host], 0, 'hstack 1-D'));
        check(() => expectArray(gpuarray.vstack([one.a, scalar.a]), d, [2, 1], [...one.host, ...scalar.host], 0, 'vstack [1] and 0-d'));
        // 2-D: [4, 5] slices of the layouts (a[1] of each), and 1-D rows of 5.
        const rows = cases.map((c) => ({ a: c.a.index(1), host: c.host.slice(20, 40) }));
        const want = concatRef(rows.map((r) => h(r, [4, 5])), 1);
        check(() => expectArray(gpuarray.hstack(rows.map((r) => r.a)), d, want.shape, want.host, 0, 'hstack 2-D'));
        const row = { a: cases[3].a.index(0, 2), host: cases[3].host.slice(10, 15) };
        const wantV = concatRef([h(rows[1], [4, 5]), h(row, [1, 5]), h(rows[2], [4, 5])], 0);
        check(() => expectArray(gpuarray.vstack([rows[1].a, row.a, rows[2].a]), d, wantV.shape, wantV.host, 0, 'vstack 2-D and 1-D'));
        check(() => expectArray(gpuarray.vstack([row.a, row.a]), d, [2, 5], [...row.host, ...row.host], 0, 'vstack 1-D'));
        check(() => expectCode(() => gpuarray.hstack([v31.a, rows[0].a]), RangeError, 'ERR_SHAPE_MISMATCH'));
        check.done();
      }));
    });
  }

  describe('clip', () => {
    const BOUNDS: Record<string, [number | boolean | C, number | boolean | C]> = {
      f: [-2.5, 3], i: [-3, 100], u: [2, 200], b: [false, true], c: [{ re: -1, im: 0 }, { re: 2, im: 0.5 }],
    };
    for (const d of DT) {
      test(`${d}: scalar and array bounds, null bounds, NaN, layouts, out`, () => cuda.tidy(() => {
        const check = softly();
        const [jlo, jhi] = BOUNDS[kind(d)];
        const lo = store(d, jlo as V), hi = store(d, jhi as V);
        for (const { label, a, host } of layouts(d)) {
          check(() => expectArray(gpuarray.clip(a, jlo, jhi), d, S, host.map((x) => clipRef(x, lo, hi)), 0, `${label} clip(lo, hi)`));
          check(() => expectArray(a.clip(jlo, null), d, S, host.map((x) => clipRef(x, lo, null)), 0, `${label} a.clip(lo, null)`));
          check(() => expectArray(gpuarray.clip(a, undefined, jhi), d, S, host.map((x) => clipRef(x, null, hi)), 0, `${label} clip(undefined, hi)`));
          const copy = gpuarray.clip(a, null, null);
          check(() => expect([copy === a, copy.base, copy.alloc === a.alloc]).toEqual([false, null, false]));
          check(() => expectArray(copy, d, S, host, 0, `${label} clip(null, null)`));
        }
        // Array bounds broadcast against [3, 4, 5]: lo [4, 1], hi [5] (pool values: NaN, ±Inf, lo > hi).
        const los = cyc(pool(d), 4, 2, 3), his = cyc(pool(d), 5, 5, 2);
        const loA = upload(d, los, [4, 1]), hiA = upload(d, his);
        for (const { label, a, host } of layouts(d)) {
          const want = gather(host, S, S, (m) => m).map((x, k) => clipRef(x, los[Math.floor(k / 5) % 4], his[k % 5]));
          check(() => expectArray(gpuarray.clip(a, loA, hiA), d, S, want, 0, `${label} array bounds`));
          check(() => expectArray(gpuarray.clip(a, null, hiA.index('::-1')), d, S, host.map((x, k) => clipRef(x, null, his[4 - (k % 5)])), 0,
            `${label} hi[::-1]`));
        }
        // The result broadcasts wider than `a`.
        const vs = cyc(pool(d), 5, 1);
        check(() => expectArray(gpuarray.clip(upload(d, vs), loA, null), d, [4, 5],
          range(20).map((k) => clipRef(vs[k % 5], los[Math.floor(k / 5)], null)), 0, 'broadcast wider'));
        if (kind(d) === 'f' || kind(d) === 'c') {
          const nan = kind(d) === 'c' ? { re: NaN, im: 0 } : NaN;
          const { a, host } = layouts(d)[1];
          check(() => expectArray(gpuarray.clip(a, nan, jhi), d, S, host.map((x) => clipRef(x, store(d, nan), hi)), 0, 'NaN lo'));
          check(() => expectArray(gpuarray.clip(a, null, nan), d, S, host.map((x) => clipRef(x, null, store(d, nan))), 0, 'NaN hi: all NaN'));
        }
        if (kind(d) === 'f') {
          const xs = [NaN, -Infinity, Infinity, -0, 0, 1, -5, 5, 0.5].map((x) => store(d, x));
          const x = upload(d, xs);
          const inf = [-Infinity, Infinity].map((b) => store(d, b));
          check(() => expectArray(gpuarray.clip(x, -1, 1), d, [9], xs.map((e) => clipRef(e, store(d, -1), store(d, 1))), 0, '±Inf, NaN, -0'));
          check(() => expectArray(gpuarray.clip(x, -Infinity, Infinity), d, [9], xs.map((e) => clipRef(e, inf[0], inf[1])), 0, '±Inf bounds'));
          check(() => expectArray(gpuarray.clip(x, 2, 1), d, [9], xs.map((e) => clipRef(e, store(d, 2), store(d, 1))), 0, 'lo > hi → hi'));
        }
        // out: in place, a strided out, an out that overlaps the input reversed.
        const { a: src, host } = layouts(d)[0];
        const want = host.map((x) => clipRef(x, lo, hi));
        const inPlace = src.copy();
        check(() => expect(gpuarray.clip(inPlace, jlo, jhi, { out: inPlace })).toBe(inPlace));
        check(() => expectArray(inPlace, d, S, want, 0, 'out = a'));
        const wide = gpuarray.zeros([3, 4, 10], d);
        const strided = wide.index(':', ':', '1::2');
        check(() => expect(src.clip(jlo, jhi, { out: strided })).toBe(strided));
        check(() => expectArray(strided, d, S, want, 0, 'strided out'));
        const line = upload(d, host.slice(0, 31));
        gpuarray.clip(line, jlo, jhi, { out: line.index('::-1') });
        check(() => expectArray(line, d, [31], want.slice(0, 31).reverse(), 0, 'out = a[::-1]'));
        for (const { label, a, host: h, shape } of smalls(d)) {
          check(() => expectArray(gpuarray.clip(a, jlo, jhi), d, shape, h.map((x) => clipRef(x, lo, hi)), 0, `${label} clip`));
        }
        check.done();
      }));
    }

    test('result dtype (NumPy 2 weak scalars), integer bounds past the range, typed bounds, out dtype', () => cuda.tidy(() => {
      const check = softly();
      const i8 = upload('int8', [-128, -1, 0, 5, 127]);
      check(() => expectArray(gpuarray.clip(i8, 0, 100), 'int8', [5], [0, 0, 0, 5, 100]));
      check(() => expectArray(gpuarray.clip(i8, 0.5, null), 'float64', [5], [0.5, 0.5, 0.5, 5, 127]));
      check(() => expectArray(gpuarray.clip(i8, -1000, 1000), 'int8', [5], [-128, -1, 0, 5, 127]));
      check(() => expectArray(gpuarray.clip(i8, -1000, 4), 'int8', [5], [-128, -1, 0, 4, 4]));
      check(() => expectArray(gpuarray.clip(i8, -128, 127), 'int8', [5], [-128, -1, 0, 5, 127]));
      check(() => expectArray(gpuarray.clip(i8, null, upload('int16', [1000, -1000, 0, 3, 300])), 'int16', [5], [-128, -1000, 0, 3, 127]));
      check(() => expectArray(gpuarray.clip(i8, null, cuda.int16(1000)), 'int16', [5], [-128, -1, 0, 5, 127]));
      check(() => expectArray(gpuarray.clip(i8, -2n, 3n), 'int8', [5], [-2, -1, 0, 3, 3]));
      const u8 = upload('uint8', [0, 7, 255]);
      check(() => expectArray(gpuarray.clip(u8, -5, 300), 'uint8', [3], [0, 7, 255]));
      check(() => expectArray(gpuarray.clip(u8, -5, 100), 'uint8', [3], [0, 7, 100]));
      check(() => expectArray(gpuarray.clip(u8, -1.5, null), 'float64', [3], [0, 7, 255]));
      check(() => expectCode(() => gpuarray.clip(u8, 300, null), RangeError, 'ERR_OUT_OF_RANGE'));
      check(() => expectCode(() => gpuarray.clip(u8, null, -1), RangeError, 'ERR_OUT_OF_RANGE'));
      check(() => expectCode(() => gpuarray.clip(i8, null, -200), RangeError, 'ERR_OUT_OF_RANGE'));
      check(() => expectCode(() => gpuarray.clip(upload('int32', [1]), 2 ** 40, null), RangeError, 'ERR_OUT_OF_RANGE'));
      const i64 = upload('int64', [-(2n ** 63n), -1n, 2n ** 63n - 1n]);
      check(() => expectArray(gpuarray.clip(i64, -(2n ** 70n), 2n ** 63n - 1n), 'int64', [3], [-(2n ** 63n), -1n, 2n ** 63n - 1n]));
      check(() => expectArray(gpuarray.clip(i64, -(2 ** 64), 2 ** 64), 'int64', [3], [-(2n ** 63n), -1n, 2n ** 63n - 1n]));
      check(() => expectArray(gpuarray.clip(i64, 0n, null), 'int64', [3], [0n, 0n, 2n ** 63n - 1n]));
      const u64 = upload('uint64', [0n, 5n, 2n ** 64n - 1n]);
      check(() => expectArray(gpuarray.clip(u64, -1, 2n ** 64n), 'uint64', [3], [0n, 5n, 2n ** 64n - 1n]));
      check(() => expectArray(gpuarray.clip(u64, 6n, 2n ** 63n), 'uint64', [3], [6n, 6n, 2n ** 63n]));
      const b = upload('bool', [1, 0]);
      check(() => expectArray(gpuarray.clip(b, 0, 1), 'int64', [2], [1n, 0n]));
      check(() => expectArray(gpuarray.clip(b, true, null), 'bool', [2], [1, 1]));
      check(() => expectArray(gpuarray.clip(b, null, false), 'bool', [2], [0, 0]));
      const f32 = upload('float32', [-3.5, 0.25, 9]);
      check(() => expectArray(gpuarray.clip(f32, 0, 1), 'float32', [3], [0, 0.25, 1]));
      check(() => expectArray(gpuarray.clip(f32, -1e300, 1e300), 'float32', [3], [-3.5, 0.25, 9]));
      check(() => expectArray(gpuarray.clip(upload('int32', [-7, 3, 9]), 0, 2.5), 'float64', [3], [0, 2.5, 2.5]));
      const f16 = upload('float16', [-2, 0.5, 4]);
      check(() => expectArray(gpuarray.clip(f16, 0, 1), 'float16', [3], [0, 0.5, 1]));
      check(() => expectArray(gpuarray.clip(f16, upload('float32', [-1]), upload('float32', [3])), 'float32', [3], [-1, 0.5, 3]));
      check(() => expectArray(gpuarray.clip(f32, cuda.float64(0.1), null), 'float64', [3], [0.1, 0.25, 9]));
      // out: a wider dtype, a same_kind narrowing, a refused kind, a wrong shape.
      const f64out = gpuarray.zeros([3], 'float64');
      check(() => expectArray(gpuarray.clip(upload('int32', [-7, 3, 9]), 0, 5, { out: f64out }), 'float64', [3], [0, 3, 5]));
      const f32out = gpuarray.zeros([3], 'float32');
      check(() => expectArray(gpuarray.clip(upload('float64', [0.1, 2, -3]), -1, 1, { out: f32out }), 'float32', [3],
        [Math.fround(0.1), 1, -1]));
      check(() => expectCode(() => gpuarray.clip(f32, 0, 1, { out: gpuarray.zeros([3], 'int32') }), TypeError, 'ERR_INVALID_DTYPE'));
      check(() => expectCode(() => gpuarray.clip(f32, 0, 1, { out: gpuarray.zeros([4], 'float32') }), RangeError, 'ERR_SHAPE_MISMATCH'));
      check(() => expectCode(() => gpuarray.clip(f32, 'x' as never, 1), TypeError, 'ERR_INVALID_ARG_TYPE'));
      check(() => expectCode(() => gpuarray.clip(f32, 0, 1, { where: true } as never), TypeError, 'ERR_INVALID_ARG_VALUE'));
      check.done();
    }));
  });

  describe('isclose, allclose', () => {
    for (const d of DT) {
      test(`${d}: every pair of special values, options, near pairs, strided operands`, () => cuda.tidy(() => {
        const check = softly();
        const c = inexactOf(d);
        const [A, B] = pairs(pool(d), pool(d));
        const x = upload(d, A), y = upload(d, B);
        for (const o of [{}, { equalNan: true }, { rtol: 0, atol: 0.5 }, { rtol: 0.25, atol: 0 }, { rtol: 0, atol: 0 }]) {
          check(() => expectArray(gpuarray.isclose(x, y, o), 'bool', [A.length], A.map((p, i) => closeRef(p, B[i], c, c, o)), 0,
            `isclose ${JSON.stringify(o)}`));
        }
        if (kind(d) === 'f' || kind(d) === 'c') {
          const ys = [1000, -1000, 1, 1e-3, 0, -250];
          const sc = (v: number, f: number): number | C => (kind(d) === 'c' ? { re: v * f, im: -v * f } : v * f);
          const Y = ys.map((v) => store(d, sc(v, 1)));
          const off = (f: number) => ys.map((v) => store(d, v === 0 ? sc(f * 1e-3, 1) : sc(v, 1 + f)));
          for (const f of [3e-6, -3e-6, 3e-5, -3e-5]) {
            const X = off(f);
            check(() => expectArray(gpuarray.isclose(upload(d, X), upload(d, Y)), 'bool', [6], X.map((p, i) => closeRef(p, Y[i], c, c)), 0,
              `near pairs (${f})`));
          }
        }
        const [p, , , q] = layouts(d);
        check(() => expectArray(gpuarray.isclose(p.a, q.a), 'bool', S, p.host.map((e, i) => closeRef(e, q.host[i], c, c)), 0, 'strided'));
        check(() => expect(gpuarray.allclose(p.a, p.a.copy())).toBe(!p.host.some(isNanV)));
        check(() => expect(gpuarray.allclose(p.a, p.a.copy(), { equalNan: true })).toBe(true));
        for (const { label, a, host, shape } of smalls(d)) {
          check(() => expectArray(gpuarray.isclose(a, a), 'bool', shape, host.map((e) => closeRef(e, e, c, c)), 0, `${label} isclose(a, a)`));
        }
        check.done();
      }));
    }

    test('mixed dtypes: b made inexact, then promoted with a (NumPy)', () => cuda.tidy(() => {
      const check = softly();
      const MIXED: Array<[DTypeName, DTypeName, DTypeName, DTypeName]> = [ // a, b, common, b's inexact type
        ['int32', 'float32', 'float64', 'float32'], ['float16', 'float64', 'float64', 'float64'],
        ['float64', 'float16', 'float64', 'float16'], ['uint8', 'int64', 'float64', 'float64'],
        ['complex64', 'float32', 'complex64', 'float32'], ['float32', 'complex128', 'complex128', 'complex128'],
        ['bool', 'float32', 'float32', 'float32'], ['int8', 'float16', 'float16', 'float16'], ['int64', 'uint64', 'float64', 'float64'],
        ['float32', 'float16', 'float32', 'float16'], ['int32', 'int32', 'float64', 'float64'],
      ];
      for (const [da, db, c, yb] of MIXED) {
        const [A, B] = pairs(pool(da), pool(db));
        for (const o of [{}, { equalNan: true, rtol: 0.25 }]) {
          check(() => expectArray(gpuarray.isclose(upload(da, A), upload(db, B), o), 'bool', [A.length],
            A.map((p, i) => closeRef(p, B[i], c, yb, o)), 0, `${da} vs ${db} ${JSON.stringify(o)}`));
        }
      }
      // int64 extremes compare as float64: 2^63 - 1 and 2^63 - 2 are both 2^63.
      const big = upload('int64', [2n ** 63n - 1n, 5n]);
      check(() => expectArray(gpuarray.isclose(big, upload('int64', [2n ** 63n - 2n, 6n])), 'bool', [2], [1, 0]));
      // JS scalars are weak: float32 stays float32, an int array with a float goes to float64.
      const f = pool('float32'), i = pool('int32'), h = pool('float16'), z = pool('complex64');
      check(() => expectArray(gpuarray.isclose(upload('float32', f), 1), 'bool', [f.length], f.map((e) => closeRef(e, 1, 'float32', 'float32'))));
      check(() => expectArray(gpuarray.isclose(upload('int32', i), 2.5, { atol: 3 }), 'bool', [i.length],
        i.map((e) => closeRef(e, 2.5, 'float64', 'float64', { atol: 3 }))));
      check(() => expectArray(gpuarray.isclose(3, upload('float16', h), { rtol: 0.1 }), 'bool', [h.length],
        h.map((e) => closeRef(3, e, 'float16', 'float16', { rtol: 0.1 }))));
      check(() => expectArray(gpuarray.isclose(upload('complex64', z), { re: 1, im: 2 }), 'bool', [z.length],
        z.map((e) => closeRef(e, { re: 1, im: 2 }, 'complex64', 'complex64'))));
      check(() => expectArray(gpuarray.isclose(upload('float32', f), 1n), 'bool', [f.length], f.map((e) => closeRef(e, 1, 'float32', 'float32'))));
      // Broadcasting and out.
      const col = [1, 2, NaN], row = [1, 2.00001, NaN, 0];
      const want = col.flatMap((p) => row.map((q) => closeRef(p, q, 'float64', 'float64')));
      check(() => expectArray(gpuarray.isclose(upload('float64', col, [3, 1]), upload('float64', row)), 'bool', [3, 4], want));
      const out = gpuarray.zeros([3, 4], 'float32');
      check(() => expect(gpuarray.isclose(upload('float64', col, [3, 1]), upload('float64', row), { out })).toBe(out));
      check(() => expectArray(out, 'float32', [3, 4], want));
      check.done();
    }));

    test('allclose: a JS boolean, NaN, equalNan, empty arrays, broadcasting, a stream', () => cuda.tidy(() => {
      const check = softly();
      const x = upload('float64', [1, 2, 3, 1e-9]);
      check(() => expect(gpuarray.allclose(x, x.copy())).toBe(true));
      check(() => expect(gpuarray.allclose(x, x.add(1e-3))).toBe(false));
      check(() => expect(gpuarray.allclose(x, x.add(1e-3), { atol: 1e-2 })).toBe(true));
      check(() => expect(gpuarray.allclose(x, x.mul(1.001), { rtol: 1e-2 })).toBe(true));
      const n = upload('float32', [1, NaN]);
      check(() => expect(gpuarray.allclose(n, n)).toBe(false));
      check(() => expect(gpuarray.allclose(n, n, { equalNan: true })).toBe(true));
      check(() => expect(gpuarray.allclose(gpuarray.zeros([0, 3]), gpuarray.ones([3]))).toBe(true));
      check(() => expect(gpuarray.allclose(gpuarray.zeros([5], 'int32'), 0)).toBe(true));
      check(() => expect(gpuarray.allclose(upload('float32', [Infinity, -Infinity]), upload('float64', [Infinity, -Infinity]))).toBe(true));
      check(() => expect(gpuarray.allclose(upload('float32', [Infinity]), -Infinity)).toBe(false));
      const s = new driver.Stream();
      check(() => expect(gpuarray.allclose(x, x.copy({ stream: s }), { stream: s })).toBe(true));
      check(() => expectCode(() => gpuarray.isclose(x, upload('float64', [1, 2])), RangeError, 'ERR_SHAPE_MISMATCH'));
      check.done();
    }));
  });

  test('nothing leaked by the suites', async () => {
    await collect();
    expect(cuda.memory().liveAllocations).toBe(baseline);
  });
});

// ---- two devices --------------------------------------------------------------------------------

const deviceCount = hasGpu ? driver.Device.count() : 0;
const describeMulti = deviceCount >= 2 ? describe : describe.skip;
describeMulti(`shape functions on two devices${deviceCount >= 2 ? '' : ` [skipped: needs 2 GPUs, ${deviceCount} visible]`}`, () => {
  test('arrays of two devices, or off the current one → ERR_DEVICE_MISMATCH; views work anywhere', () => cuda.tidy(() => {
    const a = gpuarray.toGpu(Float32Array.from([1, 2, 3]), { device: 0 });
    const b = gpuarray.toGpu(Float32Array.from([1, 2, 3]), { device: 1 });
    for (const f of [
      () => gpuarray.clip(a, b, null), () => gpuarray.isclose(a, b), () => gpuarray.allclose(a, b), () => gpuarray.hstack([a, b]),
      () => gpuarray.vstack([a, b]), () => gpuarray.roll(b, 1), () => gpuarray.tile(b, 2), () => gpuarray.repeat(b, 2),
      () => gpuarray.repeat(b, [1, 0, 2]), () => b.clip(0, 1), () => gpuarray.clip(a, 0, 1, { out: b }),
    ]) {
      expectCode(f, TypeError, 'ERR_DEVICE_MISMATCH');
    }
    // Views need no kernel: they work from any device and stay on theirs.
    expect(Array.from(gpuarray.flip(b).get() as Float32Array)).toEqual([3, 2, 1]);
    expect(gpuarray.split(b, 3).map((p) => p.device)).toEqual([1, 1, 1]);
    expect(Array.from(withDevice(1, () => gpuarray.roll(b, 1)).get() as Float32Array)).toEqual([3, 1, 2]);
  }));
});
