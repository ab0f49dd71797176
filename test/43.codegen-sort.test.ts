/**
 * Every sort kernel compiles with NVRTC (no GPU needed): the radix sort's prep/finish kernels,
 * unique's count and result kernels and searchsorted's for each dtype, unique's counting path for
 * the integers and bool (histogram, bin results, inverse, and the min/max reduction in the
 * variants the engine picks), and the dtype-independent scanhist and scatter passes and occupied
 * bins count, and the prep and scatter passes' tuning variants, for sm_75 (PTX) and sm_90 (CUBIN).
 */
import { DTYPES, compiler } from '../lib';
import { PREAMBLE } from '../lib/engine/templates/preamble';
import { searchKernel, sortCommonKernels, sortKernelsFor } from '../lib/engine/templates/sort';
import { REDUCE_PREAMBLE, reduceKernel } from '../lib/engine/templates/reduction';
import { uniqueMinMaxSpec } from '../lib/engine/templates/unique';
import { expectCode } from './helpers';

function compileBoth(source: string, names: string[]): void {
  const ptx = Buffer.from(compiler.compile(source, { arch: 'sm_75', noExternC: true, options: ['--std=c++17'], target: 'ptx' }).image).toString('utf8');
  for (const name of names) expect(ptx).toContain(`.entry ${name}(`);
  const cubin = Buffer.from(compiler.compile(source, { arch: 'sm_90', noExternC: true, options: ['--std=c++17'] }).image);
  for (const name of names) expect(cubin.includes(Buffer.from(`${name}\0`))).toBe(true);
}

