/**
 * random.Generator({ algorithm: 'xorwow' | 'mrg32k3a' }): draws compared with the cuRAND numbers
 * of a second CurandSequence of the same seed (lib/random/curand_sequence.ts, itself checked against
 * cuRAND in test/88) mapped on the CPU — uniform u in (0, 1] to low + u·(high − low), normal z to
 * mean + z·std, logNormal exp(normal), exponential (0 − log u)·scale — then split invariance,
 * state/setState replay, skipAhead, any layout, moments of 10^6 samples, and the errors (which
 * need no GPU: construction is lazy).
 */
import { DTypeName, GPUArray, driver, gpuarray, random } from '../lib';
import { CurandSequence } from '../lib/random/curand_sequence';
import { describeGpu, expectCode } from './helpers';
import { decode, half } from './reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math } = globalThis;

jest.setTimeout(600_000);

type Alg = 'xorwow' | 'mrg32k3a';
type Gen = InstanceType<typeof random.Generator>;
const ALGS: Alg[] = ['xorwow', 'mrg32k3a'];

const host = (a: GPUArray): number[] => decode(a.dtype.name, a.get()) as number[];

/** The next n standard values of `dist` from `seq`, drawn as `d`, on the host. */
function take(seq: CurandSequence, n: number, dist: 'uniform' | 'normal', d: 'float32' | 'float64'): number[] {
  const a = gpuarray.empty([n], d);
  seq.fill(a, dist);
  const h = host(a);
  a.dispose();
  return h;
}

/** got[i] within rel·|want[i]| + abs of want[i] (exactly equal when both are 0). */
function expectClose(got: number[], want: number[], rel = 0, abs = 0, label = ''): void {
  expect(got.length).toBe(want.length);
  let bad = 0;
  const first: string[] = [];
  for (let i = 0; i < got.length; i++) {
    const ok = got[i] === want[i] || Math.abs(got[i] - want[i]) <= rel * Math.abs(want[i]) + abs;
    if (!ok && ++bad <= 5) first.push(`[${i}] got ${got[i]} want ${want[i]}`);
  }
  if (bad) throw new Error(`${label}: ${bad}/${got.length} differ: ${first.join('; ')}`);
}

function expectMoments(x: ArrayLike<number>, mu: number, v: number, mu4: number, f: (v: number) => number = (t) => t): void {
  const n = x.length;
  let s = 0;
  for (let i = 0; i < n; i++) s += f(x[i]);
  const mean = s / n;
  let s2 = 0;
  for (let i = 0; i < n; i++) { const t = f(x[i]) - mean; s2 += t * t; }
  expect(Math.abs(mean - mu)).toBeLessThan(5 * Math.sqrt(v / n));
  expect(Math.abs(s2 / n - v)).toBeLessThan(5 * Math.sqrt((mu4 - v * v) / n));
}

// ---- CPU: arguments, state bookkeeping, errors ------------------------------------------------

