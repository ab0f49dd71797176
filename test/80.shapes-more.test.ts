/**
 * pad (lib/array/pad.ts) and the functions of lib/array/shapes_more.ts against CPU references with
 * NumPy 2's semantics: pad in every mode with pads smaller than, equal to and larger than the
 * axis, per-axis widths and constants, 0-width and empty axes, on several dtypes and layouts; rot90
 * for k in -1..5 and other axes (views); dstack, columnStack, hsplit/vsplit/dsplit, atleast1d/2d/3d,
 * broadcastTo/broadcastArrays/broadcastShapes; average with weights, returned and keepdims; logspace
 * and geomspace against NumPy's float64 values. Without a GPU: argument errors, pad's per-axis
 * tables against literal NumPy output and a port of NumPy's algorithm, the kernel's gather
 * emulated on the host, and the NVRTC compile of every generated kernel.
 */
import * as cuda from '../lib';
import { DTYPES, GPUArray, driver, gpuarray } from '../lib';
import type { DType, DTypeName, PadMode } from '../lib';
import { asPairs, padDims, padSource, padTable } from '../lib/array/pad';
import { AVERAGE_BODY, SPACE_BODIES } from '../lib/array/shapes_more';
import { resultType } from '../lib/base/promote';
import { ElementwiseSpec, Variant, elementwiseKernel } from '../lib/engine/templates/elementwise';
import { PREAMBLE } from '../lib/engine/templates/preamble';
import { UFUNC_PREAMBLE } from '../lib/array/ufunc';
import { collect, compileBoth, describeGpu, expectCode, expectEntries, hasGpu, settledLive, startAll } from './helpers';
import { V, download, expectArray, half, kind, pool, softly, store, upload, viewOf } from './reference';
import { concatRef, cyc, range, sliceRef } from './shape-reference';
import {
  CONST, S, avgRef, data, emulatePad, geomspaceRef, layouts, logspaceRef, p0, padRef, pySlice, rot90Ref,
} from './shape-more-reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math } = globalThis;

const DT: DTypeName[] = ['float32', 'float64', 'int32', 'uint8', 'bool', 'int64', 'complex64', 'float16'];
const MODES: PadMode[] = ['constant', 'edge', 'reflect', 'symmetric', 'wrap'];
type Fn = (...args: unknown[]) => unknown;
const G = gpuarray as unknown as Record<string, Fn>;
const pairsOf = (w: unknown, nd: number): Array<[number, number]> => asPairs(w, nd, 'padWidth', (v) => v as number);
const isView = (r: GPUArray, a: GPUArray): boolean => r.base !== null && r.base === (a.base ?? a);

// ---- no GPU -------------------------------------------------------------------------------------

