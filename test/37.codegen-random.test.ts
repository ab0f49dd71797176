/**
 * Every Philox random kernel compiles with NVRTC (no GPU needed): each distribution × each dtype
 * it writes × vector and element stores, for sm_75 (PTX) and sm_90 (CUBIN, ptxas runs too).
 * One module per distribution keeps it fast.
 */
import { DTYPES, DTypeName, compiler } from '../lib';
import { compileBoth, expectEntries, startAll } from './helpers';
import { PREAMBLE } from '../lib/engine/templates/preamble';
import {
  DISTRIBUTIONS, Distribution, PHILOX_DEVICE, dtypesOf, elementsPerThread, randomKernel, randomKernelBody,
  wordsPerElement,
} from '../lib/engine/templates/philox';

function moduleSource(dist: Distribution): { source: string; names: string[] } {
  const names: string[] = [];
  const parts = [PREAMBLE, PHILOX_DEVICE];
  for (const d of dtypesOf(dist)) {
    for (const vec of [true, false]) {
      const { source, name } = randomKernelBody(dist, DTYPES[d as DTypeName], vec);
      names.push(name);
      parts.push(source);
    }
  }
  return { source: parts.join('\n'), names };
}

const OPTS = { noExternC: true, options: ['--std=c++17'] };

describe('Philox random kernels compile (NVRTC, no GPU)', () => {
  const built = startAll(DISTRIBUTIONS, async (dist) => {
    const { source, names } = moduleSource(dist);
    return { names, r: await compileBoth(source, OPTS) };
  });
  test.each(DISTRIBUTIONS.map((d) => [d]))('%s: every dtype, vector and element stores', async (dist) => {
    const { names, r } = await built(dist);
    expect(names.length).toBe(2 * dtypesOf(dist).length);
    expect(new Set(names).size).toBe(names.length);
    expectEntries(r, names);
  });

  test('a single kernel compiles on its own (the form the runtime uses)', () => {
    const { source, name } = randomKernel('normal', DTYPES.float32, true);
    const ptx = Buffer.from(compiler.compile(source, { ...OPTS, arch: 'sm_90', target: 'ptx' }).image).toString('utf8');
    expect(ptx).toContain(`.entry ${name}(`);
    // 16-byte stores in the vector variant; no local-memory arrays (the unit shift is a template).
    expect(ptx).toMatch(/st\.global\.v4\.f32/);
    expect(ptx).not.toMatch(/\.local/);
  });

  test('uniform float32 keeps the Philox state and its output in registers', () => {
    const { source } = randomKernel('uniform', DTYPES.float32, true);
    const ptx = Buffer.from(compiler.compile(source, { ...OPTS, arch: 'sm_90', target: 'ptx' }).image).toString('utf8');
    expect(ptx).not.toMatch(/\.local/);
    // Ten rounds × two 32×32→64 products per block, times the blocks of the four unit shifts.
    expect((ptx.match(/mul\.wide\.u32/g) ?? []).length).toBeGreaterThanOrEqual(20);
  });

  test('layout: words per element and 16-byte stores per thread', () => {
    expect(wordsPerElement('uniform', DTYPES.float32)).toBe(1);
    expect(wordsPerElement('uniform', DTYPES.float64)).toBe(2);
    expect(wordsPerElement('integers', DTYPES.int64)).toBe(2);
    expect(wordsPerElement('poisson', DTYPES.int64)).toBe(1);
    for (const dist of DISTRIBUTIONS) {
      for (const name of dtypesOf(dist)) {
        const d = DTYPES[name as DTypeName];
        const bytes = elementsPerThread(dist, d) * d.bytes;
        expect(bytes).toBeGreaterThanOrEqual(16);
        expect(elementsPerThread(dist, d) % (4 / wordsPerElement(dist, d))).toBe(0);
      }
    }
    expect(() => randomKernelBody('normal', DTYPES.int32, true)).toThrow();
  });
});
