/**
 * unique's values by bitmaps (int32 and uint32, the values alone, at least 2^16 elements over a
 * range wider than the counting path takes; docs/sorting.md): the sort stops at the keys' top 16
 * bits and per-bucket bitmaps give the values. Against a CPU reference (the typed array sorted and
 * deduplicated) and against the full sort (NODECUDA_UNIQUE_BITMAP=0), for ranges over every
 * bucket, one bucket, one top byte, bucket edges and the dtype's ends, skewed and all-distinct
 * inputs, odd sizes; views, 2-D inputs and streams; and that the other return options do not take it.
 * The result kernel's 'slots' write (NODECUDA_UNIQUE_BITMAP_WRITE=slots) runs in a child process.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import * as cuda from '../lib';
import { GPUArray, gpuarray, slice } from '../lib';
import * as sortEngine from '../lib/engine/sort';
import { BITMAP_LOW_PASSES } from '../lib/engine/templates/unique_bitmap';
import { describeGpu, expectCode } from './helpers';
import { softly } from './reference';
import { rng } from './reduce-reference';
const { Math } = globalThis;

type Ints = Int32Array | Uint32Array;
type D = 'int32' | 'uint32';

/** The sorted distinct values of xs. */
function uniqueRef(xs: Ints): Ints {
  const s = xs.slice().sort();
  let k = 0;
  for (let i = 0; i < s.length; i++) if (i === 0 || s[i] !== s[k - 1]) s[k++] = s[i];
  return s.slice(0, k);
}

/** The first index where a and b differ (or their lengths), for a short message. */
function firstDiff(a: Ints, b: Ints): string {
  if (a.length !== b.length) return `length ${a.length} vs ${b.length}`;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return `at ${i}: ${a[i]} vs ${b[i]}`;
  return '';
}

function expectSame(got: Ints, want: Ints, label: string): void {
  const d = firstDiff(got, want);
  if (d) throw new Error(`${label}: ${d}`);
}

/** Runs `fn` with NODECUDA_UNIQUE_BITMAP set to `v`, then restores the variable. */
function withBitmap<T>(v: string, fn: () => T): T {
  const old = process.env.NODECUDA_UNIQUE_BITMAP;
  process.env.NODECUDA_UNIQUE_BITMAP = v;
  try {
    return fn();
  } finally {
    if (old === undefined) delete process.env.NODECUDA_UNIQUE_BITMAP;
    else process.env.NODECUDA_UNIQUE_BITMAP = old;
  }
}

/**
 * unique(a) as a typed array; `bitmap`: the bitmap path ran (the sort stopped at the top 16 bits,
 * the bitmaps launched, the range not counted after all); `counted`: the counting path ran.
 */
function run(a: GPUArray, opts: cuda.UniqueOptions = {}): { values: Ints; bitmap: boolean; counted: boolean } {
  const bm = jest.spyOn(sortEngine, 'uniqueBitmap');
  const sorts = jest.spyOn(sortEngine, 'runSort');
  const hist = jest.spyOn(sortEngine, 'uniqueHistogram');
  try {
    const r = gpuarray.unique(a, opts);
    opts.stream?.synchronize();
    const v = r instanceof GPUArray ? r : r.values;
    expect(v.dtype).toBe(a.dtype);
    const values = v.get() as Ints;
    const low = sorts.mock.calls.map(([s]) => s.range?.low ?? 0);
    const launched = bm.mock.calls.length === 1;
    expect(low).toEqual(launched ? [BITMAP_LOW_PASSES] : low.map(() => 0));
    const counted = hist.mock.calls.length > 0;
    return { values, bitmap: launched && !counted, counted };
  } finally {
    bm.mockRestore();
    sorts.mockRestore();
    hist.mockRestore();
  }
}

/** n values of d from gen(r, i) (r uniform in [0, 1)), as the dtype's typed array. */
function make(d: D, n: number, seed: number, gen: (r: () => number, i: number) => number): Ints {
  const r = rng(seed);
  const xs = d === 'int32' ? new Int32Array(n) : new Uint32Array(n);
  for (let i = 0; i < n; i++) xs[i] = gen(r, i);
  return xs;
}

