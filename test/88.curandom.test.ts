/**
 * PyCUDA's cuRAND generators (lib/random/curandom.ts) against numbers from cuRAND itself:
 * test/fixtures/curand.json, written by test/fixtures/make_curand_fixtures.py (CuPy + cuRAND's
 * device API on a GPU). Integers must match bit for bit, floats exactly. Generator t of a fill
 * writes elements t, t + G, t + 2G, … (G = generatorCount); Box–Muller pairs (even sizes) write
 * elements 2(t + jG) and 2(t + jG) + 1.
 */
import * as fs from 'fs';
import * as path from 'path';
import { GPUArray, driver, gpuarray } from '../lib';
import { CurandSequence } from '../lib/random/curand_sequence';
import {
  MRG32k3aRandomNumberGenerator, ScrambledSobol32RandomNumberGenerator, Sobol32RandomNumberGenerator,
  XORWOWRandomNumberGenerator, curandTable, generateDirectionVectors32, seedGetterUniform, seedGetterUnique,
} from '../lib/random/curandom';
import { describeGpu, expectCode } from './helpers';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, BigInt } = globalThis;

const FIXTURE = path.join(__dirname, 'fixtures', 'curand.json');
type Seq = number[];
interface Entry { kind: string; seed?: number; subsequence?: number; dimension?: number; offset: number; [k: string]: unknown }
interface Fixture { count: number; logNormal: [number, number]; skip: number; skipSequence: number; pseudo: Entry[]; sobol: Entry[] }

let cached: Fixture | null = null;
function fixture(): Fixture {
  if (!cached) {
    if (!fs.existsSync(FIXTURE)) {
      throw new Error(`${FIXTURE} is missing: run "python3 test/fixtures/make_curand_fixtures.py" on a machine with a GPU, ` +
        'CuPy and the CUDA toolkit headers, and commit the JSON it writes');
    }
    cached = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as Fixture;
  }
  return cached;
}

const LAYOUT = { generatorsPerBlock: 256, blockCount: 4 }; // G = 1024 > every fixture subsequence
const host = (a: GPUArray) => Array.from(a.get() as unknown as ArrayLike<number>);

/** Values of generator t in a host array filled by G generators (pairs: Box–Muller layout). */
function drawsOf(h: number[], g: number, t: number, count: number, pairs: boolean): number[] {
  const out: number[] = [];
  for (let k = 0; k < count; k++) out.push(pairs ? h[2 * (t + Math.floor(k / 2) * g) + (k % 2)] : h[t + k * g]);
  return out;
}

type Pseudo = XORWOWRandomNumberGenerator | MRG32k3aRandomNumberGenerator;
const PSEUDO = { xorwow: XORWOWRandomNumberGenerator, mrg32k3a: MRG32k3aRandomNumberGenerator };

