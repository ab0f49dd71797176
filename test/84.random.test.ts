/**
 * random (Philox4x32-10): a JS reference of the generator checked against Random123's known
 * answers, then GPU outputs compared with it (bit-exact for words, uniforms and integers),
 * statistics on 10^7 samples (moments within 5 sigma, Kolmogorov–Smirnov, chi-square),
 * reproducibility, split invariance, no overlap, fill forms on any layout, and bad parameters.
 */
import { DTYPES, DTypeName, GPUArray, driver, gpuarray, random } from '../lib';
import { describeGpu, expectCode } from './helpers';
import { decode, half, toBf16 } from './reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number, BigInt } = globalThis;

jest.setTimeout(600_000);

// ---- JS reference --------------------------------------------------------------------------

/** [hi, lo] of the 64-bit product of two uint32 (16-bit limbs: exact in doubles). */
function mulhilo(a: number, b: number): [number, number] {
  const al = a & 0xffff, ah = a >>> 16, bl = b & 0xffff, bh = b >>> 16;
  const ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  const mid = (ll >>> 16) + (lh & 0xffff) + (hl & 0xffff);
  return [(hh + (lh >>> 16) + (hl >>> 16) + Math.floor(mid / 65536)) >>> 0, Math.imul(a, b) >>> 0];
}

/** Philox4x32-10 of counter c under key k. */
function philox(c: readonly number[], k: readonly number[]): number[] {
  let [c0, c1, c2, c3] = c;
  let [k0, k1] = k;
  for (let r = 0; r < 10; r++) {
    if (r) { k0 = (k0 + 0x9e3779b9) >>> 0; k1 = (k1 + 0xbb67ae85) >>> 0; }
    const [hi0, lo0] = mulhilo(0xd2511f53, c0);
    const [hi1, lo1] = mulhilo(0xcd9e8d57, c2);
    [c0, c1, c2, c3] = [(hi1 ^ c1 ^ k0) >>> 0, lo1, (hi0 ^ c3 ^ k1) >>> 0, lo0];
  }
  return [c0, c1, c2, c3];
}

const keyOf = (seed: bigint): number[] => [Number(seed & 0xffffffffn), Number(seed >> 32n)];
const ctr = (b: number, c2 = 0, c3 = 0): number[] => [b % 2 ** 32, Math.floor(b / 2 ** 32), c2, c3];
const u01f = (x: number) => (x >>> 8) * 2 ** -24;
const u01h = (x: number) => (x >>> 21) * 2 ** -11;
const u01b = (x: number) => (x >>> 24) * 2 ** -8;
const u01d = (a: number, b: number) => ((a >>> 5) * 67108864 + (b >>> 6)) * 2 ** -53;
const u01dOc = (a: number, b: number) => ((a >>> 5) * 67108864 + (b >>> 6) + 1) * 2 ** -53;
const u01fOc = (x: number) => Math.fround(Math.fround(x) * 2 ** -32 + 2 ** -33);

function boxMullerF(x: number, y: number): number[] {
  const r = Math.sqrt(-2 * Math.log(u01fOc(x)));
  const t = Math.fround((y | 0) * Math.fround(1.4629180792671596e-9));
  return [r * Math.cos(t), r * Math.sin(t)];
}

function boxMullerD(x: number[]): number[] {
  const r = Math.sqrt(-2 * Math.log(u01dOc(x[0], x[1])));
  const v = u01d(x[2], x[3]) * 2 - 1;
  return [r * Math.cos(Math.PI * v), r * Math.sin(Math.PI * v)];
}

/** Lemire's method with rejection from the element's sub-stream (tag 1); range 0n = 2^(32C). */
function lemire(k: number[], x: bigint, range: bigint, w: number, c: number): bigint {
  if (range === 0n) return x;
  const bits = BigInt(32 * c), mask = (1n << bits) - 1n;
  let m = x * range;
  const t = ((1n << bits) - range) % range;
  for (let at = 1; (m & mask) < t; at++) {
    const r = philox(ctr(w, at, 1), k);
    m = (c === 1 ? BigInt(r[0]) : BigInt(r[0]) | (BigInt(r[1]) << 32n)) * range;
  }
  return m >> bits;
}

interface P { a?: number; b?: number; low?: bigint; range?: bigint }
type Dist = 'uniform' | 'normal' | 'lognormal' | 'exponential' | 'integers' | 'poisson';