describe('shape functions (more): argument errors before any GPU work', () => {
  test('the functions are in gpuarray', () => {
    for (const name of ['pad', 'rot90', 'dstack', 'columnStack', 'hsplit', 'vsplit', 'dsplit', 'atleast1d', 'atleast2d', 'atleast3d',
      'broadcastTo', 'broadcastArrays', 'broadcastShapes', 'average', 'logspace', 'geomspace']) {
      expect([name, typeof G[name]]).toEqual([name, 'function']);
    }
  });

  test('a non-GPUArray is a TypeError ERR_INVALID_ARG_TYPE', () => {
    for (const [name, args] of [
      ['pad', [5, 1]], ['pad', [null, 1, 'edge']], ['rot90', [[[1, 2]]]], ['dstack', [[]]], ['dstack', [[1]]], ['dstack', [new Array(2)]],
      ['columnStack', ['x']], ['columnStack', [[null]]], ['hsplit', [1, 2]], ['vsplit', [null, 1]], ['dsplit', [{}, 1]],
      ['atleast1d', [3]], ['atleast2d', [null]], ['atleast3d', [undefined]], ['broadcastTo', [[1], [2]]], ['broadcastArrays', [1]],
      ['average', [1]], ['average', [[1, 2]]],
    ] as Array<[string, unknown[]]>) {
      expectCode(() => G[name](...args), TypeError, 'ERR_INVALID_ARG_TYPE');
    }
  });

  test('logspace and geomspace: arguments checked before anything is allocated', () => {
    for (const f of [gpuarray.logspace, gpuarray.geomspace] as Fn[]) {
      for (const [start, stop] of [[NaN, 1], [1, Infinity], ['1', 2], [1, undefined]]) expectCode(() => f(start, stop), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => f(1, 2, -1), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => f(1, 2, 2.5), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => f(1, 2, '5'), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => f(1, 2, 5, { endpoint: 1 }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => f(1, 2, 5, { axis: 0 }), TypeError, 'ERR_INVALID_ARG_VALUE'); // NumPy's axis: refused, not dropped
      expectCode(() => f(1, 2, 5, { dtype: 'float128' }), TypeError, 'ERR_INVALID_ARG_VALUE');
    }
    expectCode(() => gpuarray.logspace(0, 1, 5, { base: '2' as never }), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.geomspace(1, 2, 5, { base: 2 } as never), TypeError, 'ERR_INVALID_ARG_VALUE');
    // NumPy's ValueError for a zero end; ends of opposite signs too (NumPy: NaN between them).
    for (const [start, stop] of [[0, 1], [1, 0], [-0, -1], [-1, 2], [3, -0.5]]) {
      expectCode(() => gpuarray.geomspace(start, stop), RangeError, 'ERR_INVALID_ARG_VALUE');
    }
  });

  test('broadcastShapes (NumPy broadcast_shapes)', () => {
    expect(gpuarray.broadcastShapes([3, 1], [4])).toEqual([3, 4]);
    expect(gpuarray.broadcastShapes([2, 1, 5], [7, 1], 5)).toEqual([2, 7, 5]);
    expect(gpuarray.broadcastShapes(6)).toEqual([6]);
    expect(gpuarray.broadcastShapes([], [0, 1])).toEqual([0, 1]);
    expect(gpuarray.broadcastShapes()).toEqual([]);
    expectCode(() => gpuarray.broadcastShapes([3, 1], [4], 5), RangeError, 'ERR_SHAPE_MISMATCH');
    expectCode(() => gpuarray.broadcastShapes([-1]), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.broadcastShapes('3' as never), TypeError, 'ERR_INVALID_ARG_TYPE');
  });

  test("pad widths: NumPy's _as_pairs forms", () => {
    expect(pairsOf(2, 3)).toEqual([[2, 2], [2, 2], [2, 2]]);
    expect(pairsOf([3], 2)).toEqual([[3, 3], [3, 3]]);
    expect(pairsOf([[5]], 2)).toEqual([[5, 5], [5, 5]]);
    expect(pairsOf([1, 2], 3)).toEqual([[1, 2], [1, 2], [1, 2]]);
    expect(pairsOf([[1, 2]], 2)).toEqual([[1, 2], [1, 2]]);
    expect(pairsOf([[1, 2], [3, 4]], 2)).toEqual([[1, 2], [3, 4]]);
    expect(pairsOf([[1], [2], [3]], 3)).toEqual([[1, 1], [2, 2], [3, 3]]);
    expect(pairsOf([[1], [2]], 2)).toEqual([[1, 1], [2, 2]]); // shape (2, 1): one value per axis, as NumPy
    expect(pairsOf(4, 0)).toEqual([]);
    for (const [w, nd] of [[[1, 2, 3], 2], [[[1, 2], [3, 4], [5, 6]], 2], [[[1, 2], [3]], 2], [[1, [2]], 2], [[], 1], [[[]], 1],
      [[[1, 2, 3]], 1], [[[1], [2]], 3], [[[1, 2], [3, 4]], 0]] as Array<[unknown, number]>) {
      expectCode(() => pairsOf(w, nd), RangeError, 'ERR_SHAPE_MISMATCH');
    }
  });

  test('pad tables: literal NumPy 2 output of repeated reflections and wraps', () => {
    const line = (mode: PadMode, n: number, b: number, a: number): number[] => {
      const t = padTable(mode as Exclude<PadMode, 'constant'>, n, b, a);
      return range(b + n + a).map((p) => (p < b ? t[p] : p < b + n ? p - b : t[p - n]));
    };
    // np.pad(np.arange(n), (b, a), mode) with NumPy 2 (non-periodic where NumPy's chunks make it so).
    expect(line('reflect', 3, 1, 8)).toEqual([1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 0]);
    expect(line('reflect', 3, 7, 1)).toEqual([1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1]);
    expect(line('reflect', 4, 10, 10)).toEqual([2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1]);
    expect(line('symmetric', 2, 2, 11)).toEqual([1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0]);
    expect(line('symmetric', 3, 5, 13)).toEqual([1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2]);
    expect(line('wrap', 3, 1, 8)).toEqual([2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1]); // NumPy 2 (1.x repeated the edge here)
    expect(line('wrap', 3, 8, 1)).toEqual([1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]);
    expect(line('edge', 2, 3, 2)).toEqual([0, 0, 0, 0, 1, 1, 1]);
    for (const mode of ['reflect', 'symmetric', 'wrap'] as PadMode[]) expect(line(mode, 1, 2, 3)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  test("pad tables against the port of NumPy's n-d algorithm, every mode, pads up to 4× the axis", () => {
    const check = softly();
    for (const mode of MODES.slice(1)) {
      for (let n = 1; n <= 6; n++) {
        for (let b = 0; b <= 14; b++) {
          for (let a = 0; a <= 14; a++) {
            const t = padTable(mode as Exclude<PadMode, 'constant'>, n, b, a);
            const got = range(b + n + a).map((p) => (p < b ? t[p] : p < b + n ? p - b : t[p - n]));
            const want = padRef(range(n), [n], [[b, a]], mode).host;
            if (JSON.stringify(got) !== JSON.stringify(want)) check(() => expect([mode, n, b, a, got]).toEqual([mode, n, b, a, want]));
          }
        }
      }
    }
    check.done();
  });

  test("the kernel's gather (emulated) gives NumPy's pad: n-d, layouts, per-axis constants, merged and dropped axes", () => {
    const check = softly();
    // Shapes with element strides and offsets into a base array whose values are their own indices.
    const views: Array<{ label: string; shape: number[]; strides: number[]; offset: number }> = [
      { label: '[3,4,5]', shape: [3, 4, 5], strides: [20, 5, 1], offset: 0 },
      { label: '[3,4,5] transposed', shape: [3, 4, 5], strides: [1, 3, 12], offset: 0 },
      { label: '[3,4,5] reversed, stepped', shape: [3, 4, 5], strides: [40, -10, 2], offset: 31 },
      { label: '[2,1,3,1]', shape: [2, 1, 3, 1], strides: [3, 3, 1, 1], offset: 0 },
      { label: '[1]', shape: [1], strides: [1], offset: 0 },
      { label: '[6] broadcast', shape: [2, 6], strides: [0, 1], offset: 0 },
    ];
    const WIDTHS: unknown[] = [1, [0, 2], [[3, 0]], [[5, 9]], [[0, 0], [2, 5]], [[3, 1], [0, 0]], [[7, 2], [0, 9], [11, 12]],
      [[0, 0], [1, 0], [0, 0]], [[0, 0], [1, 0], [0, 0], [0, 0]], [[7, 2], [0, 9], [11, 12], [2, 2]], [[0, 0], [0, 0], [2, 5], [1, 0]]];
    for (const v of views) {
      const host = viewOf(range(200), v.shape, v.strides, v.offset);
      for (const w0 of WIDTHS) {
        let widths: Array<[number, number]>;
        try {
          widths = pairsOf(w0, v.shape.length);
        } catch {
          continue; // a per-axis form of another rank
        }
        for (const mode of MODES) {
          const cv = v.shape.map((_, d): [number, number] => [-(100 + 10 * d), -(101 + 10 * d)]);
          const want = padRef(host, v.shape, widths, mode, cv);
          const dims = padDims(v.shape, v.strides, widths, mode);
          const got = emulatePad(dims, v.offset).map((x) => (x >= 0 ? x : cv[dims[(-1 - x) >> 1].axis][(-1 - x) & 1]));
          check(() => expect([v.label, w0, mode, got]).toEqual([v.label, w0, mode, want.host]));
        }
      }
    }
    // Unpadded axes merge with contiguous neighbours and length-1 ones drop: fewer kernel dimensions.
    expect(padDims([4, 5, 6], [30, 6, 1], [[0, 0], [0, 0], [1, 1]], 'edge').map((d) => [d.out, d.len, d.stride])).toEqual([[20, 20, 6], [8, 6, 1]]);
    expect(padDims([4, 1, 6], [6, 6, 1], [[2, 0], [0, 0], [0, 0]], 'constant').map((d) => [d.out, d.stride])).toEqual([[6, 6], [6, 1]]);
    expect(padDims([4, 5], [1, 4], [[0, 0], [0, 3]], 'wrap').length).toBe(2); // transposed: no merge
    expect(padDims([1, 1], [1, 1], [[0, 0], [0, 0]], 'edge')).toEqual([{ axis: -1, out: 1, before: 0, len: 1, stride: 0, table: null }]);
    check.done();
  });

  test('pySlice (the reference) selects as Python does', () => {
    expect(pySlice(5, 2, -1, 8)).toEqual([5, 4, 3]);
    expect(pySlice(-3, -7, -1, 8)).toEqual([5, 4, 3, 2]);
    expect(pySlice(-3, -20, -1, 8)).toEqual([5, 4, 3, 2, 1, 0]);
    expect(pySlice(null, 3, 1, 8)).toEqual([0, 1, 2]);
    expect(pySlice(-2, null, 1, 8)).toEqual([6, 7]);
    expect(pySlice(-9, -6, 1, 8)).toEqual([0, 1]);
  });
});

// ---- NVRTC (no GPU) -----------------------------------------------------------------------------

const VARIANTS: Variant[] = [
  { kind: 'contiguous', e: 4, wide: false },
  { kind: 'strided', e: 1, wide: true, ndim: 3, inner: ['any', 'any', 'any'] },
];

/** logspace and geomspace writing `d`, and average's product in the dtype of `d` with each weight dtype. */
function kernelSpecs(d: DType): ElementwiseSpec[] {
  const f64 = DTYPES.float64;
  const sc = (n: number) => range(n).map(() => ({ dtype: f64, compute: f64, scalar: true }));
  const out: ElementwiseSpec[] = [
    { name: 'logspace', inputs: sc(5), outputs: [{ dtype: d, compute: f64 }], body: SPACE_BODIES.logspace },
    { name: 'geomspace', inputs: sc(6), outputs: [{ dtype: d, compute: f64 }], body: SPACE_BODIES.geomspace },
  ];
  for (const w of [DTYPES.float16, DTYPES.float32, DTYPES.float64, DTYPES.int32, DTYPES.bool]) {
    const exact = d.kind === 'i' || d.kind === 'u' || d.kind === 'b';
    const rd = exact ? resultType(d, w, DTYPES.float64) : resultType(d, w);
    out.push({ name: `average_${w.name}`, inputs: [{ dtype: d, compute: rd, scalar: false }, { dtype: w, compute: rd, scalar: false }],
      outputs: [{ dtype: rd, compute: rd }], body: AVERAGE_BODY });
  }
  return out;
}

describe('generated pad, logspace, geomspace and average kernels compile (NVRTC, no GPU)', () => {
  const dtypes = Object.values(DTYPES);
  const built = startAll(['pad', ...dtypes.map((d) => d.name)], async (key) => {
    const names: string[] = [];
    const parts = [PREAMBLE, UFUNC_PREAMBLE];
    if (key === 'pad') {
      parts.length = 0;
      for (const bytes of [1, 2, 4, 8, 16]) {
        for (const nd of [1, 2, 3, 4, 7]) {
          for (const wide of [false, true]) {
            const { source, name } = padSource(bytes, nd, wide);
            names.push(name);
            parts.push(source);
          }
        }
      }
    } else {
      for (const spec of kernelSpecs(DTYPES[key as DTypeName])) {
        for (const v of VARIANTS) {
          if (spec.name.endsWith('space') && v.kind !== 'contiguous') continue; // a fresh C-contiguous output only
          const { source, name } = elementwiseKernel(spec, v);
          names.push(name);
          parts.push(source);
        }
      }
    }
    return { names, r: await compileBoth(parts.join('\n')) };
  });
  test.each(['pad', ...dtypes.map((d) => d.name)])('%s', async (key) => {
    const { names, r } = await built(key);
    expect(new Set(names).size).toBe(names.length);
    expectEntries(r, names);
  });
});

// ---- GPU ----------------------------------------------------------------------------------------

describeGpu('shape functions (more) × dtypes (CPU reference, NumPy semantics)', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  for (const d of DT) {
    describe(d, () => {
      const k = kind(d);
      const one = store(d, CONST[k].one as V);
      const axesCv = CONST[k].axes.map(([b, a]): [V, V] => [store(d, b as V), store(d, a as V)]);

      test('pad: every mode; pads smaller than, equal to and larger than the axis; per-axis widths; layouts', () => cuda.tidy(() => {
        const check = softly();
        const WIDTHS: unknown[] = [1, [2, 0], [[0, 3], [4, 4], [5, 0]], [[7, 2], [0, 9], [11, 12]], [[0, 0], [1, 0], [0, 0]], [[13, 1]]];
        for (const { label, a, host } of layouts(d)) {
          for (const w of WIDTHS) {
            const widths = pairsOf(w, 3);
            for (const mode of MODES) {
              const cv = widths.map((): [V, V] => [store(d, 0), store(d, 0)]);
              const want = padRef(host, S, widths, mode, cv);
              const r = mode === 'constant' ? gpuarray.pad(a, w as number) : gpuarray.pad(a, w as number, mode);
              check(() => expect([label, w, mode, r.base, r.flags.cContiguous]).toEqual([label, w, mode, null, true]));
              check(() => expectArray(r, d, want.shape, want.host, 0, `${label} pad(${JSON.stringify(w)}, ${mode})`));
            }
            const wantOne = padRef(host, S, widths, 'constant', widths.map((): [V, V] => [one, one]));
            check(() => expectArray(gpuarray.pad(a, w as number, { constantValues: CONST[k].one }), d, wantOne.shape, wantOne.host, 0,
              `${label} pad(${JSON.stringify(w)}, constant ${JSON.stringify(CONST[k].one)})`));
            const wantAxes = padRef(host, S, widths, 'constant', axesCv);
            check(() => expectArray(gpuarray.pad(a, w as number, 'constant', { constantValues: CONST[k].axes as never }), d, wantAxes.shape,
              wantAxes.host, 0, `${label} pad(${JSON.stringify(w)}, per-axis constants)`));
          }
        }
        check.done();
      }));

      test('pad: 1-D, empty axes, a length-1 axis, 0-d, 0-width, a stream, errors', () => cuda.tidy(() => {
        const check = softly();
        const p = pool(d);
        const v = cyc(p, 31, 2, 3);
        const a = upload(d, v);
        for (const mode of MODES) {
          for (const w of [[40, 3], [0, 62], [31, 31], [30, 32], 5]) {
            const widths = pairsOf(w, 1);
            const want = padRef(v, [31], widths, mode, [[store(d, 0), store(d, 0)]]);
            check(() => expectArray(gpuarray.pad(a, w as number, mode), d, want.shape, want.host, 0, `[31] pad(${JSON.stringify(w)}, ${mode})`));
          }
          const single = upload(d, [p[3 % p.length]]);
          if (mode !== 'constant') { // NumPy: a length-1 axis extends by its edge in every mode
            check(() => expectArray(gpuarray.pad(single, [2, 3], mode), d, [6], Array<V>(6).fill(p[3 % p.length]), 0, `[1] ${mode}`));
          }
          const scalar = upload(d, [p[4 % p.length]]).reshape([]);
          const r = gpuarray.pad(scalar, 3, mode);
          check(() => expect([mode, r.base, r === scalar]).toEqual([mode, null, false])); // a copy, as NumPy's
          check(() => expectArray(r, d, [], [p[4 % p.length]], 0, `0-d ${mode}`));
          check(() => expectArray(gpuarray.pad(a, 0, mode), d, [31], v, 0, `0-width ${mode}`));
        }
        // Empty axes: 'constant' extends them; other modes only pad non-empty axes of an empty array.
        const e = upload(d, [], [0, 3]);
        check(() => expectArray(gpuarray.pad(e, [[1, 1], [0, 2]], { constantValues: CONST[k].one }), d, [2, 5], Array<V>(10).fill(one)));
        check(() => expectArray(gpuarray.pad(upload(d, []), 2), d, [4], Array<V>(4).fill(store(d, 0))));
        for (const mode of MODES.slice(1)) {
          check(() => expectArray(gpuarray.pad(e, [[0, 0], [1, 1]], mode), d, [0, 5], []));
          check(() => expectCode(() => gpuarray.pad(e, [[1, 0], [0, 0]], mode), RangeError, 'ERR_INVALID_ARG_VALUE'));
          check(() => expectCode(() => gpuarray.pad(upload(d, []), 1, mode), RangeError, 'ERR_INVALID_ARG_VALUE'));
        }
        // Several blocks: 2^20 + 3 elements.
        const n = 2 ** 20 + 3;
        const big = cyc(p, n, 0, 5);
        const bigPad = gpuarray.pad(upload(d, big), [3, 5], 'wrap');
        const want = [...big.slice(-3), ...big, ...big.slice(0, 5)];
        check(() => expectArray(bigPad, d, [n + 8], want, 0, '2^20 + 3 wrap'));
        const s = new driver.Stream();
        const viaStream = gpuarray.pad(a, [2, 1], { mode: 'symmetric', stream: s });
        s.synchronize();
        const wantS = padRef(v, [31], [[2, 1]], 'symmetric');
        check(() => expectArray(viaStream, d, wantS.shape, wantS.host, 0, 'on a stream'));
        // Errors, before any kernel.
        const m = layouts(d)[0].a;
        check(() => expectCode(() => gpuarray.pad(m, -1), RangeError, 'ERR_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.pad(m, [[1, 2], [3, -4], [0, 0]]), RangeError, 'ERR_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.pad(m, 1.5), TypeError, 'ERR_INVALID_ARG_TYPE'));
        check(() => expectCode(() => gpuarray.pad(m, [1, 2n] as never), TypeError, 'ERR_INVALID_ARG_TYPE'));
        check(() => expectCode(() => gpuarray.pad(m, [[1, 2], [3, 4]]), RangeError, 'ERR_SHAPE_MISMATCH'));
        check(() => expectCode(() => gpuarray.pad(m, [1, 2, 3]), RangeError, 'ERR_SHAPE_MISMATCH'));
        check(() => expectCode(() => gpuarray.pad(m, 1, 'linear_ramp' as never), TypeError, 'ERR_INVALID_ARG_VALUE'));
        check(() => expectCode(() => gpuarray.pad(m, 1, { mode: 'reflect', constantValues: 1 }), TypeError, 'ERR_INVALID_ARG_VALUE'));
        check(() => expectCode(() => gpuarray.pad(m, 1, { reflectType: 'odd' } as never), TypeError, 'ERR_INVALID_ARG_VALUE'));
        check(() => expectCode(() => gpuarray.pad(m, 1, { constantValues: [1, 2, 3] as never }), RangeError, 'ERR_SHAPE_MISMATCH'));
        check(() => expectCode(() => gpuarray.pad(m, 1, { constantValues: m as never }), TypeError, 'ERR_INVALID_ARG_TYPE'));
        check(() => expectCode(() => gpuarray.pad(m, 1, { mode: 'edge' }, {}), TypeError, 'ERR_INVALID_ARG_TYPE'));
        check.done();
      }));

      test('rot90: views, k in -1..5, other axes', () => cuda.tidy(() => {
        const check = softly();
        const AXES: Array<[number, number]> = [[0, 1], [1, 0], [1, 2], [-1, 0], [2, -3], [0, 2]];
        for (const { label, a, host } of layouts(d)) {
          for (const axes of AXES) {
            for (let kk = -1; kk <= 5; kk++) {
              const r = axes[0] === 0 && axes[1] === 1 && kk === 1 ? gpuarray.rot90(a) : gpuarray.rot90(a, kk, axes);
              const want = rot90Ref(host, S, kk, axes);
              check(() => expect([label, axes, kk, isView(r, a)]).toEqual([label, axes, kk, true]));
              check(() => expectArray(r, d, want.shape, want.host, 0, `${label} rot90(${kk}, ${JSON.stringify(axes)})`));
            }
          }
        }
        const m = upload(d, cyc(pool(d), 6, 0, 1), [2, 3]);
        const h = download(m);
        check(() => expectArray(gpuarray.rot90(m), d, [3, 2], [h[2], h[5], h[1], h[4], h[0], h[3]], 0, 'rot90 of [[a, b, c], [d, e, f]]'));
        check(() => expectArray(gpuarray.rot90(gpuarray.rot90(m, 3)), d, [2, 3], h, 0, 'rot90 ∘ rot90(3) = identity'));
        const a = layouts(d)[0].a;
        check(() => expectCode(() => gpuarray.rot90(a, 1, [0, 0]), RangeError, 'ERR_INVALID_ARG_VALUE'));
        check(() => expectCode(() => gpuarray.rot90(a, 1, [0, -3]), RangeError, 'ERR_INVALID_ARG_VALUE'));
        check(() => expectCode(() => gpuarray.rot90(a, 1, [0]), RangeError, 'ERR_INVALID_ARG_VALUE'));
        check(() => expectCode(() => gpuarray.rot90(a, 1, [0, 3]), RangeError, 'ERR_INVALID_ARG_VALUE')); // |0 - 3| = ndim: the same axis
        check(() => expectCode(() => gpuarray.rot90(a, 1, [0, 4]), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.rot90(upload(d, [p0(d)]), 1), RangeError, 'ERR_INVALID_ARG_VALUE'));
        check(() => expectCode(() => gpuarray.rot90(a, 1.5), TypeError, 'ERR_INVALID_ARG_TYPE'));
        check.done();
      }));

      test('dstack, columnStack, hsplit, vsplit, dsplit, atleast1d/2d/3d, broadcastTo, broadcastArrays', () => cuda.tidy(() => {
        const check = softly();
        const [c0, c1, , c3] = layouts(d);
        const planes = [c0, c1, c3].map((c) => ({ a: c.a.index(1), host: c.host.slice(20, 40) })); // [4, 5] each
        const wantD = concatRef(planes.map((p) => ({ host: p.host, shape: [4, 5, 1] })), 2);
        check(() => expectArray(gpuarray.dstack(planes.map((p) => p.a)), d, wantD.shape, wantD.host, 0, 'dstack of [4, 5] planes'));
        const line = { a: c3.a.index(0, 2), host: c3.host.slice(10, 15) }; // [5], strided
        check(() => expectArray(gpuarray.dstack([line.a, line.a]), d, [1, 5, 2], line.host.flatMap((x) => [x, x]), 0, 'dstack of 1-D'));
        const s0 = upload(d, [p0(d)]).reshape([]);
        check(() => expectArray(gpuarray.dstack([s0, s0]), d, [1, 1, 2], [p0(d), p0(d)], 0, 'dstack of 0-d'));
        const want3 = concatRef([c0, c1].map((c) => ({ host: c.host, shape: S })), 2);
        check(() => expectArray(gpuarray.dstack([c0.a, c1.a]), d, want3.shape, want3.host, 0, 'dstack of 3-D'));
        const col = { a: c1.a.index(':', 0, 0), host: [0, 1, 2].map((i) => c1.host[20 * i]) }; // [3]
        const twoCols = { a: c3.a.index(':', 0, '1:3'), host: [0, 1, 2].flatMap((i) => [c3.host[20 * i + 1], c3.host[20 * i + 2]]) }; // [3, 2]
        const colRef = { host: col.host, shape: [3, 1] };
        const wantC = concatRef([colRef, { host: twoCols.host, shape: [3, 2] }, colRef], 1);
        check(() => expectArray(gpuarray.columnStack([col.a, twoCols.a, col.a]), d, wantC.shape, wantC.host, 0, 'columnStack'));
        check(() => expectArray(gpuarray.columnStack([s0]), d, [1, 1], [p0(d)], 0, 'columnStack of 0-d'));
        check(() => expectCode(() => gpuarray.columnStack([col.a, line.a]), RangeError, 'ERR_SHAPE_MISMATCH'));
        // Splits: views along axis 1 (hsplit; axis 0 of 1-D), 0 (vsplit), 2 (dsplit).
        const splits: Array<[string, GPUArray[], number[], number, Array<[number, number]>]> = [
          ['hsplit(2)', gpuarray.hsplit(c1.a, 2), S, 1, [[0, 2], [2, 4]]],
          ['hsplit([1, 3])', gpuarray.hsplit(c3.a, [1, 3]), S, 1, [[0, 1], [1, 3], [3, 4]]],
          ['vsplit(3)', gpuarray.vsplit(c0.a, 3), S, 0, [[0, 1], [1, 2], [2, 3]]],
          ['dsplit([2])', gpuarray.dsplit(c1.a, [2]), S, 2, [[0, 2], [2, 5]]],
          ['hsplit(5) of 1-D', gpuarray.hsplit(line.a, 5), [5], 0, range(5).map((i): [number, number] => [i, i + 1])],
        ];
        for (const [what, parts, shape, ax, bounds] of splits) {
          const src = what.includes('1-D') ? line : what.startsWith('vsplit') ? c0 : what === 'hsplit([1, 3])' ? c3 : c1;
          check(() => expect([what, parts.length]).toEqual([what, bounds.length]));
          parts.forEach((part, i) => {
            const want = sliceRef(src.host, shape, ax, ...bounds[i]);
            check(() => expect([what, i, isView(part, src.a)]).toEqual([what, i, true]));
            check(() => expectArray(part, d, want.shape, want.host, 0, `${what}[${i}]`));
          });
        }
        check(() => expectCode(() => gpuarray.hsplit(c0.a, 3), RangeError, 'ERR_INVALID_ARG_VALUE'));
        check(() => expectCode(() => gpuarray.hsplit(s0, 1), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.vsplit(line.a, 1), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
        check(() => expectCode(() => gpuarray.dsplit(planes[0].a, 1), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
        // atleast*: views of the new shapes, or the arrays themselves.
        const m2 = planes[1];
        const cases: Array<[string, GPUArray, GPUArray, number[], V[]]> = [
          ['atleast1d(0-d)', gpuarray.atleast1d(s0), s0, [1], [p0(d)]],
          ['atleast2d(0-d)', gpuarray.atleast2d(s0), s0, [1, 1], [p0(d)]],
          ['atleast3d(0-d)', gpuarray.atleast3d(s0), s0, [1, 1, 1], [p0(d)]],
          ['atleast2d(1-D)', gpuarray.atleast2d(line.a), line.a, [1, 5], line.host],
          ['atleast3d(1-D)', gpuarray.atleast3d(line.a), line.a, [1, 5, 1], line.host],
          ['atleast3d(2-D)', gpuarray.atleast3d(m2.a), m2.a, [4, 5, 1], m2.host],
        ];
        for (const [what, r, src, shape, want] of cases) {
          check(() => expect([what, isView(r, src)]).toEqual([what, true]));
          check(() => expectArray(r, d, shape, want, 0, what));
        }
        check(() => expect(gpuarray.atleast1d(line.a)).toBe(line.a));
        check(() => expect(gpuarray.atleast2d(m2.a)).toBe(m2.a));
        check(() => expect(gpuarray.atleast3d(c1.a)).toBe(c1.a));
        const several = gpuarray.atleast2d(s0, line.a, m2.a);
        check(() => expect(several.map((x) => x.shape)).toEqual([[1, 1], [1, 5], [4, 5]]));
        check(() => expect(gpuarray.atleast1d()).toEqual([]));
        // Broadcasting: views with stride 0, or the arrays themselves when the shapes agree.
        const colv = col.a.reshape(3, 1);
        const [bx, by] = gpuarray.broadcastArrays(colv, line.a);
        check(() => expectArray(bx, d, [3, 5], range(15).map((i) => col.host[Math.floor(i / 5)]), 0, 'broadcastArrays x'));
        check(() => expectArray(by, d, [3, 5], range(15).map((i) => line.host[i % 5]), 0, 'broadcastArrays y'));
        check(() => expect([isView(bx, col.a), isView(by, line.a), bx.strides[1], by.strides[0]]).toEqual([true, true, 0, 0]));
        const same = gpuarray.broadcastArrays(c0.a, c1.a);
        check(() => expect(same[0] === c0.a && same[1] === c1.a).toBe(true));
        check(() => expectArray(gpuarray.broadcastTo(line.a, [2, 5]), d, [2, 5], [...line.host, ...line.host], 0, 'broadcastTo'));
        check(() => expectCode(() => gpuarray.broadcastArrays(c0.a, line.a.index('1:')), RangeError, 'ERR_SHAPE_MISMATCH'));
        check(() => expectCode(() => gpuarray.broadcastTo(c0.a, [4, 5]), RangeError, 'ERR_SHAPE_MISMATCH'));
        check.done();
      }));
    });
  }

  describe('average', () => {
    const TOL: Partial<Record<DTypeName, number>> = { float16: 2e-3, float32: 2e-6, complex64: 4e-6, float64: 1e-14, complex128: 1e-14 };
    const PAIRS: Array<[DTypeName, DTypeName, DTypeName]> = [ // a, weights, NumPy's result dtype
      ['float32', 'float32', 'float32'], ['float32', 'int32', 'float64'], ['float64', 'float16', 'float64'], ['int32', 'int32', 'float64'],
      ['uint8', 'bool', 'float64'], ['bool', 'float16', 'float64'], ['int64', 'float32', 'float64'], ['complex64', 'float32', 'complex64'],
      ['complex64', 'float64', 'complex128'], ['float16', 'float16', 'float16'], ['float16', 'float32', 'float32'], ['float16', 'int8', 'float16'],
    ];
    for (const [da, dw, rd] of PAIRS) {
      test(`${da} with ${dw} weights → ${rd}: axis, weights along axes, returned, keepdims, layouts`, () => cuda.tidy(() => {
        const check = softly();
        const tol = TOL[rd] ?? 0;
        const vals = data(da, 120);
        const base = upload(da, vals, [3, 4, 10]);
        const a = base.index(':', '::-1', '1::2'); // [3, 4, 5], strided
        const host = viewOf(vals, S, [40, -10, 2], 31);
        const wv = range(60).map((i) => (dw === 'bool' ? (i % 4 ? 1 : 0) : (i % 4) + 1));
        const wFull = upload(dw, wv.map((x) => store(dw, x)), S);
        const at = (i: number) => [Math.floor(i / 20), Math.floor(i / 5) % 4, i % 5];
        /** Output groups for reduced axes `axes` (C order of the kept axes). */
        const groups = (axes: number[]) => {
          const kept = [0, 1, 2].filter((x) => !axes.includes(x));
          const m = new Map<string, number[]>();
          for (let i = 0; i < 60; i++) {
            const key = kept.map((x) => at(i)[x]).join(',');
            if (!m.has(key)) m.set(key, []);
            m.get(key)!.push(i);
          }
          return [...m.values()];
        };
        const shapeOf = (axes: number[], keep: boolean) => S.flatMap((n, x) => (axes.includes(x) ? (keep ? [1] : []) : [n]));
        // Weights of a's shape, over all axes, one axis, two axes.
        for (const axes of [[0, 1, 2], [1], [2, 0]]) {
          for (const keepdims of [false, true]) {
            const axis = axes.length === 3 ? undefined : axes.length === 1 ? axes[0] : axes;
            const want = avgRef(host, (i) => wv[i], groups(axes), rd);
            const [avg, wsum] = gpuarray.average(a, { axis, weights: wFull, returned: true, keepdims });
            check(() => expectArray(avg, rd, shapeOf(axes, keepdims), want.avg, tol, `same-shape weights, axis ${JSON.stringify(axis)}`));
            check(() => expectArray(wsum, rd, shapeOf(axes, keepdims), want.wsum, tol, `sum of weights, axis ${JSON.stringify(axis)}`));
          }
        }
        // Weights along the averaged axes only: 1-D along axis 1, [5, 3] along axes [2, 0].
        const w1 = upload(dw, [1, 3, 2, 4].map((x) => store(dw, dw === 'bool' ? x % 2 : x)));
        const w1v = (i: number) => Number(dw === 'bool' ? [1, 3, 2, 4][at(i)[1]] % 2 : [1, 3, 2, 4][at(i)[1]]);
        const want1 = avgRef(host, w1v, groups([1]), rd);
        check(() => expectArray(gpuarray.average(a, { axis: -2, weights: w1 }), rd, [3, 5], want1.avg, tol, 'weights along axis 1'));
        const [avg1, sum1] = gpuarray.average(a, { axis: 1, weights: w1, returned: true, keepdims: true });
        check(() => expectArray(avg1, rd, [3, 1, 5], want1.avg, tol, 'weights along axis 1, keepdims'));
        check(() => expectArray(sum1, rd, [3, 1, 5], want1.wsum, tol, 'their sum, broadcast to the result'));
        check(() => expect(sum1.flags.cContiguous).toBe(true));
        const w2v = range(15).map((i) => store(dw, dw === 'bool' ? (i % 3 ? 1 : 0) : (i % 5) + 1));
        const w2 = upload(dw, w2v, [5, 3]); // w2[k, i] weighs a[i, :, k]
        const want2 = avgRef(host, (i) => Number(w2v[at(i)[2] * 3 + at(i)[0]]), groups([0, 2]), rd);
        check(() => expectArray(gpuarray.average(a, { axis: [2, 0], weights: w2 }), rd, [4], want2.avg, tol, 'weights along axes [2, 0]'));
        check(() => expectCode(() => gpuarray.average(a, { axis: [0, 2], weights: w2 }), RangeError, 'ERR_SHAPE_MISMATCH'));
        check(() => expectCode(() => gpuarray.average(a, { weights: w1 }), RangeError, 'ERR_SHAPE_MISMATCH'));
        check(() => expectCode(() => gpuarray.average(a, { axis: 0, weights: w1 }), RangeError, 'ERR_SHAPE_MISMATCH'));
        check.done();
      }));
    }

    test('no weights: mean; returned gives the count in the mean dtype; JS weights; zero-sum weights; errors', () => cuda.tidy(() => {
      const check = softly();
      for (const [d, md] of [['int32', 'float64'], ['float16', 'float16'], ['complex64', 'complex64'], ['bool', 'float64']] as const) {
        const vals = data(d, 24);
        const a = upload(d, vals, [2, 3, 4]);
        const want = avgRef(vals, () => 1, range(2).map((i) => range(12).map((j) => i * 12 + j)), md);
        const [avg, count] = gpuarray.average(a, { axis: [1, 2], returned: true });
        check(() => expectArray(avg, md, [2], want.avg, TOL[md] ?? 1e-15, `${d} mean`));
        check(() => expectArray(count, md, [2], [store(md, 12), store(md, 12)], 0, `${d} count`));
        const [all, n] = gpuarray.average(a, { returned: true, keepdims: true });
        check(() => expectArray(n, md, [1, 1, 1], [store(md, 24)], 0, `${d} count of all`));
        check(() => expect(all.shape).toEqual([1, 1, 1]));
        check(() => expectArray(gpuarray.average(a), md, [], avgRef(vals, () => 1, [range(24)], md).avg, TOL[md] ?? 1e-15, `${d} average()`));
      }
      const m = upload('float32', [1, 2, 3, 4, 5, 6], [2, 3]);
      check(() => expectArray(gpuarray.average(m, { axis: 1, weights: [1, 0, 3] }), 'float64', [2], [2.5, 5.5])); // JS numbers: float64
      check(() => expectArray(gpuarray.average(m, { axis: 0, weights: [1, 3] }), 'float64', [3], [3.25, 4.25, 5.25]));
      // Zero-sum weights: the division's NaN or ±Inf (NumPy raises ZeroDivisionError).
      const z = gpuarray.average(upload('float64', [1, 2, 1, 1], [2, 2]), { axis: 1, weights: upload('float64', [1, -1]) });
      check(() => expectArray(z, 'float64', [2], [-Infinity, NaN]));
      check(() => expectCode(() => gpuarray.average(m, { axis: 2 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
      check(() => expectCode(() => gpuarray.average(m, { axis: [1, 1] }), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
      check(() => expectCode(() => gpuarray.average(m, { returned: 1 } as never), TypeError, 'ERR_INVALID_ARG_TYPE'));
      check(() => expectCode(() => gpuarray.average(m, { dtype: 'float64' } as never), TypeError, 'ERR_INVALID_ARG_VALUE'));
      check(() => expectCode(() => gpuarray.average(m, { weights: 'x' as never }), TypeError, 'ERR_INVALID_ARG_TYPE'));
      check.done();
    }));

    test('NaN and ±Inf propagate', () => cuda.tidy(() => {
      const a = upload('float32', [1, NaN, 2, Infinity, 3, 4], [3, 2]);
      expectArray(gpuarray.average(a, { axis: 1, weights: upload('float32', [1, 2]) }), 'float32', [3], [NaN, Infinity, Math.fround(11 / 3)], 2e-7);
    }));
  });

  describe('logspace, geomspace', () => {
    const f64Tol = 1e-15; // the GPU's pow (≤ 2 ulps) against JS's Math.pow: a few ulps
    test("logspace: NumPy's float64 values, endpoint, base, num 0 and 1, dtypes", () => cuda.tidy(() => {
      const check = softly();
      const CASES: Array<[number, number, number, { endpoint?: boolean; base?: number }]> = [
        [0, 3, 4, {}], [-2, 5, 50, {}], [2, 3, 7, { endpoint: false }], [0, 10, 11, { base: 2 }], [1, -4, 9, { base: 0.5 }],
        [0.25, 0.25, 5, {}], [3, 4, 1, {}], [3, 4, 1, { endpoint: false }], [1, 2, 0, {}], [-300, 300, 601, {}],
        [0, 1, 2 ** 20 + 3, { base: Math.E }],
      ];
      for (const [start, stop, num, o] of CASES) {
        const want = logspaceRef(start, stop, num, o.endpoint ?? true, o.base ?? 10);
        check(() => expectArray(gpuarray.logspace(start, stop, num, o), 'float64', [num], want, f64Tol, `logspace(${start}, ${stop}, ${num}, ${JSON.stringify(o)})`));
      }
      check(() => expectArray(gpuarray.logspace(0, 3, 4), 'float64', [4], [1, 10, 100, 1000], f64Tol));
      check(() => expectArray(gpuarray.logspace(0, 3, 4, { base: -2 }), 'float64', [4], [1, -2, 4, -8], f64Tol));
      check(() => expectArray(gpuarray.logspace(0.5, 1.5, 3, { base: -2 }), 'float64', [3], [NaN, -2, NaN], f64Tol)); // pow(-2, y): NaN unless y is an integer
      const w = logspaceRef(-3, 4, 15);
      check(() => expectArray(gpuarray.logspace(-3, 4, 15, { dtype: 'float32' }), 'float32', [15], w.map(Math.fround), 2 ** -23));
      check(() => expectArray(gpuarray.logspace(-3, 4, 15, { dtype: 'float16' }), 'float16', [15], w.map((x) => store('float16', x)), 2 ** -10));
      check(() => expectArray(gpuarray.logspace(-3, 4, 15, { dtype: 'complex64' }), 'complex64', [15], w.map((x) => ({ re: Math.fround(x), im: 0 })),
        2 ** -23));
      const wi = logspaceRef(0.5, 3.5, 4); // 3.16, 31.6, 316.2, 3162.3: far from an integer, truncated as NumPy's astype
      check(() => expectArray(gpuarray.logspace(0.5, 3.5, 4, { dtype: 'int32' }), 'int32', [4], wi.map(Math.trunc)));
      const s = new driver.Stream();
      const viaStream = gpuarray.logspace(0, 2, 3, { stream: s });
      s.synchronize();
      check(() => expectArray(viaStream, 'float64', [3], [1, 10, 100], f64Tol));
      check.done();
    }));

    test('geomspace: ends exact, negative, descending, endpoint, dtypes', () => cuda.tidy(() => {
      const check = softly();
      const CASES: Array<[number, number, number, boolean]> = [
        [1, 1000, 4, true], [-1, -1000, 4, true], [1000, 1, 4, true], [2, 5, 10, false], [1, 2, 1, true], [1, 2, 1, false], [3, 7, 0, true],
        [1e-300, 1e300, 61, true], [-0.5, -(2 ** 40), 41, true], [0.3, 7.1, 2 ** 20 + 3, true], [5, 5, 6, true],
      ];
      for (const [start, stop, num, endpoint] of CASES) {
        const want = geomspaceRef(start, stop, num, endpoint);
        const r = gpuarray.geomspace(start, stop, num, { endpoint });
        check(() => expectArray(r, 'float64', [num], want, f64Tol, `geomspace(${start}, ${stop}, ${num}, ${endpoint})`));
        if (num > 0) {
          const got = download(r) as number[];
          check(() => expect([start, got[0]]).toEqual([start, start])); // exactly
          if (endpoint && num > 1) check(() => expect([stop, got[num - 1]]).toEqual([stop, stop]));
        }
      }
      check(() => expectArray(gpuarray.geomspace(-1, -16, 5), 'float64', [5], [-1, -2, -4, -8, -16], f64Tol));
      const w = geomspaceRef(1, 256, 9);
      check(() => expectArray(gpuarray.geomspace(1, 256, 9, { dtype: 'float32' }), 'float32', [9], w.map(Math.fround), 2 ** -23));
      check(() => expectArray(gpuarray.geomspace(1, 256, 9, { dtype: 'float16' }), 'float16', [9], w.map(half), 2 ** -10));
      check(() => expectArray(gpuarray.geomspace(2, 512, 2, { dtype: 'int64' }), 'int64', [2], [2n, 512n]));
      check(() => expectArray(gpuarray.geomspace(-2, -5, 2, { dtype: 'complex128' }), 'complex128', [2], [{ re: -2, im: 0 }, { re: -5, im: 0 }]));
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
describeMulti(`shape functions (more) on two devices${deviceCount >= 2 ? '' : ` [skipped: needs 2 GPUs, ${deviceCount} visible]`}`, () => {
  test('arrays of two devices, or off the current one → ERR_DEVICE_MISMATCH; views work anywhere', () => cuda.tidy(() => {
    const a = gpuarray.toGpu(Float32Array.from([1, 2, 3, 4]), { device: 0, shape: [2, 2] });
    const b = gpuarray.toGpu(Float32Array.from([1, 2, 3, 4]), { device: 1, shape: [2, 2] });
    for (const f of [
      () => gpuarray.pad(b, 1), () => gpuarray.dstack([a, b]), () => gpuarray.columnStack([a, b]), () => gpuarray.average(b),
      () => gpuarray.average(a, { weights: b }),
    ]) {
      expectCode(f, TypeError, 'ERR_DEVICE_MISMATCH');
    }
    expect(gpuarray.rot90(b).device).toBe(1);
    expect(gpuarray.hsplit(b, 2).map((p) => p.device)).toEqual([1, 1]);
    expect(Array.from(cuda.withDevice(1, () => gpuarray.pad(b.index(0), 1)).get() as Float32Array)).toEqual([0, 1, 2, 0]);
  }));
});