/** What each fixture sequence is in our API: fill of a fresh generator, pairs or not. */
function pseudoDraw(gen: Pseudo, name: string, count: number, fx: Fixture): { h: number[]; pairs: boolean } | null {
  const g = gen.generatorCount;
  const [mean, std] = fx.logNormal;
  // Odd sizes take the single-value kernels, even sizes the pair kernels (as PyCUDA).
  const odd = g * count - 1;
  const even = g * count;
  const run = (n: number, dt: 'float32' | 'float64' | 'uint32', fill: (a: GPUArray) => void) => {
    const a = gpuarray.empty([n], dt);
    fill(a);
    const h = host(a);
    a.dispose();
    return h;
  };
  switch (name) {
    case 'curand': return { h: run(even, 'uint32', (a) => gen.fillUniform(a)), pairs: false };
    case 'uniform': return { h: run(even, 'float32', (a) => gen.fillUniform(a)), pairs: false };
    case 'uniform_double': return { h: run(even, 'float64', (a) => gen.fillUniform(a)), pairs: false };
    case 'normal': return { h: run(odd, 'float32', (a) => gen.fillNormal(a)), pairs: false };
    case 'normal2': return { h: run(even, 'float32', (a) => gen.fillNormal(a)), pairs: true };
    case 'normal_double': return { h: run(odd, 'float64', (a) => gen.fillNormal(a)), pairs: false };
    case 'normal2_double': return { h: run(even, 'float64', (a) => gen.fillNormal(a)), pairs: true };
    case 'log_normal': return { h: run(odd, 'float32', (a) => gen.fillLogNormal(a, mean, std)), pairs: false };
    case 'log_normal2': return { h: run(even, 'float32', (a) => gen.fillLogNormal(a, mean, std)), pairs: true };
    case 'log_normal_double': return { h: run(odd, 'float64', (a) => gen.fillLogNormal(a, mean, std)), pairs: false };
    case 'log_normal2_double': return { h: run(even, 'float64', (a) => gen.fillLogNormal(a, mean, std)), pairs: true };
    case 'poisson_0.5': return { h: run(even, 'uint32', (a) => gen.fillPoisson(a, 0.5)), pairs: false };
    case 'poisson_1000': return { h: run(even, 'uint32', (a) => gen.fillPoisson(a, 1000)), pairs: false };
    case 'skipahead': gen.callSkipAhead(fx.skip); return pseudoDraw(gen, 'curand', count, fx);
    case 'skipahead_sequence': gen.callSkipAheadSequence(fx.skipSequence); return pseudoDraw(gen, 'curand', count, fx);
    case 'skipahead_subsequence':
      (gen as MRG32k3aRandomNumberGenerator).callSkipAheadSubsequence(fx.skipSequence);
      return pseudoDraw(gen, 'curand', count, fx);
    default: return null;
  }
}

const constSeeds = (seed: number) => (n: number) => gpuarray.toGpu(new Uint32Array(n).fill(seed));
const SEQUENCE_KEYS = (e: Entry) => Object.keys(e).filter((k) => Array.isArray(e[k]));