const wordsPer = (dist: Dist, d: DTypeName) => (dist !== 'poisson' && DTYPES[d].bytes === 8 ? 2 : 1);

/** The value of unit e of the stream of `seed` for (dist, dtype), before storing. */
function reference(dist: Dist, d: DTypeName, k: number[], e: number, p: P): number | bigint {
  const c = wordsPer(dist, d), u = 4 / c, l = e % u;
  const x = philox(ctr(Math.floor(e / u)), k);
  const f64 = d === 'float64';
  switch (dist) {
    case 'uniform':
      return (f64 ? u01d(x[2 * l], x[2 * l + 1]) : d === 'float16' ? u01h(x[l]) : d === 'bfloat16' ? u01b(x[l]) : u01f(x[l])) * p.b! + p.a!;
    case 'normal':
    case 'lognormal': {
      const z = f64 ? boxMullerD(x) : [...boxMullerF(x[0], x[1]), ...boxMullerF(x[2], x[3])];
      const v = z[l] * p.b! + p.a!;
      return dist === 'lognormal' ? Math.exp(v) : v;
    }
    case 'exponential':
      return -Math.log(f64 ? u01dOc(x[2 * l], x[2 * l + 1]) : u01fOc(x[l])) * p.a!;
    case 'integers': {
      const xv = c === 1 ? BigInt(x[l]) : BigInt(x[2 * l]) | (BigInt(x[2 * l + 1]) << 32n);
      const v = p.low! + lemire(k, xv, p.range! % (1n << BigInt(32 * c)), e * c, c);
      const bits = DTYPES[d].bytes * 8;
      return DTYPES[d].kind === 'u' ? BigInt.asUintN(bits, v) : BigInt.asIntN(bits, v);
    }
    case 'poisson': { // multiplication method (lambda < 10), sub-stream tag 2
      const enlam = Math.exp(-p.a!);
      let prod = 1, n = 0;
      for (let j = 0; ; j++) {
        for (const q of philox(ctr(e, j, 2), k)) {
          prod *= (q + 1) * 2 ** -32;
          if (prod <= enlam) return n;
          n++;
        }
      }
    }
  }
}

/** Tolerance of a float draw against the reference (exact where the formula is exact). */
function tolerance(dist: Dist, d: DTypeName, want: number): number {
  const m = Math.max(1, Math.abs(want));
  if (d === 'float64') return 1e-12 * m;
  if (d === 'float16') return 2 ** -10 * m;
  if (d === 'bfloat16') return 2 ** -7 * m;
  if (dist === 'uniform') return 2 ** -22 * m;
  return 1e-5 * m; // __sincosf: |error| <= 2^-21.41 times r <= 6.8; ln u and expf within a few ulp
}

function expectReference(got: ArrayLike<number | bigint>, dist: Dist, d: DTypeName, seed: bigint, e0: number, p: P, exact = false): void {
  const k = keyOf(seed);
  let bad = 0;
  const first: string[] = [];
  for (let i = 0; i < got.length; i++) {
    let want = reference(dist, d, k, e0 + i, p);
    let ok: boolean;
    if (typeof want === 'bigint' || DTYPES[d].kind !== 'f') {
      ok = BigInt(got[i]) === BigInt(want);
    } else {
      want = d === 'float16' && exact ? half(want) : d === 'bfloat16' && exact ? toBf16(want) : d === 'float32' && exact ? Math.fround(want) : want;
      ok = exact ? got[i] === want : Math.abs(Number(got[i]) - want) <= tolerance(dist, d, want);
    }
    if (!ok && ++bad <= 5) first.push(`[${i}] got ${got[i]} want ${want}`);
  }
  if (bad) throw new Error(`${dist} ${d}: ${bad}/${got.length} differ from the reference: ${first.join('; ')}`);
}

const values = (a: GPUArray): Array<number | bigint> => decode(a.dtype.name, a.get()) as Array<number | bigint>;

// ---- CPU: the reference itself and argument checks ------------------------------------------

