/**
 * Every built-in reduction kernel compiles with NVRTC (no GPU needed): each reduction × each input
 * dtype it supports, every variant (rows scalar/vector, warp, cols scalar/vector; 32- and 64-bit
 * offsets; the nan forms, nanargmin/nanargmax included, in five of them), for sm_75 (PTX) and sm_90
 * (CUBIN). One module per input dtype. Also what the nanarg kernels are made of (no GPU needed).
 */
import { DTYPES, DType } from '../lib';
import { compileBoth, expectEntries, startAll } from './helpers';
import { builtinSpec } from '../lib/array/reduction_specs';
import { PREAMBLE } from '../lib/engine/templates/preamble';
import { REDUCE_PREAMBLE, ReduceSpec, ReduceVariant, reduceKernel } from '../lib/engine/templates/reduction';

const VARIANTS: ReduceVariant[] = [
  { kind: 'rows', nk: 1, nr: 1, wide: false, e: 1 },
  { kind: 'rows', nk: 2, nr: 3, wide: true, e: 1 },
  { kind: 'rows', nk: 1, nr: 1, wide: false, e: 4 },
  { kind: 'warp', nk: 1, nr: 2, wide: false, e: 1 },
  { kind: 'cols', nk: 2, nr: 1, wide: false, e: 1 },
  { kind: 'cols', nk: 1, nr: 2, wide: true, e: 1 },
  { kind: 'cols', nk: 2, nr: 1, wide: false, e: 4 },
  { kind: 'cols', nk: 1, nr: 2, wide: true, e: 2 },
];

const sumOf = (d: DType) => (d.kind === 'b' || d.kind === 'i' ? DTYPES.int64 : d.kind === 'u' ? DTYPES.uint64 : d);
const meanOf = (d: DType) => (d.kind === 'f' || d.kind === 'c' ? (d.name === 'float16' ? DTYPES.float32 : d) : DTYPES.float64);
const realOf = (d: DType) => (d.name === 'complex64' ? DTYPES.float32 : d.name === 'complex128' ? DTYPES.float64 : d);

function specs(d: DType): ReduceSpec[] {
  const m = meanOf(d);
  return [
    builtinSpec('sum', [d], sumOf(d), sumOf(d)),
    builtinSpec('prod', [d], sumOf(d), sumOf(d)),
    builtinSpec('min', [d], d, d),
    builtinSpec('max', [d], d, d),
    builtinSpec('any', [d], DTYPES.bool, DTYPES.bool),
    builtinSpec('all', [d], DTYPES.bool, DTYPES.bool),
    builtinSpec('mean', [d], m, d.name === 'float16' ? d : m),
    builtinSpec('var', [d], m, realOf(m)),
    builtinSpec('std', [d], m, realOf(m)),
    builtinSpec('argmin', [d], d, DTYPES.int64),
    builtinSpec('argmax', [d], d, DTYPES.int64),
    builtinSpec('sum', [d, d], sumOf(d), d.kind === 'b' ? DTYPES.bool : sumOf(d)),
    builtinSpec('sum', [d], sumOf(d), sumOf(d), DTYPES.int32),
    builtinSpec('max', [d], d, d, DTYPES.int64),
    builtinSpec('sum', [d, d], sumOf(d), sumOf(d), DTYPES.uint32),
  ];
}

/** The NaN-skipping forms (equal to the plain ones for integers and bool): fewer variants. */
const NAN_VARIANTS = [VARIANTS[0], VARIANTS[2], VARIANTS[3], VARIANTS[5], VARIANTS[6]];
function nanSpecs(d: DType): ReduceSpec[] {
  const m = meanOf(d);
  return [
    builtinSpec('nansum', [d], sumOf(d), sumOf(d)),
    builtinSpec('nanprod', [d], sumOf(d), sumOf(d)),
    builtinSpec('nanmin', [d], d, d),
    builtinSpec('nanmax', [d], d, d),
    builtinSpec('nanmean', [d], m, d.name === 'float16' ? d : m),
    builtinSpec('nanvar', [d], m, realOf(m)),
    builtinSpec('nanstd', [d], m, realOf(m)),
    builtinSpec('nanargmin', [d], d, DTYPES.int64),
    builtinSpec('nanargmax', [d], d, DTYPES.int64),
  ];
}

describe('generated reduction kernels compile (NVRTC, no GPU)', () => {
  const built = startAll(Object.values(DTYPES), async (d) => {
    const parts = [PREAMBLE, REDUCE_PREAMBLE];
    const names: string[] = [];
    const all = [...specs(d).map((s) => [s, VARIANTS] as const), ...nanSpecs(d).map((s) => [s, NAN_VARIANTS] as const)];
    for (const [spec, variants] of all) {
      for (const v of variants) {
        if (v.e > 1 && !spec.vec) continue;
        const { source, name } = reduceKernel(spec, v);
        parts.push(source);
        names.push(name);
      }
    }
    return { names, r: await compileBoth(parts.join('\n')) };
  });
  test.each(Object.values(DTYPES).map((d) => [d.name, d] as const))('%s: every reduction, all variants, and the nan forms', async (_n, d) => {
    const { names, r } = await built(d);
    expect(new Set(names).size).toBe(names.length);
    expectEntries(r, names);
  });
});

describe('nanargmin/nanargmax specs', () => {
  test('floats and complex: NaN maps to the neutral (index INT64_MAX), an all-NaN slice stores -1; ints: argmin/argmax', () => {
    for (const d of [DTYPES.float16, DTYPES.bfloat16, DTYPES.float32, DTYPES.float64, DTYPES.complex64, DTYPES.complex128]) {
      for (const op of ['nanargmin', 'nanargmax']) {
        const s = builtinSpec(op, [d], d, DTYPES.int64);
        expect(s.map).toContain('nc_isnan(');
        expect(s.map).toContain('9223372036854775807LL');
        expect(s.post).toContain('-1LL');
        expect(s.reduce).not.toContain('nc_isnan'); // no NaN reaches the accumulator
        expect(s.vec?.map).toContain('nc_isnan(nc_x0)');
      }
    }
    for (const d of [DTYPES.bool, DTYPES.int8, DTYPES.uint64]) {
      const nan = builtinSpec('nanargmax', [d], d, DTYPES.int64), plain = builtinSpec('argmax', [d], d, DTYPES.int64);
      const parts = (x: typeof nan) => [x.map, x.reduce, x.post, x.neutral].map((c) => c.split(x.name).join('NAME'));
      expect(parts(nan)).toEqual(parts(plain));
    }
  });
});