describe('generated sort kernels compile (NVRTC, no GPU)', () => {
  test.each(Object.keys(DTYPES))('%s: prep, finish, unique and searchsorted kernels', (d) => {
    const ks = sortKernelsFor(DTYPES[d as keyof typeof DTYPES]);
    compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
  });

  const COUNTABLE = Object.keys(DTYPES).filter((d) => 'biu'.includes(DTYPES[d as keyof typeof DTYPES].kind));
  test('the counting path covers every integer dtype and bool', () => expect(COUNTABLE.length).toBe(9));
  test.each(COUNTABLE)('%s: unique\'s min/max reduction (vector loads, and scalar with 64-bit offsets)', (d) => {
    const dt = DTYPES[d as keyof typeof DTYPES];
    const spec = uniqueMinMaxSpec(dt);
    const ks = [reduceKernel(spec, { kind: 'rows', nk: 1, nr: 1, wide: false, e: 16 / dt.bytes }),
      reduceKernel(spec, { kind: 'rows', nk: 1, nr: 1, wide: true, e: 1 })];
    expect(ks.every((k) => k.source.includes('_DEF'))).toBe(true);
    compileBoth([PREAMBLE, REDUCE_PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
    expect(sortKernelsFor(dt).map((k) => k.name)).toEqual(expect.arrayContaining(
      [`nc_unique_hist_${d}`, `nc_unique_bins_result_${d}`, `nc_unique_inverse_${d}`]));
  });

  test('scanhist, the scatter passes and unique counts', () => {
    const ks = sortCommonKernels();
    expect(new Set(ks.map((k) => k.name)).size).toBe(ks.length);
    compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
  });

  test('the scatter pass in each ranking and shared-index variant (NODECUDA_SORT_BALLOTS, NODECUDA_SORT_SWIZZLE)', () => {
    const saved = { b: process.env.NODECUDA_SORT_BALLOTS, z: process.env.NODECUDA_SORT_SWIZZLE };
    const sources = new Set<string>();
    try {
      for (const [b, z] of [['0', '1'], ['1', '1'], ['0', '0'], ['1', '0']]) {
        process.env.NODECUDA_SORT_BALLOTS = b;
        process.env.NODECUDA_SORT_SWIZZLE = z;
        jest.isolateModules(() => {
          // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module load reads the variables
          const { passKernel } = require('../lib/engine/templates/sort') as typeof import('../lib/engine/templates/sort');
          const ks = [passKernel(DTYPES.float32, 4, false), passKernel(DTYPES.float32, 4, true), passKernel(DTYPES.uint8, 1, false)];
          expect(ks[0].source.includes('atomicOr(&s_match')).toBe(b === '0');
          expect(ks[0].source.includes('__ballot_sync(0xffffffffu, (d >> b) & 1u)')).toBe(b === '1');
          expect(ks[0].source.includes('return d ^ (d >> 5);')).toBe(z === '1');
          for (const k of ks) sources.add(k.source);
          compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
        });
      }
      expect(sources.size).toBe(12);
      process.env.NODECUDA_SORT_BALLOTS = 'yes';
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module load reads the variable
        const e = expectCode(() => require('../lib/engine/templates/sort'), RangeError, 'ERR_INVALID_ENV');
        expect(e.message).toContain('NODECUDA_SORT_BALLOTS="yes"');
      });
    } finally {
      for (const [k, v] of [['NODECUDA_SORT_BALLOTS', saved.b], ['NODECUDA_SORT_SWIZZLE', saved.z]] as const) {
        if (v === undefined) delete process.env[k]; else process.env[k] = v;
      }
    }
  });

  test('prep in each copies and items variant (NODECUDA_SORT_PREP_COPIES, NODECUDA_SORT_PREP_ITEMS)', () => {
    const saved = { c: process.env.NODECUDA_SORT_PREP_COPIES, i: process.env.NODECUDA_SORT_PREP_ITEMS };
    const sources = new Set<string>();
    try {
      for (const [c, i] of [['1', '1'], ['4', '4'], ['16', '8'], ['8', '3']]) {
        process.env.NODECUDA_SORT_PREP_COPIES = c;
        process.env.NODECUDA_SORT_PREP_ITEMS = i;
        jest.isolateModules(() => {
          // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module load reads the variables
          const { prepKernel } = require('../lib/engine/templates/sort') as typeof import('../lib/engine/templates/sort');
          const ks = [prepKernel(DTYPES.float32, 'value'), prepKernel(DTYPES.float64, 'value'), prepKernel(DTYPES.uint8, 'value'),
            prepKernel(DTYPES.complex64, 're')];
          // 8-byte keys: at most 8 copies (32 KiB); the flush period keeps a 16-bit half below 2^16
          // (a copy counts for 256 / copies threads).
          expect(ks[0].source).toContain(`__shared__ unsigned int sh[${4 * 128 * +c}]`);
          expect(ks[1].source).toContain(`__shared__ unsigned int sh[${8 * 128 * Math.min(+c, 8)}]`);
          expect(ks[0].source).toContain(`if (++round == ${Math.floor(65535 / ((256 / +c) * +i))}u)`);
          for (const k of ks) sources.add(k.source);
          compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
        });
      }
      expect(sources.size).toBe(16);
      for (const [name, bad] of [['NODECUDA_SORT_PREP_COPIES', '3'], ['NODECUDA_SORT_PREP_ITEMS', '9']]) {
        process.env.NODECUDA_SORT_PREP_COPIES = '4';
        process.env.NODECUDA_SORT_PREP_ITEMS = '4';
        process.env[name] = bad;
        jest.isolateModules(() => {
          // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module load reads the variable
          const e = expectCode(() => require('../lib/engine/templates/sort'), RangeError, 'ERR_INVALID_ENV');
          expect(e.message).toContain(`${name}="${bad}"`);
        });
      }
    } finally {
      for (const [k, v] of [['NODECUDA_SORT_PREP_COPIES', saved.c], ['NODECUDA_SORT_PREP_ITEMS', saved.i]] as const) {
        if (v === undefined) delete process.env[k]; else process.env[k] = v;
      }
    }
  });

  test('searchsorted across dtypes (compared in the promoted type)', () => {
    const { int32, float32, float64, uint8, float16, complex64 } = DTYPES;
    const ks = [searchKernel(int32, float32, float64), searchKernel(uint8, int32, int32), searchKernel(float16, float32, float32),
      searchKernel(complex64, float64, DTYPES.complex128)];
    compileBoth([PREAMBLE, ...ks.map((k) => k.source)].join('\n'), ks.map((k) => k.name));
  });
});
