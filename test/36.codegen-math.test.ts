/**
 * Every cumath kernel compiles with NVRTC (no GPU needed): each function × each dtype NumPy has a
 * loop for (and the TypeError where it has none), array and scalar operands, fastMath variants,
 * the two-output frexp/modf, in every elementwise variant, for sm_75 (PTX) and sm_90 (CUBIN).
 * Also checks the type resolution (NumPy 2 loops) against a table written out here.
 */
import { DTYPES, DType, DTypeName } from '../lib';
import { compileBoth, expectEntries, startAll } from './helpers';
import { MATH, MATH_PREAMBLE, MathPlan, mathPlan } from '../lib/array/cumath';
import { MATH_MORE_PREAMBLE } from '../lib/array/cumath_device';
import { ElementwiseSpec, Variant, elementwiseKernel } from '../lib/engine/templates/elementwise';
import { PREAMBLE } from '../lib/engine/templates/preamble';

const VARIANTS: Variant[] = [
  { kind: 'contiguous', e: 4, wide: false },
  { kind: 'strided', e: 4, wide: false, ndim: 2, inner: ['unit', 'unit', 'zero', 'unit'] },
  { kind: 'strided', e: 1, wide: true, ndim: 3, inner: ['any', 'any', 'any', 'any'] },
  { kind: 'tiled', e: 1, wide: false, ndim: 2, tiled: [true, false] },
];
const NAMES = Object.keys(MATH);
const FLOAT_OF: Record<string, DTypeName> = {
  bool: 'float16', int8: 'float16', uint8: 'float16', int16: 'float32', uint16: 'float32', int32: 'float64',
  uint32: 'float64', int64: 'float64', uint64: 'float64', float16: 'float16', bfloat16: 'bfloat16', float32: 'float32', float64: 'float64',
};
const INEXACT = ['exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sqrt', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan',
  'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh'];

/** NumPy 2's result dtypes, written out independently of lib/array/cumath.ts (null: TypeError). */
function expectedOuts(name: string, d: DTypeName): DTypeName[] | null {
  const k = DTYPES[d].kind, c = k === 'c', int = k === 'i' || k === 'u', b = k === 'b';
  if (['isnan', 'isinf', 'isfinite'].includes(name)) return ['bool'];
  if (INEXACT.includes(name)) return [c ? d : FLOAT_OF[d]];
  switch (name) {
    case 'square': case 'reciprocal': case 'conj': return [b ? 'int8' : d];
    case 'fmax': case 'fmin': case 'nanToNum': return [d];
    case 'sinc': return [c || k === 'f' ? d : 'float64'];
    case 'angle': return [d === 'complex64' ? 'float32' : d === 'complex128' || b ? 'float64' : FLOAT_OF[d]];
    case 'gcd': case 'lcm': return c || k === 'f' ? null : [b ? 'int8' : d];
    default: // the others below
  }
  if (c && name !== 'round' && name !== 'sign') return null; // fabs ceil floor trunc cbrt fmod atan2 hypot frexp modf
  switch (name) {
    case 'ceil': case 'floor': case 'trunc': return [int || b ? d : FLOAT_OF[d]];
    case 'round': return [int || c ? d : FLOAT_OF[d]];
    case 'sign': return b ? null : [int || c ? d : FLOAT_OF[d]];
    case 'fmod': return [b ? 'int8' : int ? d : FLOAT_OF[d]];
    case 'frexp': return [FLOAT_OF[d], 'int32'];
    case 'modf': return [FLOAT_OF[d], FLOAT_OF[d]];
    default: return [FLOAT_OF[d]]; // fabs cbrt atan2 hypot ldexp rad2deg deg2rad copysign logaddexp(2) heaviside nextafter
  }
}

function planOrNull(name: string, types: Parameters<typeof mathPlan>[1], fast = false): MathPlan | null {
  try {
    return mathPlan(name, types, fast);
  } catch (e) {
    expect((e as { code?: string }).code).toBe('ERR_INVALID_DTYPE');
    expect(e).toBeInstanceOf(TypeError);
    return null;
  }
}