describeGpu('unique by bitmaps (4-byte integers, values alone)', () => {
  test.each(['int32', 'uint32'] as D[])('%s: ranges and distributions against the CPU reference and the full sort', (d) => {
    const check = softly();
    const [L, H] = d === 'int32' ? [-(2 ** 31), 2 ** 31 - 1] : [0, 2 ** 32 - 1];
    const full = (r: () => number) => L + Math.floor(r() * 2 ** 32);
    const cases: Array<[string, number, (r: () => number, i: number) => number]> = [
      ['every bucket (the whole dtype)', 2 ** 20 + 3, full],
      ['[0, 2^30) (the bench\'s input, smaller)', 2 ** 22, (r) => Math.floor(r() * 2 ** 30)],
      ['the lowest 2^26 values', 2 ** 18 + 1, (r) => L + Math.floor(r() * 2 ** 26)],
      ['the highest 2^26 values', 2 ** 18 + 2, (r) => H - Math.floor(r() * 2 ** 26)],
      ['bucket edges (k · 65536 - 1, + 0, + 1) and the dtype\'s ends', 2 ** 17 + 5, (r, i) => {
        if (i % 97 === 0) return i % 2 ? L : H;
        const k = Math.floor(r() * 65536) * 65536 + L;
        return Math.min(H, Math.max(L, k + Math.floor(r() * 3) - 1));
      }],
      ['skewed: 7 of 8 elements one value, the rest over the dtype', 2 ** 20, (r) => (r() < 7 / 8 ? 12345 : full(r))],
      ['two values, the dtype\'s ends (at 2^16 elements)', 2 ** 16, (r, i) => (i % 3 ? L : H)],
      ['every value distinct, descending, 97 apart', 2 ** 19 + 7, (r, i) => L + 97 * (2 ** 19 + 7 - i)],
      ['one bucket, 65536 values (2^16 + 1 elements)', 2 ** 16 + 1, (r) => 7 * 65536 + Math.floor(r() * 65536)],
      ['two buckets, 65536 values off a bucket edge', 2 ** 16 + 3, (r) => 7 * 65536 + 1000 + Math.floor(r() * 65536)],
      ['one top byte, two middle bytes (the top pass trivial)', 2 ** 20 + 1, (r) => 5 * 2 ** 24 + Math.floor(r() * 2 ** 24)],
    ];
    cases.forEach(([label, n, gen], j) => {
      check(() => cuda.tidy(() => {
        const xs = make(d, n, 700 + j, gen);
        const a = gpuarray.toGpu(xs);
        const want = uniqueRef(xs);
        const on = run(a);
        expect(on.bitmap).toBe(true);
        expectSame(on.values, want, `${d} ${label} (n = ${n}, ${want.length} values)`);
        const off = withBitmap('0', () => run(a));
        expect(off.bitmap).toBe(false);
        expectSame(off.values, want, `${d} ${label}, NODECUDA_UNIQUE_BITMAP=0`);
      }));
    });
    check.done();
  });

  test('a range of n / 4 values is counted (no sort, no bitmaps); one more takes the bitmaps', () => cuda.tidy(() => {
    const n = 2 ** 18;
    for (const [extra, bitmap] of [[0, false], [1, true]] as const) {
      const xs = make('int32', n, 800 + extra, (r) => -5 + Math.floor(r() * (n / 4 + extra)));
      xs[0] = -5;
      xs[1] = -5 + n / 4 - 1 + extra;
      const got = run(gpuarray.toGpu(xs));
      expect(got.bitmap).toBe(bitmap);
      expect(got.counted).toBe(!bitmap);
      expectSame(got.values, uniqueRef(xs), `range n / 4 + ${extra}`);
    }
  }));

  test('the \'slots\' write (NODECUDA_UNIQUE_BITMAP_WRITE=slots, in a child process): the same values', () => {
    const dist = JSON.stringify(path.resolve(__dirname, '..', 'dist'));
    const script = `const { gpuarray } = require(${dist});
      const { BITMAP_WRITE } = require(${JSON.stringify(path.resolve(__dirname, '..', 'dist', 'engine', 'templates', 'unique_bitmap'))});
      const out = [BITMAP_WRITE];
      let seed = 7;
      const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
      const gens = [() => Math.floor(rand() * 2 ** 30), () => Math.floor(rand() * 2 ** 32) - 2 ** 31, () => (rand() < 0.9 ? 5 : Math.floor(rand() * 2 ** 32))];
      for (const [T, n] of [[Int32Array, (1 << 21) + 5], [Uint32Array, (1 << 20) + 3], [Int32Array, 1 << 16]]) {
        for (const gen of gens) {
          const x = new T(n);
          for (let i = 0; i < n; i++) x[i] = gen();
          const s = T.from(x).sort();
          let k = 0;
          for (let i = 0; i < n; i++) if (i === 0 || s[i] !== s[k - 1]) s[k++] = s[i];
          const got = gpuarray.unique(gpuarray.toGpu(x)).get();
          out.push(got.length === k && got.every((v, i) => v === s[i]));
        }
      }
      console.log(JSON.stringify(out));`;
    const r = spawnSync(process.execPath, ['-e', script], {
      env: { ...process.env, NODECUDA_UNIQUE_BITMAP_WRITE: 'slots' }, encoding: 'utf8', timeout: 120000,
    });
    if (r.status !== 0) throw new Error(`the child exited ${r.status ?? r.signal}: ${r.stderr}`);
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual(['slots', ...Array(9).fill(true)]);
  });

  test('views, 2-D inputs and streams; other return options sort fully', () => {
    const check = softly();
    const xs = make('int32', 2 * (2 ** 18) + 2, 901, (r) => Math.floor(r() * 2 ** 31) - 2 ** 30);
    check(() => cuda.tidy(() => {
      const v = gpuarray.toGpu(xs).index(slice(1, null, 2));
      const got = run(v);
      expect(got.bitmap).toBe(true);
      expectSame(got.values, uniqueRef(xs.filter((_, i) => i % 2 === 1)), 'every second element');
    }));
    check(() => cuda.tidy(() => {
      const m = gpuarray.toGpu(xs.subarray(0, 512 * 1024), { shape: [512, 1024] });
      const got = run(m.T);
      expect(got.bitmap).toBe(true);
      expectSame(got.values, uniqueRef(xs.subarray(0, 512 * 1024)), 'transposed 2-D');
    }));
    for (const flags of [cuda.driver.streamFlags.DEFAULT, cuda.driver.streamFlags.NON_BLOCKING]) {
      check(() => {
        const s = new cuda.driver.Stream(flags);
        try {
          cuda.tidy(() => {
            const a = gpuarray.toGpu(xs);
            cuda.driver.Context.synchronize(); // the upload, before a non-blocking stream reads it
            const got = run(a, { stream: s });
            expect(got.bitmap).toBe(true);
            expectSame(got.values, uniqueRef(xs), `on a stream (flags ${flags})`);
          });
        } finally {
          s.dispose();
        }
      });
    }
    check(() => cuda.tidy(() => {
      const a = gpuarray.toGpu(xs);
      for (const o of [{ returnCounts: true }, { returnIndex: true }, { returnInverse: true }]) {
        const got = run(a, o);
        expect(got.bitmap).toBe(false);
        expectSame(got.values, uniqueRef(xs), `values with ${Object.keys(o)[0]}`);
      }
    }));
    check(() => cuda.tidy(() => {
      const a = gpuarray.toGpu(xs);
      withBitmap('2', () => expectCode(() => gpuarray.unique(a), RangeError, 'ERR_INVALID_ENV'));
      const again = run(a); // the process keeps working
      expectSame(again.values, uniqueRef(xs), 'after the invalid variable');
    }));
    check.done();
  });
});