describeGpu('XORWOW and MRG32k3a match cuRAND bit for bit', () => {
  test('the fixture exists (else: run test/fixtures/make_curand_fixtures.py)', () => {
    expect(fixture().pseudo.length).toBeGreaterThan(0);
  });

  for (const kind of ['xorwow', 'mrg32k3a'] as const) {
    test(`${kind}: every distribution, seed, subsequence and offset`, () => {
      const fx = fixture();
      const entries = fx.pseudo.filter((e) => e.kind === kind);
      expect(entries.length).toBeGreaterThan(0);
      const groups = new Map<string, Entry[]>();
      for (const e of entries) groups.set(`${e.seed}/${e.offset}`, [...(groups.get(`${e.seed}/${e.offset}`) ?? []), e]);
      let checked = 0;
      for (const group of groups.values()) {
        const { seed, offset } = group[0];
        for (const name of SEQUENCE_KEYS(group[0])) {
          const gen = new PSEUDO[kind](constSeeds(seed!), offset, LAYOUT);
          const r = pseudoDraw(gen, name, fx.count, fx);
          gen.dispose();
          expect(r).not.toBeNull(); // every fixture sequence has a counterpart
          for (const e of group) {
            const got = drawsOf(r!.h, 1024, e.subsequence!, fx.count, r!.pairs);
            if (JSON.stringify(got) !== JSON.stringify(e[name])) {
              throw new Error(`${kind} seed ${seed} subsequence ${e.subsequence} offset ${offset} ${name}:\n got ${got}\nwant ${e[name]}`);
            }
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(50);
    });
  }

  test('PyCUDA default layout, consecutive fills continue each state, skip-ahead arrays, strided outputs', () => {
    const fx = fixture();
    const e = fx.pseudo.find((x) => x.kind === 'xorwow' && x.seed === 1234 && x.offset === 0 && x.subsequence === 77)!;
    const gen = new XORWOWRandomNumberGenerator(constSeeds(1234));
    const g = gen.generatorCount;
    expect(g).toBe(gen.generatorsPerBlock * gen.blockCount);
    const first = gen.genUniform([g * 3], 'uint32');
    const second = gen.genUniform([g * (fx.count - 3)], 'uint32');
    const h1 = host(first), h2 = host(second);
    expect([...drawsOf(h1, g, 77, 3, false), ...drawsOf(h2, g, 77, fx.count - 3, false)]).toEqual(e.curand);
    gen.dispose();
    // callSkipAheadArray with the same count everywhere is callSkipAhead.
    const gen2 = new XORWOWRandomNumberGenerator(constSeeds(1234), 0, LAYOUT);
    const skips = gpuarray.toGpu(new BigUint64Array(1024).fill(BigInt(fx.skip)));
    gen2.callSkipAheadArray(skips);
    expect(drawsOf(host(gen2.genUniform([1024 * fx.count], 'uint32')), 1024, 77, fx.count, false)).toEqual(e.skipahead);
    // A stepped-slice output gets the same numbers as a contiguous one.
    const gen3 = new XORWOWRandomNumberGenerator(constSeeds(1234), 0, LAYOUT);
    const base = gpuarray.zeros([2 * 1024 * fx.count], 'float32');
    const view = base.index('::2');
    gen3.fillUniform(view);
    expect(drawsOf(host(view), 1024, 77, fx.count, false)).toEqual(e.uniform);
    expect(host(base.index('1::2')).every((x) => x === 0)).toBe(true);
    // With a stream, and a size-0 array is a no-op.
    const s = new driver.Stream();
    const gen4 = new XORWOWRandomNumberGenerator(constSeeds(1234), 0, LAYOUT);
    gen4.fillUniform(gpuarray.empty([0], 'float32'), { stream: s });
    const a = gen4.genUniform([1024 * fx.count], 'float64', { stream: s });
    s.synchronize();
    expect(drawsOf(host(a), 1024, 77, fx.count, false)).toEqual(e.uniform_double);
    for (const x of [gen2, gen3, gen4]) x.dispose();
  });
});

describeGpu('Sobol32 and scrambled Sobol32 match cuRAND', () => {
  for (const kind of ['sobol32', 'scrambledSobol32'] as const) {
    test(`${kind}: every distribution, dimension and offset`, () => {
      const fx = fixture();
      const entries = fx.sobol.filter((e) => e.kind === kind);
      expect(entries.length).toBeGreaterThan(0);
      const [mean, std] = fx.logNormal;
      let checked = 0;
      for (const offset of new Set(entries.map((e) => e.offset))) {
        const group = entries.filter((e) => e.offset === offset);
        for (const name of SEQUENCE_KEYS(group[0])) {
          const gen = kind === 'sobol32' ? new Sobol32RandomNumberGenerator(undefined, offset, LAYOUT)
            : new ScrambledSobol32RandomNumberGenerator(undefined, undefined, offset, LAYOUT);
          const n = 1024 * fx.count;
          const dt = name.includes('double') ? 'float64' : name === 'curand' || name.startsWith('poisson') || name === 'skipahead' ? 'uint32' : 'float32';
          if (name === 'skipahead') gen.callSkipAhead(fx.skip);
          const a = name === 'curand' || name === 'skipahead' || name.startsWith('uniform') ? gen.genUniform([n], dt)
            : name.startsWith('normal') ? gen.genNormal([n], dt)
              : name.startsWith('log_normal') ? gen.genLogNormal([n], dt, mean, std)
                : name === 'poisson_4' ? gen.genPoisson([n], 'uint32', 4) : null;
          expect(a).not.toBeNull();
          const h = host(a!);
          for (const e of group) expect([name, drawsOf(h, 1024, e.dimension!, fx.count, false)]).toEqual([name, e[name]]);
          checked += group.length;
          gen.dispose();
        }
      }
      expect(checked).toBeGreaterThan(20);
    });
  }

  test('explicit direction vectors: rows shifted by one dimension', () => {
    const fx = fixture();
    const e = fx.sobol.find((x) => x.kind === 'sobol32' && x.dimension === 1 && x.offset === 0)!;
    const rows = new Uint32Array(1024 * 32);
    rows.set(curandTable(0).subarray(32, 32 * 1025));
    const gen = new Sobol32RandomNumberGenerator(gpuarray.toGpu(rows, { shape: [1024, 32] }), 0, LAYOUT);
    expect(drawsOf(host(gen.genUniform([1024 * fx.count], 'uint32')), 1024, 0, fx.count, false)).toEqual(e.curand);
    gen.dispose();
    const v = generateDirectionVectors32(1024);
    expect(v.shape).toEqual([1024, 32]);
    expect(Array.from((v.get() as Uint32Array).subarray(0, 64))).toEqual(Array.from(curandTable(0).subarray(0, 64)));
  });
});

describeGpu('CurandSequence (for random.Generator): cuRAND numbers, split-invariant', () => {
  test('value e comes from subsequence e mod 65536, and any split gives the same numbers', () => {
    const fx = fixture();
    const e = fx.pseudo.find((x) => x.kind === 'mrg32k3a' && x.seed === 1234 && x.offset === 0 && x.subsequence === 1000)!;
    const a = new CurandSequence('mrg32k3a', 1234);
    const whole = gpuarray.empty([65536 * 2 + 5], 'uint32');
    a.fill(whole, 'uniform');
    const h = host(whole);
    expect([h[1000], h[65536 + 1000]]).toEqual((e.curand as Seq).slice(0, 2));
    const b = new CurandSequence('mrg32k3a', 1234);
    const parts = [1, 999, 65536, 70000 - 65537 + 1].map((n) => gpuarray.empty([n], 'uint32'));
    const rest = gpuarray.empty([65536 * 2 + 5 - parts.reduce((s, p) => s + p.size, 0)], 'uint32');
    for (const p of [...parts, rest]) b.fill(p, 'uniform');
    expect([...parts, rest].flatMap(host)).toEqual(h);
    expect(b.position).toBe(65536 * 2 + 5);
    for (const x of [a, b]) x.dispose();
  });
});

describeGpu('cuRAND generators: seeds, bad input', () => {
  test('seed getters', () => {
    const u = host(seedGetterUniform(1000));
    expect(new Set(u).size).toBe(1);
    expect(u[0]).toBeGreaterThanOrEqual(0);
    const q = host(seedGetterUnique(1000));
    expect(new Set(q).size).toBeGreaterThan(990);
    expect(q.every((x) => x >= 0 && x < 2 ** 31 - 1)).toBe(true);
    // Default seeds differ between generators.
    const g1 = new XORWOWRandomNumberGenerator(undefined, 0, LAYOUT);
    const g2 = new XORWOWRandomNumberGenerator(undefined, 0, LAYOUT);
    expect(host(g1.genUniform([4096], 'uint32'))).not.toEqual(host(g2.genUniform([4096], 'uint32')));
    g1.dispose(); g2.dispose();
  });

  test('errors carry codes', () => {
    const gen = new MRG32k3aRandomNumberGenerator(seedGetterUnique, 0, LAYOUT);
    expectCode(() => gen.fillNormal(gpuarray.empty([4], 'int32')), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => gen.fillUniform(gpuarray.empty([4], 'int16')), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => gen.fillPoisson(gpuarray.empty([4], 'float32'), 1), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => gen.fillPoisson(gpuarray.empty([4], 'uint32'), -1), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gen.fillPoisson(gpuarray.empty([4], 'uint32'), NaN), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gen.fillLogNormal(gpuarray.empty([4], 'float32'), 0, -1), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gen.fillUniform(new Float32Array(4) as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gen.callSkipAhead(-1), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gen.callSkipAhead(2n ** 64n), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gen.callSkipAheadArray(gpuarray.empty([1024], 'uint32')), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gen.callSkipAheadSequenceArray(gpuarray.empty([5], 'uint64')), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => new XORWOWRandomNumberGenerator((n) => gpuarray.empty([n + 1], 'int32'), 0, LAYOUT), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => new XORWOWRandomNumberGenerator((n) => gpuarray.empty([n], 'float32'), 0, LAYOUT), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => new XORWOWRandomNumberGenerator(undefined, -1, LAYOUT), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new XORWOWRandomNumberGenerator(undefined, 0, { generatorsPerBlock: 0 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new Sobol32RandomNumberGenerator(gpuarray.empty([1024, 31], 'uint32'), 0, LAYOUT), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => new Sobol32RandomNumberGenerator(undefined, 2 ** 32, LAYOUT), RangeError, 'ERR_OUT_OF_RANGE');
    gen.dispose();
    gen.dispose();
    expectCode(() => gen.fillUniform(gpuarray.empty([4], 'float32')), TypeError, 'ERR_USE_AFTER_DISPOSE');
  });
});