/** Specs for every function on arrays of dtype d (+ a scalar second operand, + fastMath). */
function specs(d: DType): ElementwiseSpec[] {
  const out: ElementwiseSpec[] = [];
  const add = (tag: string, plan: MathPlan, scalar: boolean[], stored: DType[] = [d]): void => {
    const sc = (i: number): boolean => scalar[i] ?? true; // the row's parameters (angle, nanToNum) are scalars
    out.push({
      name: `m_${tag}`, body: plan.body,
      inputs: plan.computes.map((c, i) => ({ dtype: sc(i) ? c : stored[i], compute: c, scalar: sc(i) })),
      outputs: plan.outs.map((o) => ({ dtype: o, compute: o })),
    });
  };
  for (const name of NAMES) {
    const def = MATH[name];
    if (name === 'ldexp') {
      if (d.kind === 'c') continue;
      for (const e of ['int8', 'int32', 'int64', 'uint32'] as const) add(`ldexp_${e}`, mathPlan(name, [d, DTYPES[e]]), [false, false], [d, DTYPES[e]]);
      add('ldexp_s', mathPlan(name, [d, 3]), [false, true]);
      if (d.kind !== 'f' && d.name !== 'uint64') add('ldexp_x', mathPlan(name, [2.5, d]), [true, false], [DTYPES.float64, d]);
      continue;
    }
    const plan = planOrNull(name, def.nin === 1 ? [d] : [d, d]);
    if (!plan) continue;
    add(name, plan, def.nin === 1 ? [false] : [false, false], def.nin === 1 ? [d] : [d, d]);
    if (def.nin === 2) add(`${name}_s`, plan, [false, true]);
    if (def.fast && (d.name === 'float32' || d.name === 'float16' || d.name === 'bfloat16')) add(`${name}_fast`, mathPlan(name, [d], true), [false]);
  }
  return out;
}

function moduleSource(d: DType): { source: string; names: string[] } {
  const names: string[] = [];
  const parts = [PREAMBLE, MATH_PREAMBLE, MATH_MORE_PREAMBLE];
  for (const spec of specs(d)) {
    const arrays = spec.outputs.length + spec.inputs.filter((x) => !x.scalar).length;
    const inputs = spec.inputs.filter((x) => !x.scalar).length;
    for (const v of VARIANTS) {
      const variant = v.inner ? { ...v, inner: [...v.inner, 'any' as const].slice(0, arrays) }
        : v.tiled ? { ...v, tiled: v.tiled.slice(0, inputs) } : v;
      const { source, name } = elementwiseKernel(spec, variant);
      names.push(name);
      parts.push(source);
    }
  }
  return { source: parts.join('\n'), names };
}