describe('Philox4x32-10 JS reference (Random123 known answers)', () => {
  const hex = (a: number[]) => a.map((x) => x.toString(16).padStart(8, '0')).join(' ');
  test('known-answer vectors', () => {
    expect(hex(philox([0, 0, 0, 0], [0, 0]))).toBe('6627e8d5 e169c58d bc57ac4c 9b00dbd8');
    const f = 0xffffffff;
    expect(hex(philox([f, f, f, f], [f, f]))).toBe('408f276d 41c83b0e a20bc7c6 6d5451fd');
    expect(hex(philox([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0])))
      .toBe('d16cfe09 94fdcceb 5001e420 24126ea1');
  });
  test('mulhilo equals the BigInt product', () => {
    for (let i = 0; i < 2000; i++) {
      const a = (Math.random() * 2 ** 32) >>> 0, b = i === 0 ? 0xffffffff : (Math.random() * 2 ** 32) >>> 0;
      const full = BigInt(i === 0 ? 0xffffffff : a) * BigInt(b);
      expect(mulhilo(i === 0 ? 0xffffffff : a, b)).toEqual([Number(full >> 32n), Number(full & 0xffffffffn)]);
    }
  });
});

describe('random arguments (checked before any GPU work)', () => {
  const g = new random.Generator({ seed: 1 });
  test('bad distribution parameters', () => {
    expectCode(() => g.normal(4, { std: -1 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.normal(4, { std: NaN }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.logNormal(4, { std: -0.5 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.normal(4, { mean: Infinity }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.normal(4, { mean: '1' as never }), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => g.poisson(4, -1), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.poisson(4, NaN), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.poisson(4, 1e19), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.exponential(4, { scale: -1 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.uniform(4, { low: 1, high: 1 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.uniform(4, { low: -Number.MAX_VALUE, high: Number.MAX_VALUE }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.integers(4, 5, 5), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.integers(4, 5, 2), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.integers(4, 0), RangeError, 'ERR_OUT_OF_RANGE'); // [0, 0)
    expectCode(() => g.integers(4, -1, 10, 'uint8'), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.integers(4, 0, 257, 'uint8'), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.integers(4, 0, 2n ** 63n + 1n, 'int64'), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.integers(4, 0.5, 3), TypeError, 'ERR_INVALID_ARG_TYPE');
  });
  test('bad dtypes', () => {
    expectCode(() => g.normal(4, { dtype: 'int32' }), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => g.uniform(4, { dtype: 'complex64' }), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => g.exponential(4, { dtype: 'uint8' }), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => g.integers(4, 0, 2, 'float32'), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => g.integers(4, 0, 2, 'bool'), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => g.poisson(4, 1, { dtype: 'float16' }), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => g.poisson(4, 1, { dtype: 'bfloat16' }), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => random.rand(4, 'int32'), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => random.randn(4, 'uint64'), TypeError, 'ERR_INVALID_DTYPE');
  });
  test('bad shapes, seeds, states, options', () => {
    expectCode(() => g.uniform(-1), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.uniform([2, 1.5]), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new random.Generator({ seed: -1 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new random.Generator({ seed: 2n ** 64n }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new random.Generator({ seed: 'x' as never }), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => new random.Generator({ algorithm: 'mt19937' as never }), RangeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => g.setState({ seed: 1n, offset: -1, algorithm: 'philox' }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.skipAhead(-1), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.uniform(4, 5 as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => g.fillUniform(new Float32Array(4) as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => random.seed(-3), RangeError, 'ERR_OUT_OF_RANGE');
  });
  test('state, setState and skipAhead move the offset (words)', () => {
    const h = new random.Generator({ seed: 2n ** 64n - 1n });
    expect(h.state).toEqual({ seed: 2n ** 64n - 1n, offset: 0, algorithm: 'philox' });
    h.skipAhead(5).skipAhead(3n);
    expect(h.state.offset).toBe(8);
    h.setState({ seed: 9n, offset: 17, algorithm: 'philox' });
    expect(h.state).toEqual({ seed: 9n, offset: 17, algorithm: 'philox' });
    // Unseeded generators differ (64 random bits each).
    expect(new random.Generator().state.seed).not.toBe(new random.Generator().state.seed);
  });
});

// ---- GPU -----------------------------------------------------------------------------------

const FLOATS: DTypeName[] = ['float16', 'bfloat16', 'float32', 'float64'];
const INTS: DTypeName[] = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'];

describeGpu('random: bit-exact against the JS reference', () => {
  const seed = 0x0123456789abcdefn;
  test('uint32 words are the Philox stream, from any offset', () => {
    for (const skip of [0, 1, 2, 3, 5, 2 ** 34 + 7]) {
      const g = new random.Generator({ seed }).skipAhead(skip);
      const a = g.integers([1001], 0, 2 ** 32, 'uint32');
      expectReference(values(a), 'integers', 'uint32', seed, skip, { low: 0n, range: 2n ** 32n });
      expect(g.state.offset).toBe(skip + 1001);
      a.dispose();
    }
  });
  test.each(FLOATS)('uniform %s: exact in [0, 1), scaled within 1 ulp', (d) => {
    for (const skip of [0, 3]) {
      const g = new random.Generator({ seed }).skipAhead(skip);
      const e0 = Math.ceil(skip / wordsPer('uniform', d));
      const a = g.uniform([1003], { dtype: d });
      const got = values(a);
      expectReference(got, 'uniform', d, seed, e0, { a: 0, b: 1 }, true);
      expect(got.every((v) => Number(v) >= 0 && Number(v) < 1)).toBe(true);
      const b = g.uniform([999], { low: -2, high: 3, dtype: d });
      expectReference(values(b), 'uniform', d, seed, e0 + 1003, { a: -2, b: 5 });
      a.dispose(); b.dispose();
    }
  });
  test.each(FLOATS)('normal, logNormal, exponential %s', (d) => {
    const g = new random.Generator({ seed });
    const c = wordsPer('normal', d);
    const n = g.normal([1001], { mean: 0.5, std: 2, dtype: d });
    expectReference(values(n), 'normal', d, seed, 0, { a: 0.5, b: 2 });
    const l = g.logNormal([64], { mean: 0.1, std: 0.4, dtype: d });
    expectReference(values(l), 'lognormal', d, seed, 1001, { a: 0.1, b: 0.4 });
    const e = g.exponential([67], { scale: 3, dtype: d });
    expectReference(values(e), 'exponential', d, seed, 1001 + 64, { a: 3 });
    expect(g.state.offset).toBe(c * (1001 + 64 + 67));
    for (const x of [n, l, e]) x.dispose();
  });
  test('normal and exponential float32: ln u on both sides of its series branch (u within 2^-7 of 1)', () => {
    // ln u takes the hardware log2 for u < 1 - 2^-7 and a series above: 2^18 draws put ~2000
    // words in the series branch and many close to the switch; every value must match.
    const g = new random.Generator({ seed: 0x5eed_1234n });
    const k = keyOf(0x5eed_1234n), N = 2 ** 18;
    const words = Array.from({ length: N / 4 }, (_, b) => philox(ctr(b), k)).flat();
    const nearOne = words.filter((x) => 1 - u01fOc(x) < 2 ** -7).length;
    const atSwitch = words.filter((x) => Math.abs(1 - u01fOc(x) - 2 ** -7) < 2 ** -10).length;
    expect(nearOne).toBeGreaterThan(1500);
    expect(atSwitch).toBeGreaterThan(100);
    const n = g.normal([N], { dtype: 'float32' });
    expectReference(values(n), 'normal', 'float32', 0x5eed_1234n, 0, { a: 0, b: 1 });
    const e = new random.Generator({ seed: 0x5eed_1234n }).exponential([N], { dtype: 'float32' });
    expectReference(values(e), 'exponential', 'float32', 0x5eed_1234n, 0, { a: 1 });
    n.dispose(); e.dispose();
  });
  test.each(INTS)('integers %s (rejection path included)', (d) => {
    const bits = DTYPES[d].bytes * 8;
    const signed = DTYPES[d].kind === 'i';
    const lo = signed ? -(1n << BigInt(bits - 1)) : 0n;
    const span = 1n << BigInt(bits);
    // a small range, 2/3 of the dtype (for 32/64-bit types the rejection path runs often), the whole dtype.
    for (const [low, high] of [[lo + 3n, lo + 13n], [lo, lo + (span * 2n) / 3n], [lo, lo + span]]) {
      const g = new random.Generator({ seed: seed + BigInt(bits) }).skipAhead(1);
      const e0 = Math.ceil(1 / wordsPer('integers', d));
      const a = g.integers([777], low, high, d);
      const got = values(a);
      expectReference(got, 'integers', d, seed + BigInt(bits), e0, { low, range: high - low });
      expect(got.every((v) => BigInt(v) >= low && BigInt(v) < high)).toBe(true);
      a.dispose();
    }
  });
  test('integers with high omitted: [0, low)', () => {
    const a = new random.Generator({ seed }).integers([500], 6);
    expect(a.dtype.name).toBe('int64');
    expectReference(values(a), 'integers', 'int64', seed, 0, { low: 0n, range: 6n });
  });
  test.each(['int64', 'int32', 'uint8', 'float64', 'float32'] as DTypeName[])('poisson %s, small lambda (multiplication)', (d) => {
    const g = new random.Generator({ seed }).skipAhead(2);
    for (const lam of [0, 0.5, 4, 9.5]) {
      const off = g.state.offset;
      const a = g.poisson([517], lam, { dtype: d });
      expectReference(values(a), 'poisson', d, seed, off, { a: lam });
      a.dispose();
    }
  });
  test('a float64 draw after an odd float32 draw starts at the next even word (no overlap)', () => {
    const g = new random.Generator({ seed });
    g.uniform([3], { dtype: 'float32' }).dispose();
    const a = g.uniform([10], { dtype: 'float64' });
    expectReference(values(a), 'uniform', 'float64', seed, 2, { a: 0, b: 1 }, true);
    expect(g.state.offset).toBe(4 + 20);
  });
});

const HIGH: Partial<Record<DTypeName, number>> = { int8: 100, uint8: 200, int16: 30000, uint16: 60000 };

/** Draws with generator g: the same request at the same state gives the same bits. */
type Draw = (g: InstanceType<typeof random.Generator>, shape: number) => GPUArray;
const DRAWS: Array<[string, Draw]> = [
  ...FLOATS.flatMap((d): Array<[string, Draw]> => [
    [`uniform ${d}`, (g, n) => g.uniform(n, { dtype: d })],
    [`normal ${d}`, (g, n) => g.normal(n, { dtype: d, mean: 1, std: 3 })],
    [`logNormal ${d}`, (g, n) => g.logNormal(n, { dtype: d })],
    [`exponential ${d}`, (g, n) => g.exponential(n, { dtype: d })],
  ]),
  ...INTS.map((d): [string, Draw] => [`integers ${d}`, (g, n) => g.integers(n, 0, HIGH[d] ?? 1000003, d)]),
  ['poisson 3 int64', (g, n) => g.poisson(n, 3)],
  ['poisson 50 int32', (g, n) => g.poisson(n, 50, { dtype: 'int32' })],
  ['poisson 1000 float64', (g, n) => g.poisson(n, 1000, { dtype: 'float64' })],
];

const bits = (a: GPUArray): number[] => {
  const h = a.get();
  return Array.from(new Uint8Array(h.buffer, h.byteOffset, h.byteLength));
};

describeGpu('random: reproducibility, splits, overlap', () => {
  test.each(DRAWS)('%s: one call of n+m equals n then m (any split, any start)', (_name, draw) => {
    for (const [skip, n, m] of [[0, 1, 99], [0, 3, 64], [1, 37, 63], [2, 4, 96], [3, 5, 0], [7, 33, 31]]) {
      const whole = draw(new random.Generator({ seed: 99 }).skipAhead(skip), n + m);
      const g = new random.Generator({ seed: 99 }).skipAhead(skip);
      const a = draw(g, n), b = draw(g, m);
      expect([...bits(a), ...bits(b)]).toEqual(bits(whole));
      // the next call continues where the whole one would have: no overlap with the first two
      const c = draw(g, 16);
      const whole2 = draw(new random.Generator({ seed: 99 }).skipAhead(skip), n + m + 16);
      expect(bits(c)).toEqual(bits(whole2).slice(whole.nbytes));
      for (const x of [whole, a, b, c, whole2]) x.dispose();
    }
  });
  test('same seed, same numbers; another seed, other numbers; consecutive calls differ', () => {
    const a = new random.Generator({ seed: 5 }).uniform([4096], { dtype: 'float32' }).get() as Float32Array;
    const b = new random.Generator({ seed: 5 }).uniform([4096], { dtype: 'float32' }).get() as Float32Array;
    const c = new random.Generator({ seed: 6 }).uniform([4096], { dtype: 'float32' }).get() as Float32Array;
    const g = new random.Generator({ seed: 5 });
    const d1 = g.uniform([4096], { dtype: 'float32' }).get() as Float32Array;
    const d2 = g.uniform([4096], { dtype: 'float32' }).get() as Float32Array;
    expect(b).toEqual(a);
    expect(d1).toEqual(a);
    const same = (x: Float32Array, y: Float32Array) => x.filter((v, i) => v === y[i]).length;
    expect(same(a, c)).toBeLessThan(10);
    expect(same(d1, d2)).toBeLessThan(10);
    expect(new Set([...d1, ...d2]).size).toBeGreaterThan(8180);
  });
  test('random.seed makes rand/randn reproducible; defaults are float32', () => {
    random.seed(1234);
    const a = random.rand([3, 5]);
    const z = random.randn(7);
    random.seed(1234n);
    const b = random.rand([3, 5]);
    const z2 = random.randn(7);
    expect(a.dtype.name).toBe('float32');
    expect(a.shape).toEqual([3, 5]);
    expect(z.dtype.name).toBe('float32');
    expect(b.get()).toEqual(a.get());
    expect(z2.get()).toEqual(z.get());
    expectReference(values(a), 'uniform', 'float32', 1234n, 0, { a: 0, b: 1 }, true);
    expect(random.rand(2, 'float64').dtype.name).toBe('float64');
  });
  test('state / setState replay, skipAhead equals drawing and discarding', () => {
    const g = new random.Generator({ seed: 77 });
    g.normal(13, { dtype: 'float32' }).dispose();
    const s = g.state;
    const a = g.normal([100], { dtype: 'float64' });
    g.setState(s);
    const b = g.normal([100], { dtype: 'float64' });
    expect(bits(b)).toEqual(bits(a));
    const h = new random.Generator({ seed: 77 }).skipAhead(13);
    expect(bits(h.normal([100], { dtype: 'float64' }))).toEqual(bits(a));
  });
  test('more than 2^30 elements (one launch per 2^30): the stream runs on across the launches', () => {
    const n = 2 ** 30 + 40, seed = 5n, skip = 3;
    const a = new random.Generator({ seed }).skipAhead(skip).integers(n, 0, 200, 'uint8');
    const edge = a.index(`${2 ** 30 - 24}:`);
    expectReference(values(edge), 'integers', 'uint8', seed, skip + 2 ** 30 - 24, { low: 0n, range: 200n });
    const b = new random.Generator({ seed }).skipAhead(skip + 2 ** 30 - 24).integers(64, 0, 200, 'uint8');
    expect(bits(b)).toEqual(bits(edge));
    a.dispose();
    b.dispose();
  });

  test('sizes 0 and 1, 0-d shapes, streams', () => {
    const g = new random.Generator({ seed: 3 });
    const e = g.uniform([0, 4], { dtype: 'float32' });
    expect(e.shape).toEqual([0, 4]);
    expect(g.state.offset).toBe(0);
    const s = g.uniform([], { dtype: 'float32' });
    expect(s.shape).toEqual([]);
    expect(g.state.offset).toBe(1);
    const stream = new driver.Stream();
    const x = g.normal([1000], { dtype: 'float32', stream });
    stream.synchronize();
    const y = new random.Generator({ seed: 3 }).skipAhead(1).normal([1000], { dtype: 'float32' });
    expect(bits(x)).toEqual(bits(y));
  });

  test('fill forms read { device }: the array\'s own device fills as without it; a bad one is refused, the state unmoved', () => {
    const a = gpuarray.empty([1000], 'float32'), b = gpuarray.empty([1000], 'float32');
    new random.Generator({ seed: 5 }).fillUniform(a, { device: 0 });
    new random.Generator({ seed: 5 }).fillUniform(b);
    expect(bits(a)).toEqual(bits(b));
    new random.Generator({ seed: 5 }).fillNormal(a, { device: new driver.Device(0) });
    new random.Generator({ seed: 5 }).fillNormal(b);
    expect(bits(a)).toEqual(bits(b));
    const g = new random.Generator({ seed: 5 }); // another device: test/asan/devices (two devices on the driver double)
    expectCode(() => g.fillExponential(a, { device: driver.Device.count() }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => g.fillLogNormal(a, 0, 1, { device: 'cuda:0' as never }), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => g.fillIntegers(gpuarray.empty([4], 'int32'), 0, 9, { device: -1 }), RangeError, 'ERR_OUT_OF_RANGE');
    expect(g.state.offset).toBe(0);
  });
});

describeGpu('random: integer fill forms on views', () => {
  const seed = 2024;
  const fresh = (shape: number[], d: DTypeName, f: (g: InstanceType<typeof random.Generator>, a: GPUArray) => void): GPUArray => {
    const a = gpuarray.empty(shape, d);
    f(new random.Generator({ seed }), a);
    return a;
  };
  // Float fill forms on views: test/90 ('fill forms on any layout').
  test('fillPoisson, fillIntegers into views; wrong dtypes are TypeErrors', () => {
    const base = gpuarray.zeros([8, 10], 'int32');
    const v = base.index('::2', '1:');
    new random.Generator({ seed }).fillPoisson(v, 6);
    const want = fresh([4, 9], 'int32', (g, a) => g.fillPoisson(a, 6));
    expect(bits(v.copy())).toEqual(bits(want));
    new random.Generator({ seed }).fillIntegers(v, -5, 5);
    const want2 = fresh([4, 9], 'int32', (g, a) => g.fillIntegers(a, -5, 5));
    expect(bits(v.copy())).toEqual(bits(want2));
    expect((base.get() as Int32Array).filter((x, i) => i % 10 === 0).every((x) => x === 0)).toBe(true); // outside the view
    const g = new random.Generator({ seed });
    expectCode(() => g.fillNormal(base), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => g.fillUniform(gpuarray.zeros(3, 'complex64')), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => g.fillIntegers(gpuarray.zeros(3, 'float32'), 0, 2), TypeError, 'ERR_INVALID_DTYPE');
  });
});

// ---- statistics ------------------------------------------------------------------------------

const N = 10_000_000;

function moments(x: ArrayLike<number | bigint>, f: (v: number) => number = (v) => v): { mean: number; variance: number } {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += f(Number(x[i]));
  const mean = s / x.length;
  let s2 = 0;
  for (let i = 0; i < x.length; i++) s2 += (f(Number(x[i])) - mean) ** 2;
  return { mean, variance: s2 / (x.length - 1) };
}

/** Mean and variance within 5 sigma of (mu, var), with mu4 the fourth central moment. */
function expectMoments(x: ArrayLike<number | bigint>, mu: number, v: number, mu4: number, f?: (v: number) => number): void {
  const m = moments(x, f);
  const n = x.length;
  expect(Math.abs(m.mean - mu)).toBeLessThan(5 * Math.sqrt(v / n));
  expect(Math.abs(m.variance - v)).toBeLessThan(5 * Math.sqrt((mu4 - v * v) / n));
}

function erfc(x: number): number { // Numerical Recipes erfcc, |relative error| < 1.2e-7
  const z = Math.abs(x), t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 +
    t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? r : 2 - r;
}

/** sqrt(n)·D of the Kolmogorov–Smirnov test (below 1.95: p > 0.001). */
function ks(x: ArrayLike<number>, cdf: (v: number) => number): number {
  const s = Float64Array.from(x).sort();
  let d = 0;
  for (let i = 0; i < s.length; i++) {
    const f = cdf(s[i]);
    d = Math.max(d, (i + 1) / s.length - f, f - i / s.length);
  }
  return Math.sqrt(s.length) * d;
}

/** Chi-square of counts against equal expected counts; below dof + 5·sqrt(2·dof). */
function expectUniformCounts(counts: number[]): void {
  const total = counts.reduce((a, b) => a + b, 0), e = total / counts.length;
  const chi2 = counts.reduce((s, c) => s + (c - e) ** 2 / e, 0);
  const dof = counts.length - 1;
  expect(chi2).toBeLessThan(dof + 5 * Math.sqrt(2 * dof));
}

describeGpu('random: statistics of 10^7 samples', () => {
  const g = new random.Generator({ seed: 31337 });
  test.each(['float32', 'float64'] as DTypeName[])('uniform %s: moments and KS', (d) => {
    const x = g.uniform([N], { dtype: d }).get() as Float32Array;
    expectMoments(x, 0.5, 1 / 12, 1 / 80);
    expect(ks(x.subarray(0, 1_000_000), (v) => Math.min(1, Math.max(0, v)))).toBeLessThan(1.95);
  });
  test('uniform float16 with low/high: moments', () => {
    const x = decode('float16', g.uniform([N], { dtype: 'float16', low: 2, high: 6 }).get()) as number[];
    expect(x.every((v) => v >= 2 && v <= 6)).toBe(true);
    expectMoments(x, 4, 16 / 12, 256 / 80);
  });
  test('uniform bfloat16 with low/high: moments; [0, 1) on the 2^-8 grid', () => {
    const x = decode('bfloat16', g.uniform([N], { dtype: 'bfloat16', low: 2, high: 6 }).get()) as number[];
    expect(x.every((v) => v >= 2 && v <= 6)).toBe(true);
    // The 256 equally likely values 2 + 4k/256, each rounded to bfloat16: the moments of that set.
    const vals = Array.from({ length: 256 }, (_, k) => toBf16(2 + (4 * k) / 256));
    const mu = vals.reduce((p, v) => p + v, 0) / 256;
    const va = vals.reduce((p, v) => p + (v - mu) ** 2, 0) / 256, m4 = vals.reduce((p, v) => p + (v - mu) ** 4, 0) / 256;
    expectMoments(x, mu, va, m4);
    const u = decode('bfloat16', g.uniform([4096], { dtype: 'bfloat16' }).get()) as number[];
    expect(u.every((v) => v >= 0 && v < 1 && Number.isInteger(v * 256))).toBe(true);
    expect(new Set(u).size).toBe(256);
  });
  test.each(['float32', 'float64', 'float16', 'bfloat16'] as DTypeName[])('normal %s: moments and KS', (d) => {
    const x = decode(d, g.normal([N], { dtype: d, mean: 2, std: 3 }).get()) as number[];
    expectMoments(x, 2, 9, 3 * 81, undefined);
    if (d !== 'float16' && d !== 'bfloat16') expect(ks(x.slice(0, 1_000_000), (v) => 0.5 * erfc(-(v - 2) / (3 * Math.SQRT2)))).toBeLessThan(1.95);
  });
  test('logNormal: log of the samples is normal; exponential: mean, variance and KS', () => {
    const l = g.logNormal([N], { mean: 0.5, std: 0.75, dtype: 'float32' }).get() as Float32Array;
    expect(l.every((v) => v > 0)).toBe(true);
    expectMoments(l, 0.5, 0.5625, 3 * 0.5625 ** 2, Math.log);
    const e = g.exponential([N], { scale: 2, dtype: 'float32' }).get() as Float32Array;
    expect(e.every((v) => v >= 0 && !Object.is(v, -0))).toBe(true);
    expectMoments(e, 2, 4, 9 * 16);
    expect(ks(e.subarray(0, 1_000_000), (v) => 1 - Math.exp(-v / 2))).toBeLessThan(1.95);
  });
  test.each([0.5, 4, 12, 1000])('poisson lambda %p: mean and variance', (lam) => {
    const x = g.poisson([N], lam).get() as BigInt64Array;
    expectMoments(x, lam, lam, lam * (1 + 3 * lam));
    expect(x.every((v) => v >= 0n)).toBe(true);
  });
  test('integers: every value of [low, high) equally often (chi-square)', () => {
    const x = g.integers([N], -3, 7, 'int32').get() as Int32Array;
    const counts = new Array(10).fill(0);
    for (const v of x) counts[v + 3]++;
    expectUniformCounts(counts);
  });
  test('integers: no multiply-shift bias (ranges of 2/3 of the word: odd/even, mod 3)', () => {
    // Without rejection, these ranges give some values twice the probability of others.
    const a = g.integers([N], 0, 2863311530, 'uint32').get() as Uint32Array;
    const par = [0, 0], mod3 = [0, 0, 0];
    for (const v of a) { par[v & 1]++; mod3[v % 3]++; }
    expectUniformCounts(par);
    expectUniformCounts(mod3);
    const b = g.integers([N / 4], 0n, 3n * 2n ** 61n, 'int64').get() as BigInt64Array;
    const m3 = [0, 0, 0], p2 = [0, 0];
    for (const v of b) { m3[Number(v % 3n)]++; p2[Number(v & 1n)]++; }
    expectUniformCounts(m3);
    expectUniformCounts(p2);
  });
});
