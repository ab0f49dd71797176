/**
 * Every generated elementwise kernel compiles with NVRTC (no GPU needed): each operator × each
 * dtype it supports, contiguous and strided variants, array and scalar operands, for sm_75 and
 * sm_90. One module per dtype keeps it fast.
 */
import { DTYPES, DType, compiler } from '../lib';
import { compileBoth, expectEntries, startAll } from './helpers';
import { ElementwiseSpec, Variant, elementwiseKernel } from '../lib/engine/templates/elementwise';
import { PREAMBLE } from '../lib/engine/templates/preamble';
import { UFUNCS, UFUNC_PREAMBLE } from '../lib/array/ufunc';
import { indexSource } from '../lib/array/joins';

const VARIANTS: Variant[] = [
  { kind: 'contiguous', e: 4, wide: false },
  { kind: 'contiguous', e: 2, wide: true },
  { kind: 'strided', e: 4, wide: false, ndim: 2, inner: ['unit', 'unit', 'zero', 'unit'] },
  { kind: 'strided', e: 1, wide: true, ndim: 3, inner: ['any', 'any', 'any', 'any'] },
  { kind: 'tiled', e: 1, wide: false, ndim: 2, tiled: [true, false, true] },
];

function specs(d: DType): ElementwiseSpec[] {
  const out: ElementwiseSpec[] = [];
  for (const def of Object.values(UFUNCS)) {
    let compute: DType, result: DType;
    try {
      [compute, result] = def.types(d);
    } catch {
      continue; // not defined for this dtype (checked in the operator tests)
    }
    const inputs = Array.from({ length: def.nin }, (_, i) => ({
      dtype: def.name === 'where' && i === 0 ? DTYPES.bool : d,
      compute: def.name === 'where' && i === 0 ? DTYPES.bool : compute,
      scalar: false,
    }));
    const body = def.body(compute);
    out.push({ name: def.name, inputs, outputs: [{ dtype: result, compute: result }], body });
    if (def.nin === 2) {
      out.push({ name: `${def.name}_s`, inputs: [inputs[0], { ...inputs[1], scalar: true }], outputs: [{ dtype: result, compute: result }], body });
    }
  }
  // astype to every other dtype
  for (const to of Object.values(DTYPES)) {
    out.push({ name: `cast_${to.name}`, inputs: [{ dtype: d, compute: d, scalar: false }], outputs: [{ dtype: to, compute: d }], body: 'r0 = x0;' });
  }
  return out;
}

function moduleSource(d: DType): { source: string; names: string[] } {
  const names: string[] = [];
  const parts = [PREAMBLE, UFUNC_PREAMBLE];
  for (const spec of specs(d)) {
    VARIANTS.forEach((v) => {
      const inputs = spec.inputs.filter((x) => !x.scalar).length;
      const arrays = spec.outputs.length + inputs;
      const variant = v.inner ? { ...v, inner: v.inner.slice(0, arrays) } : v.tiled ? { ...v, tiled: v.tiled.slice(0, inputs) } : v;
      const { source, name } = elementwiseKernel(spec, variant);
      names.push(name);
      parts.push(source);
    });
  }
  return { source: parts.join('\n'), names };
}

describe('generated elementwise kernels compile (NVRTC, no GPU)', () => {
  const dtypes = Object.values(DTYPES);
  // sm_75 as PTX (entry points listed), sm_90 all the way to CUBIN (ptxas runs too); all at once.
  const built = startAll(dtypes, async (d) => {
    const { source, names } = moduleSource(d);
    return { names, r: await compileBoth(source) };
  });
  test.each(dtypes.map((d) => [d.name, d] as const))('%s: every operator and cast, all variants', async (_n, d) => {
    const { names, r } = await built(d);
    expect(new Set(names).size).toBe(names.length); // kernel names are unique
    expectEntries(r, names);
  });
});

describe('gather/scatter kernels compile for every dtype', () => {
  test('take and put', () => {
    for (const kind of ['take', 'put'] as const) {
      for (const d of Object.values(DTYPES)) {
        const { source, name } = indexSource(kind, d.storageC);
        const ptx = Buffer.from(compiler.compile(source, { arch: 'sm_90', noExternC: true, target: 'ptx' }).image).toString('utf8');
        expect(ptx).toContain(`.entry ${name}(`);
      }
    }
  });
});