describe('cumath type resolution (NumPy 2 loops)', () => {
  for (const name of NAMES) {
    test(name, () => {
      for (const d of Object.values(DTYPES)) {
        const types = MATH[name].nin === 1 ? [d] : name === 'ldexp' ? [d, DTYPES.int32] : [d, d];
        const plan = planOrNull(name, types);
        const want = expectedOuts(name, d.name);
        expect([d.name, plan ? plan.outs.map((o) => o.name) : null]).toEqual([d.name, want]);
      }
    });
  }
  test('ldexp exponents: integers only, uint64 refused; weak x is float64', () => {
    expect(mathPlan('ldexp', [DTYPES.float32, DTYPES.int64]).computes.map((c) => c.name)).toEqual(['float32', 'int64']);
    expect(mathPlan('ldexp', [DTYPES.float32, DTYPES.uint8]).computes.map((c) => c.name)).toEqual(['float32', 'int32']);
    expect(mathPlan('ldexp', [2.5, DTYPES.int16]).outs[0].name).toBe('float64');
    for (const e of [DTYPES.float32, DTYPES.uint64, DTYPES.complex64, 2.5] as const) expect(planOrNull('ldexp', [DTYPES.float32, e])).toBeNull();
  });
  test('binary functions promote like NumPy 2 (weak scalars)', () => {
    expect(mathPlan('atan2', [DTYPES.float32, 2.5]).outs[0].name).toBe('float32');
    expect(mathPlan('atan2', [DTYPES.int8, DTYPES.uint8]).outs[0].name).toBe('float32');
    expect(mathPlan('fmod', [DTYPES.int16, 3]).outs[0].name).toBe('int16');
    expect(mathPlan('hypot', [DTYPES.float16, DTYPES.float64]).outs[0].name).toBe('float64');
    // bfloat16 keeps its loop (computed in float); with float16 it is float32, with integers bfloat16 (PyTorch).
    expect(mathPlan('sin', [DTYPES.bfloat16]).outs[0].name).toBe('bfloat16');
    expect(mathPlan('sin', [DTYPES.bfloat16]).body).toContain('sinf(');
    expect(mathPlan('atan2', [DTYPES.bfloat16, DTYPES.float16]).outs[0].name).toBe('float32');
    expect(mathPlan('atan2', [DTYPES.bfloat16, DTYPES.int32]).outs[0].name).toBe('bfloat16');
    expect(mathPlan('atan2', [DTYPES.bfloat16, 2.5]).outs[0].name).toBe('bfloat16');
    expect(mathPlan('fmod', [DTYPES.bfloat16, 3]).outs[0].name).toBe('bfloat16');
  });
  test('fastMath uses the intrinsics for float32/float16/bfloat16 only', () => {
    expect(mathPlan('sin', [DTYPES.float32], true).body).toContain('__sinf');
    expect(mathPlan('sin', [DTYPES.float16], true).body).toContain('__sinf');
    expect(mathPlan('sin', [DTYPES.bfloat16], true).body).toContain('__sinf');
    expect(mathPlan('sin', [DTYPES.float32]).body).toContain('sinf(');
    expect(mathPlan('sin', [DTYPES.float32]).body).not.toContain('__');
    expect(mathPlan('exp', [DTYPES.float64], true).body).toBe('r0 = exp(x0);');
    expect(mathPlan('log', [DTYPES.int16], true).body).toContain('__logf');
  });
  test('rad2deg/deg2rad: NumPy\'s constants in the compute type (float: 180.0f / NPY_PIf); degrees/radians are aliases', () => {
    expect(mathPlan('rad2deg', [DTYPES.float32]).body).toBe('r0 = x0 * 57.2957763671875f;');
    expect(mathPlan('rad2deg', [DTYPES.float16]).body).toBe('r0 = x0 * 57.2957763671875f;');
    expect(mathPlan('rad2deg', [DTYPES.float64]).body).toBe(`r0 = x0 * ${180 / Math.PI};`);
    expect(mathPlan('deg2rad', [DTYPES.bfloat16]).body).toBe(`r0 = x0 * ${Math.fround(Math.fround(Math.PI) / 180)}f;`);
    expect(mathPlan('deg2rad', [DTYPES.int32]).body).toBe(`r0 = x0 * ${Math.PI / 180};`);
    expect(mathPlan('degrees', [DTYPES.int8])).toEqual(mathPlan('rad2deg', [DTYPES.int8]));
    expect(mathPlan('radians', [DTYPES.float32])).toEqual(mathPlan('deg2rad', [DTYPES.float32]));
    expect(planOrNull('degrees', [DTYPES.complex64])).toBeNull();
    expect(mathPlan('copysign', [DTYPES.int16, DTYPES.int8]).outs[0].name).toBe('float32');
    expect(mathPlan('copysign', [DTYPES.bool, DTYPES.bool]).outs[0].name).toBe('float16');
    expect(mathPlan('copysign', [DTYPES.float32, -1]).body).toBe('r0 = copysignf(x0, x1);');
    expect(mathPlan('atanh', [DTYPES.complex64]).body).toBe('r0 = nc_catanh(x0);');
  });
  test('square … nanToNum: NumPy\'s loops, bodies and scalar parameters', () => {
    const names = (ds: DType[]): string[] => ds.map((x) => x.name);
    expect(mathPlan('nextafter', [DTYPES.float16]).body).toBe('r0 = nc_nextafter16<false>(x0, x1);');
    expect(mathPlan('nextafter', [DTYPES.bfloat16]).body).toBe('r0 = nc_nextafter16<true>(x0, x1);');
    expect(mathPlan('nextafter', [DTYPES.float32, DTYPES.float32]).body).toBe('r0 = nextafterf(x0, x1);');
    expect(mathPlan('nextafter', [DTYPES.int32, 1]).body).toBe('r0 = nextafter(x0, x1);');
    // angle: one parameter, the factor, in the part dtype (float32 for float16: not rounded to half)
    expect([names(mathPlan('angle', [DTYPES.complex64]).computes), mathPlan('angle', [DTYPES.complex64]).params]).toEqual([['complex64', 'float32'], [1]]);
    expect(names(mathPlan('angle', [DTYPES.float16]).computes)).toEqual(['float16', 'float32']);
    expect(names(mathPlan('angle', [DTYPES.complex128]).outs)).toEqual(['float64']);
    expect(mathPlan('angle', [DTYPES.float32]).body).toBe('r0 = atan2f(0.0f, x0) * x1;');
    // nanToNum: NaN, +Inf, -Inf values in the dtype of the values they replace
    const h = mathPlan('nanToNum', [DTYPES.float16]);
    expect([names(h.computes), h.params]).toEqual([['float16', 'float16', 'float16', 'float16'], [0, 65504, -65504]]);
    const z = mathPlan('nanToNum', [DTYPES.complex128]);
    expect([names(z.computes), z.params]).toEqual([['complex128', 'float64', 'float64', 'float64'], [0, Number.MAX_VALUE, -Number.MAX_VALUE]]);
    expect(mathPlan('nanToNum', [DTYPES.bfloat16]).params[1]).toBe(3.3895313892515355e38);
    expect(mathPlan('nanToNum', [DTYPES.complex64]).params[2]).toBe(-3.4028234663852886e38);
    const i = mathPlan('nanToNum', [DTYPES.int32]);
    expect([names(i.computes), i.params, i.body]).toEqual([['int32'], [], 'r0 = x0;']);
    // integer arithmetic through unsigned types (no signed overflow)
    expect(mathPlan('gcd', [DTYPES.int8, DTYPES.int8]).body).toBe('r0 = (signed char)nc_gcdu(nc_uabs<unsigned>(x0), nc_uabs<unsigned>(x1));');
    expect(mathPlan('lcm', [DTYPES.uint64, DTYPES.uint64]).body).toBe('r0 = (unsigned long long)nc_lcmu((unsigned long long)x0, (unsigned long long)x1);');
    expect(mathPlan('square', [DTYPES.int16]).body).toBe('r0 = (short)((unsigned)x0 * (unsigned)x0);');
    expect(mathPlan('reciprocal', [DTYPES.uint8]).body).toBe('r0 = x0 == 1;');
    expect(mathPlan('reciprocal', [DTYPES.bool]).body).toBe('r0 = x0 == 1 || x0 == -1 ? x0 : 0;');
    expect(mathPlan('conj', [DTYPES.complex64]).body).toBe('r0 = x0; r0.im = -x0.im;');
    expect(mathPlan('conjugate', [DTYPES.int8])).toEqual(mathPlan('conj', [DTYPES.int8]));
    // weak scalars and promotion (NumPy 2)
    expect(mathPlan('fmax', [DTYPES.float32, 2.5]).outs[0].name).toBe('float32');
    expect(mathPlan('fmax', [DTYPES.int8, 2.5]).outs[0].name).toBe('float64');
    expect(mathPlan('fmin', [DTYPES.uint8, DTYPES.int8]).outs[0].name).toBe('int16');
    expect(mathPlan('gcd', [DTYPES.int16, 12]).outs[0].name).toBe('int16');
    expect(() => mathPlan('gcd', [DTYPES.int8, 1000])).toThrow(RangeError);
    expect(planOrNull('gcd', [DTYPES.int8, 2.5])).toBeNull();
    expect(mathPlan('heaviside', [DTYPES.int8, 0.5]).outs[0].name).toBe('float64');
    expect(mathPlan('heaviside', [DTYPES.float16, 0.5]).outs[0].name).toBe('float16');
    expect(mathPlan('logaddexp', [DTYPES.int16, DTYPES.int16]).outs[0].name).toBe('float32');
    expect(mathPlan('logaddexp2', [DTYPES.float32, DTYPES.float64]).outs[0].name).toBe('float64');
    expect(mathPlan('sinc', [DTYPES.int8]).outs[0].name).toBe('float64');
    expect(mathPlan('sinc', [DTYPES.bfloat16]).body).toBe('r0 = nc_sinc(x0);');
  });
  test('unknown function', () => {
    expect(() => mathPlan('nope', [DTYPES.float32])).toThrow(TypeError);
  });
});

describe('cumath kernels compile (NVRTC, no GPU)', () => {
  const dtypes = Object.values(DTYPES);
  const built = startAll(dtypes, async (d) => {
    const { source, names } = moduleSource(d);
    return { names, r: await compileBoth(source) };
  });
  test.each(dtypes.map((d) => [d.name, d] as const))('%s: every function, all variants', async (_n, d) => {
    const { names, r } = await built(d);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
    expectEntries(r, names);
    if (d.name === 'float32') expect(r.ptx).toContain('sin.approx.f32'); // fastMath reached the hardware instruction
  });
});