describe('random.Generator algorithms: arguments (no GPU work)', () => {
  test('unknown algorithms are RangeErrors; the default is philox', () => {
    for (const bad of ['mt19937', 'XORWOW', 'sobol32', '', 5, null]) {
      expectCode(() => new random.Generator({ algorithm: bad as never }), RangeError, 'ERR_INVALID_ARG_VALUE');
    }
    expect(new random.Generator({ seed: 1 }).algorithm).toBe('philox');
    expect(new random.Generator({ seed: 1, algorithm: 'philox' }).state.algorithm).toBe('philox');
  });

  test.each(ALGS)('%s: state, skipAhead, setState without a GPU', (alg) => {
    const g = new random.Generator({ seed: 2n ** 64n - 1n, algorithm: alg });
    expect(g.algorithm).toBe(alg);
    expect(g.state).toEqual({ seed: 2n ** 64n - 1n, offset: 0, algorithm: alg });
    g.skipAhead(5).skipAhead(70_000n);
    expect(g.state.offset).toBe(70_005);
    g.setState({ seed: 9n, offset: 17, algorithm: alg });
    expect(g.state).toEqual({ seed: 9n, offset: 17, algorithm: alg });
    g.setState({ seed: 3n, offset: 4 } as never); // algorithm omitted: this generator's
    expect(g.state).toEqual({ seed: 3n, offset: 4, algorithm: alg });
    expect(new random.Generator({ algorithm: alg }).state.seed).not.toBe(new random.Generator({ algorithm: alg }).state.seed);
  });

  test.each(ALGS)('%s: integers and poisson need philox; setState of another algorithm; bad parameters', (alg) => {
    const g = new random.Generator({ seed: 1, algorithm: alg });
    const e = expectCode(() => g.integers(4, 0, 10), TypeError, 'ERR_INVALID_ARG_VALUE');
    expect(e.message).toMatch(/philox/);
    expectCode(() => g.integers(4, 0, 10, 'int32'), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => g.poisson(4, 2), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => g.poisson(4, 2, { dtype: 'float32' }), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => g.fillPoisson({} as never, 2), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => g.fillIntegers({} as never, 0, 3), TypeError, 'ERR_INVALID_ARG_VALUE');
    const other = alg === 'xorwow' ? 'mrg32k3a' : 'xorwow';
    for (const a of ['philox', other] as const) {
      expectCode(() => g.setState({ seed: 1n, offset: 0, algorithm: a }), RangeError, 'ERR_INVALID_ARG_VALUE');
    }
    expectCode(() => new random.Generator({ seed: 1 }).setState({ seed: 1n, offset: 0, algorithm: alg }), RangeError,
      'ERR_INVALID_ARG_VALUE');
    expect(g.state).toEqual({ seed: 1n, offset: 0, algorithm: alg }); // nothing changed
    expectCode(() => g.setState({ seed: 1n, offset: -1, algorithm: alg }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.skipAhead(-1), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.skipAhead(2n ** 53n), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.uniform(4, { low: 1, high: 1 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.normal(4, { std: -1 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.logNormal(4, { mean: NaN }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.exponential(4, { scale: -1 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.normal(4, { dtype: 'int32' }), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => g.uniform(4, { dtype: 'complex64' }), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => g.fillUniform(new Float32Array(4) as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => g.fillNormal(null as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expect(g.state.offset).toBe(0);
  });
});

// ---- GPU -----------------------------------------------------------------------------------

for (const alg of ALGS) {
  const gen = (seed: number | bigint): Gen => new random.Generator({ seed, algorithm: alg });

  describeGpu(`random.Generator({ algorithm: '${alg}' }): cuRAND's numbers`, () => {
    test('uniform: (0, 1] values mapped to (low, high], float32/float64/float16, fill and draw forms', () => {
      const g = gen(1234);
      const seq = new CurandSequence(alg, 1234);
      const u32 = host(g.uniform([1000], { dtype: 'float32' }));
      expect(u32).toEqual(take(seq, 1000, 'uniform', 'float32')); // low 0, high 1: cuRAND's values
      expect(u32.every((v) => v > 0 && v <= 1)).toBe(true);
      expect(new Set(u32).size).toBeGreaterThan(990);
      // high - low = 8: u·8 is exact, so low + u·8 has one rounding on the GPU (fma) and here.
      const u64 = host(g.uniform([777], { dtype: 'float64', low: -3, high: 5 }));
      expectClose(u64, take(seq, 777, 'uniform', 'float64').map((u) => u * 8 - 3), 0, 0, 'float64');
      expect(u64.every((v) => v > -3 && v <= 5)).toBe(true);
      const u16 = host(g.uniform([500], { dtype: 'float16', low: -3, high: 5 }));
      expectClose(u16, take(seq, 500, 'uniform', 'float32').map((u) => half(u * 8 - 3)), 0, 0, 'float16');
      const f = g.fillUniform(gpuarray.empty([3, 41], 'float32'), { low: -3, high: 5 });
      expectClose(host(f), take(seq, 123, 'uniform', 'float32').map((u) => Math.fround(u * 8 - 3)), 0, 0, 'fill float32');
      const d = host(g.uniform([300])); // default float64, (0, 1]
      expect(d).toEqual(take(seq, 300, 'uniform', 'float64'));
      expect(g.state).toEqual({ seed: 1234n, offset: 1000 + 777 + 500 + 123 + 300, algorithm: alg });
      expect(seq.position).toBe(g.state.offset);
      seq.dispose();
    });

    test('normal: mean + z·std of cuRAND\'s standard normals, float32/float64/float16', () => {
      const g = gen(4321);
      const seq = new CurandSequence(alg, 4321);
      expect(host(g.normal([1001], { dtype: 'float32' }))).toEqual(take(seq, 1001, 'normal', 'float32'));
      expect(host(g.normal([513], { dtype: 'float64' }))).toEqual(take(seq, 513, 'normal', 'float64'));
      // std 0.5: z·0.5 is exact, one rounding of 2 + z/2 on both sides
      const z64 = host(g.fillNormal(gpuarray.empty([7, 9], 'float64'), { mean: 2, std: 0.5 }));
      expectClose(z64, take(seq, 63, 'normal', 'float64').map((z) => z * 0.5 + 2), 0, 0, 'float64');
      const z32 = host(g.normal([400], { dtype: 'float32', mean: 2, std: 0.5 }));
      expectClose(z32, take(seq, 400, 'normal', 'float32').map((z) => Math.fround(z * 0.5 + 2)), 0, 0, 'float32');
      const z16 = host(g.normal([333], { dtype: 'float16', mean: 2, std: 0.5 }));
      expectClose(z16, take(seq, 333, 'normal', 'float32').map((z) => half(z * 0.5 + 2)), 0, 0, 'float16');
      expect(g.state.offset).toBe(1001 + 513 + 63 + 400 + 333);
      seq.dispose();
    });

    test('logNormal = exp(normal); exponential = (0 − log u)·scale', () => {
      for (const d of ['float32', 'float64'] as const) {
        const rel = d === 'float32' ? 2 ** -20 : 1e-14;
        const ln = host(gen(8).logNormal([2000], { mean: 0.5, std: 0.75, dtype: d }));
        const nz = host(gen(8).normal([2000], { mean: 0.5, std: 0.75, dtype: d }));
        expectClose(ln, nz.map(Math.exp), rel, 0, `logNormal ${d}`);
        expect(ln.every((v) => v > 0)).toBe(true);
        const lf = host(gen(8).fillLogNormal(gpuarray.empty([40, 50], d), 0.5, 0.75));
        expect(lf).toEqual(ln);
        const ex = host(gen(8).exponential([2000], { scale: 2, dtype: d }));
        const seq = new CurandSequence(alg, 8);
        expectClose(ex, take(seq, 2000, 'uniform', d).map((u) => -Math.log(u) * 2), rel, 2 ** -60, `exponential ${d}`);
        expect(ex.every((v) => v >= 0 && !Object.is(v, -0))).toBe(true);
        seq.dispose();
      }
      // float16: the float32 values, rounded once
      const ln16 = host(gen(8).logNormal([1000], { mean: 0.5, std: 0.75, dtype: 'float16' }));
      const nz32 = host(gen(8).normal([1000], { mean: 0.5, std: 0.75, dtype: 'float32' }));
      expectClose(ln16, nz32.map((z) => half(Math.exp(z))), 2 ** -10, 0, 'logNormal float16');
      const ex16 = host(gen(8).fillExponential(gpuarray.empty([1000], 'float16'), { scale: 3 }));
      const ex32 = host(gen(8).exponential([1000], { scale: 3, dtype: 'float32' }));
      expectClose(ex16, ex32.map(half), 2 ** -10, 2 ** -24, 'exponential float16');
    });

    test('split invariance: one call of n equals any split into calls (also across the 65536 generators)', () => {
      type Draw = (g: Gen, n: number) => GPUArray;
      const draws: Array<[string, Draw]> = [
        ['uniform float32', (g, n) => g.uniform([n], { dtype: 'float32', low: -1, high: 3 })],
        ['uniform float64', (g, n) => g.uniform([n], { dtype: 'float64' })],
        ['normal float32', (g, n) => g.normal([n], { dtype: 'float32', mean: 1, std: 2 })],
        ['normal float64', (g, n) => g.normal([n], { dtype: 'float64' })],
        ['exponential float16', (g, n) => g.exponential([n], { dtype: 'float16' })],
      ];
      for (const [name, draw] of draws) {
        for (const split of [[1, 333, 666], [65_535, 2, 4464]]) {
          const total = split.reduce((s, n) => s + n, 0);
          const whole = host(draw(gen(99), total));
          const g = gen(99);
          const parts = split.flatMap((n) => host(draw(g, n)));
          try {
            expect(parts).toEqual(whole);
          } catch (e) {
            throw new Error(`${name} split ${split.join(' + ')}: ${(e as Error).message}`, { cause: e });
          }
          expect(g.state.offset).toBe(total);
        }
      }
    });

    test('state / setState replay; setState re-seeds', () => {
      const g = gen(5);
      g.uniform([13], { dtype: 'float32' }).dispose();
      const s = g.state;
      expect(s).toEqual({ seed: 5n, offset: 13, algorithm: alg });
      const a = host(g.normal([100], { dtype: 'float64' }));
      const a2 = host(g.uniform([70_000], { dtype: 'float32' }));
      g.setState(s);
      expect(host(g.normal([100], { dtype: 'float64' }))).toEqual(a);
      expect(host(g.uniform([70_000], { dtype: 'float32' }))).toEqual(a2);
      // back to the start after normal draws; another seed gives that seed's numbers
      g.setState({ seed: 5n, offset: 0, algorithm: alg });
      expect(host(g.uniform([50], { dtype: 'float32' }))).toEqual(host(gen(5).uniform([50], { dtype: 'float32' })));
      g.setState({ seed: 6n, offset: 0, algorithm: alg });
      const six = host(g.uniform([50], { dtype: 'float32' }));
      expect(six).toEqual(host(gen(6).uniform([50], { dtype: 'float32' })));
      expect(six.filter((v, i) => v === a2[i]).length).toBeLessThan(3);
      // any state replays the same numbers every time (after normals too)
      g.normal([77], { dtype: 'float32' }).dispose();
      const t = g.state;
      g.setState(t);
      const y = host(g.normal([90], { dtype: 'float32' }));
      g.setState(t);
      expect(host(g.normal([90], { dtype: 'float32' }))).toEqual(y);
    });

    test('skipAhead(n) equals drawing n float32 values and discarding them', () => {
      for (const n of [0, 1, 31, 65_536, 2 * 65_536 + 77]) {
        const g1 = gen(21).skipAhead(n);
        expect(g1.state.offset).toBe(n);
        const g2 = gen(21);
        if (n) g2.uniform([n], { dtype: 'float32' }).dispose();
        expect(host(g1.uniform([300], { dtype: 'float32' }))).toEqual(host(g2.uniform([300], { dtype: 'float32' })));
        expect(host(g1.normal([301], { dtype: 'float64' }))).toEqual(host(g2.normal([301], { dtype: 'float64' })));
        expect(g1.state.offset).toBe(n + 601);
      }
      // after draws, and twice in a row
      const g = gen(22);
      g.uniform([10], { dtype: 'float32' }).dispose();
      g.skipAhead(100_000).skipAhead(5n);
      const h = gen(22);
      h.uniform([100_015], { dtype: 'float32' }).dispose();
      expect(host(g.uniform([200], { dtype: 'float32' }))).toEqual(host(h.uniform([200], { dtype: 'float32' })));
    });

    test.each(['float16', 'float32', 'float64'] as DTypeName[])('fill forms on any layout (%s): views equal a C-order draw', (d) => {
      const fills: Array<(g: Gen, a: GPUArray) => void> = [
        (g, a) => g.fillUniform(a, { low: 1, high: 2 }),
        (g, a) => g.fillUniform(a),
        (g, a) => g.fillNormal(a, { mean: -1, std: 0.5 }),
        (g, a) => g.fillLogNormal(a, 0, 0.25),
        (g, a) => g.fillExponential(a, { scale: 2 }),
      ];
      for (const f of fills) {
        const base = gpuarray.zeros([9, 14], d);
        const views = [base.T, base.index(':', '::3'), base.ravel().index('1:'), base.index('1:4', '2:9')];
        for (const v of views) {
          f(gen(2024), v);
          const want = gpuarray.empty(v.shape as number[], d);
          f(gen(2024), want);
          expect(host(v.copy())).toEqual(host(want));
          want.dispose();
        }
        base.dispose();
      }
      const base = gpuarray.zeros([6, 9], d);
      gen(1).fillNormal(base.index(':', '::3'), { mean: 5 });
      const h = host(base);
      expect(h.every((v, i) => (i % 9) % 3 === 0 ? v !== 0 : v === 0)).toBe(true); // only the view written
    });

    test('sizes 0 and 1, 0-d shapes, streams; other seeds and algorithms differ', () => {
      const g = gen(3);
      expect(g.uniform([0, 4], { dtype: 'float32' }).shape).toEqual([0, 4]);
      expect(g.state.offset).toBe(0);
      expect(g.uniform([], { dtype: 'float32' }).shape).toEqual([]);
      expect(g.state.offset).toBe(1);
      const stream = new driver.Stream();
      const x = g.normal([1000], { dtype: 'float32', stream });
      stream.synchronize();
      const y = gen(3).skipAhead(1).normal([1000], { dtype: 'float32' });
      expect(host(x)).toEqual(host(y));
      const streamed = new random.Generator({ seed: 4, algorithm: alg }).uniform([5000], { dtype: 'float32', stream });
      stream.synchronize();
      expect(host(streamed)).toEqual(host(gen(4).uniform([5000], { dtype: 'float32' })));
      const mine = host(gen(4).uniform([4096], { dtype: 'float32' }));
      const others = [
        host(gen(5).uniform([4096], { dtype: 'float32' })),
        host(new random.Generator({ seed: 4, algorithm: alg === 'xorwow' ? 'mrg32k3a' : 'xorwow' }).uniform([4096], { dtype: 'float32' })),
        host(new random.Generator({ seed: 4 }).uniform([4096], { dtype: 'float32' })),
      ];
      for (const o of others) expect(o.filter((v, i) => v === mine[i]).length).toBeLessThan(10);
    });
  });

  describeGpu(`random.Generator({ algorithm: '${alg}' }): moments of 10^6 samples within 5 sigma`, () => {
    const N = 1_000_000;
    const g = gen(31337);
    test('uniform float32 (2, 6] and float64 (0, 1]', () => {
      const x = g.uniform([N], { dtype: 'float32', low: 2, high: 6 }).get() as Float32Array;
      expect(x.every((v) => v > 2 && v <= 6)).toBe(true);
      expectMoments(x, 4, 16 / 12, 256 / 80);
      expectMoments(g.uniform([N], { dtype: 'float64' }).get() as Float64Array, 0.5, 1 / 12, 1 / 80);
    });
    test('normal float64 (2, 3) and float16 (0, 1)', () => {
      expectMoments(g.normal([N], { dtype: 'float64', mean: 2, std: 3 }).get() as Float64Array, 2, 9, 3 * 81);
      expectMoments(host(g.normal([N], { dtype: 'float16' })), 0, 1, 3);
    });
    test('exponential float32 (scale 2); logNormal float32: its log is normal', () => {
      const e = g.exponential([N], { dtype: 'float32', scale: 2 }).get() as Float32Array;
      expect(e.every((v) => v >= 0)).toBe(true);
      expectMoments(e, 2, 4, 9 * 16);
      const l = g.logNormal([N], { dtype: 'float32', mean: 0.5, std: 0.75 }).get() as Float32Array;
      expect(l.every((v) => v > 0)).toBe(true);
      expectMoments(l, 0.5, 0.5625, 3 * 0.5625 ** 2, Math.log);
      expect(g.state.offset).toBe(6 * N);
    });
  });
}
