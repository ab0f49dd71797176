/**
 * Sorting on a real GPU against a CPU reference (docs/sorting.md): sort/argsort for every dtype
 * (stable: argsort indices checked exactly; NaNs last; -0.0 before +0.0; complex by real then
 * imaginary part, NaN largest in each part), sizes 0 … 2^20+3 and one 2^24 float32, duplicates,
 * all-equal, sorted and reversed inputs, int extremes, non-contiguous and broadcast inputs, axis
 * 0/1/-1/null of 2-D and 3-D arrays; unique with every return option; unique's counting path for
 * integers and bool of a small range (every integer dtype and bool against a CPU reference, the
 * bound between counting and sorting, NODECUDA_UNIQUE_COUNTING=0, views, 2-D, streams);
 * searchsorted left/right, with a sorter and NaN. Argument errors raised before any GPU work and
 * the counting path's CPU reference itself are CPU tests at the end.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import * as cuda from '../lib';
import { GPUArray, gpuarray, slice } from '../lib';
import type { DTypeName } from '../lib';
import * as sortEngine from '../lib/engine/sort';
import { native } from '../lib/cuda/native';
import { sortTile } from '../lib/engine/templates/sort';
import { UNIQUE_COUNTING_MIN, uniqueCountingBins } from '../lib/array/sorting';
import { describeGpu, expectCode } from './helpers';
import { C, DTYPE_NAMES, V, download, kind, softly, upload, viewOf } from './reference';
import { rng } from './reduce-reference';
import { INT_RANGE, argsortRef, argsortRows, cmp, expectIndices, expectValues, values } from './sort-reference';
const { Math, Number, BigInt } = globalThis;

// ---- reference ----------------------------------------------------------------------------------

/** NumPy's unique of a flat list of integers (numbers or bigints): sorted values, first indices, inverse, counts. */
function uniqueRef(xs: V[]): { values: V[]; first: number[]; inverse: number[]; counts: number[] } {
  const first = new Map<V, number>();
  const count = new Map<V, number>();
  xs.forEach((x, i) => {
    if (!first.has(x)) first.set(x, i);
    count.set(x, (count.get(x) ?? 0) + 1);
  });
  const values = [...first.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const rank = new Map(values.map((v, j) => [v, j]));
  return {
    values, first: values.map((v) => first.get(v)!), inverse: xs.map((x) => rank.get(x)!), counts: values.map((v) => count.get(v)!),
  };
}

// ---- inputs -------------------------------------------------------------------------------------

/** The integer dtypes and bool: unique's counting path. */
const COUNTABLE: DTypeName[] = ['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'];
/** [lowest, highest] of an integer dtype or bool. */
const limitsOf = (d: DTypeName): [bigint, bigint] => (d === 'bool' ? [0n, 1n] : INT_RANGE[d]!);
/**
 * n values of d uniform in [lo, hi] (at most 2^53 apart), with lo at index n / 2 and hi at the last
 * index, so the range is exactly [lo, hi]; 64-bit dtypes as bigints, the others as numbers.
 */
function spread(d: DTypeName, n: number, lo: bigint, hi: bigint, seed: number): V[] {
  const r = rng(seed);
  const span = Number(hi - lo + 1n);
  const xs = Array.from({ length: n }, () => lo + BigInt(Math.floor(r() * span)));
  xs[n >> 1] = lo;
  xs[n - 1] = hi;
  return xs.map((v) => (d.endsWith('64') ? v : Number(v)));
}

/** The sorted values and argsort of a flat list (the reference both answers come from). */
function check1d(d: DTypeName, xs: V[], label: string): void {
  const a = upload(d, xs);
  const order = argsortRef(xs);
  const want = order.map((i) => xs[i]);
  expectValues(download(gpuarray.sort(a)), want, `${label} sort`);
  expectIndices(gpuarray.argsort(a), order, `${label} argsort`);
}

/**
 * unique of `a` (C-order values `xs`) against uniqueRef: values (a's dtype), then every return
 * option at once (inverse of a's shape) and each alone (the histogram without first indices, the
 * results without ranks), on `stream` (synchronized before each read). `path`: whether the
 * counting path runs (its histogram launched once a call) or the sort.
 */
function checkUnique(a: GPUArray, xs: V[], label: string, path: 'counts' | 'sorts', stream?: cuda.Stream): void {
  const want = uniqueRef(xs);
  const hist = jest.spyOn(sortEngine, 'uniqueHistogram');
  try {
    const run = (o: cuda.UniqueOptions): GPUArray | cuda.UniqueResult => {
      const r = gpuarray.unique(a, { ...o, stream });
      stream?.synchronize();
      return r;
    };
    const plain = run({}) as GPUArray;
    expect(plain.dtype).toBe(a.dtype);
    expectValues(download(plain), want.values, `${label}: values`);
    const all = run({ returnIndex: true, returnInverse: true, returnCounts: true }) as cuda.UniqueResult;
    expectValues(download(all.values), want.values, `${label}: values (all options)`);
    expectIndices(all.indices!, want.first, `${label}: first indices`);
    expect([...all.inverse!.shape]).toEqual([...a.shape]);
    expectIndices(all.inverse!, want.inverse, `${label}: inverse`);
    expectIndices(all.counts!, want.counts, `${label}: counts`);
    const alone = { indices: want.first, inverse: want.inverse, counts: want.counts };
    const opt = { indices: 'returnIndex', inverse: 'returnInverse', counts: 'returnCounts' } as const;
    for (const key of ['indices', 'inverse', 'counts'] as const) {
      const r = run({ [opt[key]]: true }) as cuda.UniqueResult;
      expectValues(download(r.values), want.values, `${label}: values (${opt[key]} alone)`);
      expect(Object.keys(r).filter((k) => k !== 'values' && r[k as keyof cuda.UniqueResult] !== undefined)).toEqual([key]);
      expectIndices(r[key]!, alone[key], `${label}: ${key} (${opt[key]} alone)`);
    }
    expect(hist).toHaveBeenCalledTimes(path === 'counts' ? 5 : 0);
  } finally {
    hist.mockRestore();
  }
}

/** Runs `fn` with NODECUDA_UNIQUE_COUNTING=0 (unique sorts every input), then restores the variable. */
function countingOff<T>(fn: () => T): T {
  const old = process.env.NODECUDA_UNIQUE_COUNTING;
  process.env.NODECUDA_UNIQUE_COUNTING = '0';
  try {
    return fn();
  } finally {
    if (old === undefined) delete process.env.NODECUDA_UNIQUE_COUNTING;
    else process.env.NODECUDA_UNIQUE_COUNTING = old;
  }
}

describeGpu('sorting', () => {
  describe('sort / argsort, 1-D', () => {
    test.each(DTYPE_NAMES)('%s: n = 0, 1, 2, 31, 1000, 4097, 2^20+3; random and duplicates', (d) => {
      const check = softly();
      for (const n of [0, 1, 2, 31, 1000, 4097, 2 ** 20 + 3]) {
        check(() => cuda.tidy(() => check1d(d, values(d, n, n + 7), `${d} n=${n}`)));
        check(() => cuda.tidy(() => check1d(d, values(d, n, n + 8, 5), `${d} n=${n} 5 distinct`)));
      }
      check.done();
    });

    test.each(DTYPE_NAMES)('%s: all equal, sorted, reversed, 3 distinct (stability), int extremes, n = 100003', (d) => {
      const check = softly();
      const n = 100003;
      const xs = values(d, n, 99);
      const sortedXs = argsortRef(xs).map((i) => xs[i]);
      check(() => cuda.tidy(() => check1d(d, new Array(n).fill(xs[0]), `${d} all equal`)));
      check(() => cuda.tidy(() => check1d(d, sortedXs, `${d} sorted`)));
      check(() => cuda.tidy(() => check1d(d, sortedXs.slice().reverse(), `${d} reversed`)));
      check(() => cuda.tidy(() => check1d(d, values(d, n, 5, 3), `${d} 3 distinct`)));
      if (INT_RANGE[d]) {
        const [lo, hi] = INT_RANGE[d]!;
        const ext = [lo, hi, lo + 1n, hi - 1n, 0n, lo, hi].map((v) => (d.endsWith('64') ? v : Number(v)));
        check(() => cuda.tidy(() => check1d(d, ext, `${d} extremes`)));
      }
      check.done();
    });

    // The scatter pass pads the last tile's missing keys with all ones (digit 255 in every pass,
    // ranked after every real key of the tile, never stored): n a key short of, at and past whole
    // tiles (keys only and with a payload: each its own tile), with two thirds of the last tile's
    // real keys the largest key there is (all ones once transformed: NaN, the integer maximum),
    // which tie with the padding (argsort's indices check their order exactly).
    test.each(['uint8', 'float16', 'int32', 'uint32', 'float32', 'float64', 'uint64'] as DTypeName[])(
      '%s: n at whole scatter tiles ± 1, the last tile mostly the largest key', (d) => {
        const check = softly();
        const kb = d === 'uint8' ? 1 : d === 'float16' ? 2 : d.endsWith('64') ? 8 : 4;
        const top: V = kind(d) === 'f' ? NaN : d.endsWith('64') ? INT_RANGE[d]![1] : Number(INT_RANGE[d]![1]);
        for (const T of new Set([sortTile(kb, false), sortTile(kb, true)])) {
          for (const n of [T - 1, T, T + 1, 3 * T - 1, 3 * T + 1]) {
            const xs = values(d, n, n);
            const tail = n % T || T; // real keys in the last tile
            for (let i = n - tail; i < n; i++) if (i % 3 !== 0) xs[i] = top;
            check(() => cuda.tidy(() => check1d(d, xs, `${d} n = ${n} (tiles of ${T})`)));
          }
        }
        check.done();
      });

    // prep's histogram-only path loads 16-byte vectors: a view that starts past a 16-byte boundary
    // has a head of single elements, and lengths leave a partial tile and a tail (the last block's).
    // unique's range variant of it for 4- and 8-byte integers (2^16 elements and more).
    test.each(DTYPE_NAMES.filter((d) => kind(d) !== 'c'))('%s: views at every element offset within 16 bytes; heads, partial tiles, tails', (d) => {
      const check = softly();
      for (const n of [1, 37, 70001, 2 ** 18 + 13]) {
        const xs = values(d, n + 16, n + 11);
        check(() => cuda.tidy(() => {
          const big = upload(d, xs);
          const per = 16 / big.itemsize;
          const offsets = n > 70001 ? [1, per - 1] : Array.from({ length: per }, (_, k) => k);
          for (const off of offsets) {
            const ys = xs.slice(off, off + n);
            const a = big.index(slice(off, off + n));
            expect(Number(a.ptr % 16n)).toBe((Number(big.ptr % 16n) + off * big.itemsize) % 16);
            const order = argsortRef(ys);
            expectValues(download(gpuarray.sort(a)), order.map((i) => ys[i]), `${d} n = ${n} from element ${off}: sort`);
            expectIndices(gpuarray.argsort(a), order, `${d} n = ${n} from element ${off}: argsort`);
            if (n > 2 ** 16 && kind(d) !== 'f') expectValues(download(gpuarray.unique(a)), uniqueRef(ys).values, `${d} n = ${n} from element ${off}: unique`);
          }
        }));
      }
      check.done();
    });

    // Views large enough that prep's blocks take several 16-byte-vector tiles each (the grid is
    // capped at 16 blocks an SM): float32 and int32 from element 1, uint8 from element 3.
    test('views past a 16-byte boundary with several tiles a block: float32 and int32 (10^7 + 19), uint8 (4 × 10^7 + 5)', () => {
      const n = 10_000_019;
      const r = rng(12);
      const f = new Float32Array(n + 1).map(() => Math.fround((r() - 0.5) * 1e6));
      const i = new Int32Array(n + 1).map(() => Math.floor(r() * 2 ** 31) - 2 ** 30);
      const u = new Uint8Array(4e7 + 8).map(() => Math.floor(r() * 256));
      const bytes = (x: ArrayBufferView): Buffer => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
      cuda.tidy(() => {
        const fs = gpuarray.sort(gpuarray.toGpu(f).index(slice(1, null))).get() as Float32Array;
        expect(Buffer.compare(bytes(fs), bytes(f.subarray(1).slice().sort()))).toBe(0);
        const iu = gpuarray.unique(gpuarray.toGpu(i).index(slice(1, null))).get() as Int32Array;
        const want = Int32Array.from(new Set(i.subarray(1))).sort();
        expect(Buffer.compare(bytes(iu), bytes(want))).toBe(0);
        const us = gpuarray.sort(gpuarray.toGpu(u).index(slice(3, 3 + 4e7 + 5))).get() as Uint8Array;
        expect(Buffer.compare(bytes(us), bytes(u.subarray(3, 3 + 4e7 + 5).slice().sort()))).toBe(0);
      });
    });

    test('float NaN payloads and signs, ±Inf, -0.0 / +0.0 (float16, float32, float64)', () => cuda.tidy(() => {
      const f32 = new Float32Array([NaN, 1, -0, 0, -Infinity, Infinity, -1, 0, -0, NaN]);
      new Uint32Array(f32.buffer)[9] = 0xffc00123; // a negative NaN with a payload
      const r = gpuarray.sort(gpuarray.toGpu(f32)).get() as Float32Array;
      expect(Array.from(r.subarray(0, 8)).map((x) => Object.is(x, -0) ? '-0' : String(x)))
        .toEqual(['-Infinity', '-1', '-0', '-0', '0', '0', '1', 'Infinity']);
      expect([Number.isNaN(r[8]), Number.isNaN(r[9])]).toEqual([true, true]);
      expect(Array.from(gpuarray.argsort(gpuarray.toGpu(f32)).get() as BigInt64Array).map(Number)).toEqual([4, 6, 2, 8, 3, 7, 1, 5, 0, 9]);
      for (const d of ['float16', 'float64'] as const) check1d(d, [NaN, 1, -0, 0, -Infinity, Infinity, -1, 0, -0, NaN, 2], d);
    }));

    test('complex: lexicographic, NaN largest in each part', () => cuda.tidy(() => {
      const xs: C[] = [{ re: 1, im: NaN }, { re: NaN, im: 0 }, { re: 1, im: 2 }, { re: 0, im: 5 }, { re: NaN, im: NaN },
        { re: 1, im: -1 }, { re: -Infinity, im: 3 }, { re: NaN, im: -1 }, { re: 1, im: 2 }];
      for (const d of ['complex64', 'complex128'] as const) check1d(d, xs, d);
    }));

    test('float32 of 2^24 elements', () => cuda.tidy(() => {
      const n = 2 ** 24;
      const h = new Float32Array(n);
      const r = rng(3);
      for (let i = 0; i < n; i++) h[i] = Math.floor(r() * 1e6) / 7;
      const a = gpuarray.toGpu(h);
      const idx = gpuarray.argsort(a).get() as BigInt64Array;
      const s = gpuarray.sort(a).get() as Float32Array;
      let bad = -1;
      for (let i = 0; i < n && bad < 0; i++) {
        const p = Number(idx[i]);
        if (s[i] !== h[p]) bad = i;
        else if (i > 0 && (s[i - 1] > s[i] || (s[i - 1] === s[i] && Number(idx[i - 1]) >= p))) bad = i;
      }
      expect(bad).toBe(-1);
    }));
  });

  describe('along an axis, views', () => {
    const DS: DTypeName[] = ['bool', 'uint8', 'int16', 'float16', 'float32', 'int64', 'float64', 'complex64', 'complex128'];
    test.each(DS)('%s: 2-D and 3-D, axis 0, 1, -1, null (values and indices)', (d) => {
      const check = softly();
      for (const shape of [[37, 129], [5, 6, 300], [3000, 2]]) {
        const xs = values(d, shape.reduce((p, q) => p * q, 1), shape[0], 7);
        for (const axis of [0, 1, -1, null]) {
          check(() => cuda.tidy(() => {
            const a = upload(d, xs, shape);
            if (axis === null) {
              const order = argsortRef(xs);
              expectValues(download(gpuarray.sort(a, { axis: null })), order.map((i) => xs[i]), `${shape} null`);
              expectIndices(gpuarray.argsort(a, { axis: null }), order, `${shape} null`);
              return;
            }
            const ax = axis < 0 ? shape.length + axis : axis;
            // The reference: move the axis last (C order), sort rows, move it back.
            const perm = shape.map((_, i) => i).filter((i) => i !== ax).concat([ax]);
            const pshape = perm.map((i) => shape[i]);
            const cstr = shape.map((_, i) => shape.slice(i + 1).reduce((p, q) => p * q, 1));
            const moved = viewOf(xs, pshape, perm.map((i) => cstr[i]));
            const len = shape[ax];
            const idx = argsortRows(moved, len);
            const vals = idx.map((k, j) => moved[j - (j % len) + k]);
            const inv = shape.map((_, i) => perm.indexOf(i));
            const pstr = pshape.map((_, i) => pshape.slice(i + 1).reduce((p, q) => p * q, 1));
            const back = <T>(v: T[]): T[] => viewOf(v, shape, inv.map((i) => pstr[i]));
            const s = gpuarray.sort(a, { axis });
            expect([...s.shape]).toEqual(shape);
            expectValues(download(s), back(vals), `${shape} axis ${axis} sort`);
            expectIndices(gpuarray.argsort(a, { axis }), back(idx), `${shape} axis ${axis} argsort`);
          }));
        }
      }
      check.done();
    });

    test('non-contiguous (transposed, stepped) and broadcast inputs; out; in-place method', () => cuda.tidy(() => {
      const xs = values('float32', 40 * 50, 11, 9);
      const a = upload('float32', xs, [40, 50]);
      const t = a.T; // [50, 40], rows are a's columns
      const tv = viewOf(xs, [50, 40], [1, 50]);
      expectValues(download(gpuarray.sort(t)), argsortRows(tv, 40).map((k, j) => tv[j - (j % 40) + k]), 'transposed');
      const st = a.index(slice(null, null, 3), slice(1, null, 2)); // [14, 25]
      const sv = viewOf(xs, [14, 25], [150, 2], 1);
      expectIndices(gpuarray.argsort(st), argsortRows(sv, 25), 'stepped');
      const b = upload('int32', [5, 1, 3]).broadcastTo([4, 3]);
      expectValues(download(gpuarray.sort(b, { axis: 0 })), Array(12).fill(0).map((_, i) => [5, 1, 3][i % 3]), 'broadcast axis 0');
      expectIndices(gpuarray.argsort(b), Array(4).fill([1, 2, 0]).flat(), 'broadcast argsort');
      const out = gpuarray.empty([40, 50], 'float32');
      expect(gpuarray.sort(a, { axis: 0, out })).toBe(out);
      const col = argsortRows(tv, 40).map((k, j) => tv[j - (j % 40) + k]); // sorted columns, [50, 40]
      expectValues(download(out), viewOf(col, [40, 50], [1, 40]), 'out axis 0');
      const c = upload('float32', xs, [40, 50]);
      expect(c.sort()).toBe(c);
      expectValues(download(c), argsortRows(xs, 50).map((k, j) => xs[j - (j % 50) + k]), 'in place');
      const o = upload('int64', [3n, 1n, 2n]);
      expectIndices(o.argsort(), [1, 2, 0], 'method');
      expect(gpuarray.sort(upload('float64', [2.5]).reshape([]), { axis: null }).shape).toEqual([1]);
      expect(gpuarray.sort(gpuarray.zeros([3, 0], 'int32'), { axis: 0 }).shape).toEqual([3, 0]);
    }));

    // prep with 16-bit counters (NODECUDA_SORT_PREP_BITS=16; the default is 32-bit counters, which
    // every other test here runs) counts digits in shared halves and moves them to the global
    // histograms before any could overflow (every 1023 iterations at most; here
    // NODECUDA_SORT_PREP_FLUSH makes it every one or three; 2^23 keys are about four iterations of
    // each block of at most 16 an SM): 1-, 4- and 8-byte keys, random and in runs of equal values,
    // checked on the CPU.
    test('prep\'s periodic flush of its 16-bit shared counts (NODECUDA_SORT_PREP_FLUSH=1 and 3, in a child process)', () => {
      const script = `const { gpuarray, DTYPES } = require(${JSON.stringify(path.resolve(__dirname, '..', 'dist'))});
        const n = (1 << 23) + 3, out = [];
        const make = (T) => { const x = new T(n); for (let i = 0; i < n; i++) { const h = Math.imul(i, 2654435761) >>> 0;
          x[i] = (i >> 18) & 1 ? (T === BigInt64Array ? 7n : 7) : T === BigInt64Array ? BigInt(h) - 2147483648n : T === Float32Array ? h / 7 - 3e8 : h >>> 24; }
          return x; };
        for (const T of [Uint8Array, Float32Array, BigInt64Array]) {
          const x = make(T), want = T.from(x).sort(), got = gpuarray.sort(gpuarray.toGpu(x)).get();
          out.push(got.length === n && got.every((v, i) => v === want[i]));
        }
        // The setting reached this process: prep's flush period is the one asked for.
        const { prepKernel } = require(${JSON.stringify(path.resolve(__dirname, '..', 'dist', 'engine', 'templates', 'sort'))});
        const src = prepKernel(DTYPES.float32, 'value').source, at = src.indexOf('++round == ') + 11;
        out.push(src.slice(at, src.indexOf('u)', at)));
        console.log(JSON.stringify(out));`;
      for (const every of ['1', '3']) {
        const r = spawnSync(process.execPath, ['-e', script], {
          env: { ...process.env, NODECUDA_SORT_PREP_BITS: '16', NODECUDA_SORT_PREP_FLUSH: every }, encoding: 'utf8', timeout: 120000,
        });
        if (r.status !== 0) throw new Error(`the child exited ${r.status ?? r.signal}: ${r.stderr}`);
        expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual([true, true, true, every]);
      }
    });

    // A keys-only sort's first pass reads the input itself (prep stores no keys) unless the result
    // overwrites it: in place and shifted-out sorts, with one executed pass (uint8), skipped high
    // digits (small-range int32), every pass skipped (all equal) and four passes (float32).
    test('keys-only sorts into memory overlapping the input: in place, out shifted by one', () => cuda.tidy(() => {
      const n = 300001;
      const cases: Array<[DTypeName, V[]]> = [['uint8', values('uint8', n, 21)], ['int32', values('int32', n, 22, 50)],
        ['float32', new Array<V>(n).fill(2.5)], ['float32', values('float32', n, 23)]];
      for (const [d, xs] of cases) {
        const want = argsortRef(xs).map((i) => xs[i]);
        const a = upload(d, xs);
        expect(gpuarray.sort(a, { out: a })).toBe(a);
        expectValues(download(a), want, `${d} in place`);
        const big = upload(d, [...xs, xs[0]]);
        const dst = big.index(slice(1, n + 1));
        gpuarray.sort(big.index(slice(0, n)), { out: dst });
        expectValues(download(dst), want, `${d} out shifted by one`);
        expectValues(download(gpuarray.sort(upload(d, xs))), want, `${d} fresh out`);
      }
    }));
  });

  describe('unique', () => {
    test.each(DTYPE_NAMES)('%s: values, indices, inverse, counts (n = 0, 1, 5000 with duplicates)', (d) => {
      const check = softly();
      for (const n of [0, 1, 5000]) {
        const xs = values(d, n, n + 3, 40).concat(kind(d) === 'f' && n ? [NaN, NaN] : []);
        check(() => cuda.tidy(() => {
          const shape = xs.length === 5000 ? [50, 100] : [xs.length];
          const a = upload(d, xs, shape);
          const order = argsortRef(xs);
          // NumPy compares values: -0 == +0 (adjacent after the sort), NaNs equal (equalNan), complex NaN when either part is.
          const nan = (x: V): boolean => (typeof x === 'object' ? Number.isNaN(x.re) || Number.isNaN(x.im) : Number.isNaN(x as number));
          const eq = (x: V, y: V): boolean => (typeof x === 'object' ? x.re === (y as C).re && x.im === (y as C).im : x === y)
            || (nan(x) && nan(y));
          const heads: number[] = []; // positions in `order` starting a run (-0 == +0: NumPy compares values)
          order.forEach((p, k) => { if (k === 0 || !eq(xs[order[k - 1]], xs[p])) heads.push(k); });
          const want = heads.map((k) => xs[order[k]]);
          const plain = gpuarray.unique(a);
          expectValues(download(plain), want, 'values');
          const r = gpuarray.unique(a, { returnIndex: true, returnInverse: true, returnCounts: true });
          expect('values' in r).toBe(true);
          const { values: v, indices, inverse, counts } = r as cuda.UniqueResult;
          expectValues(download(v), want, 'values (object)');
          expectIndices(indices!, heads.map((k) => order[k]), 'indices');
          expectIndices(counts!, heads.map((k, j) => (j + 1 < heads.length ? heads[j + 1] : xs.length) - k), 'counts');
          const inv = new Array<number>(xs.length);
          heads.forEach((k, j) => { for (let q = k; q < (j + 1 < heads.length ? heads[j + 1] : xs.length); q++) inv[order[q]] = j; });
          expect([...inverse!.shape]).toEqual(shape);
          expectIndices(inverse!, inv, 'inverse');
        }));
      }
      check.done();
    });

    test('equalNan false keeps every NaN; -0.0 and +0.0 are one value', () => cuda.tidy(() => {
      const a = gpuarray.toGpu(new Float64Array([NaN, 1, NaN, -0, 0, 1]));
      expect((gpuarray.unique(a, { equalNan: false }).get() as Float64Array).length).toBe(4);
      const r = gpuarray.unique(a, { returnCounts: true }) as cuda.UniqueResult;
      expect(Array.from(r.counts!.get() as BigInt64Array).map(Number)).toEqual([2, 2, 2]);
    }));

    // unique's values alone go out before the count is read back, into room for every element:
    // kept under the result when more than half are unique, else copied out and freed.
    test.each(['int32', 'float32', 'int64', 'float64', 'complex64'] as const)(
      '%s: values alone on the sort path, most or few unique, on a stream; nothing left allocated', (d) => {
        const n = 2 ** 18 + 7;
        const stream = new cuda.driver.Stream();
        const before = cuda.memory().liveAllocations;
        for (const distinct of [0, 1000, 1]) {
          const xs = values(d, n, 77 + distinct, distinct);
          cuda.tidy(() => {
            const order = argsortRef(xs);
            // Values compare as NumPy's: -0 == +0, NaNs equal (a complex one when either part is).
            const nan = (x: V): boolean => (typeof x === 'object' ? Number.isNaN(x.re) || Number.isNaN(x.im) : Number.isNaN(x as number));
            const eq = (x: V, y: V): boolean => (typeof x === 'object' ? x.re === (y as C).re && x.im === (y as C).im : x === y)
              || (nan(x) && nan(y));
            const want = order.filter((p, k) => k === 0 || !eq(xs[order[k - 1]], xs[p])).map((p) => xs[p]);
            const a = upload(d, xs);
            for (const opts of [{}, { stream }]) {
              const u = gpuarray.unique(a, opts);
              if ('stream' in opts) stream.synchronize();
              expect(u.shape).toEqual([want.length]);
              expectValues(download(u), want, `${d} ${distinct || 'mostly'} distinct`);
              u.dispose();
            }
          });
        }
        stream.synchronize();
        expect(cuda.memory().liveAllocations).toBe(before);
        stream.dispose();
      });

    // Near the memory limit: no room for all n (the values are then allocated for the count, as
    // the other outputs are), or no memory for the copy out of the room (the result stays in it).
    test.each(['float32', 'int32'] as const)('%s: values alone when the room or the copy out of it runs out of memory', (d) => {
      const n = 2 ** 18 + 7;
      const xs = values(d, n, 5, 1000);
      const order = argsortRef(xs);
      const want = order.filter((p, k) => k === 0 || xs[order[k - 1]] !== xs[p] && !(Number.isNaN(xs[p] as number)
        && Number.isNaN(xs[order[k - 1]] as number))).map((p) => xs[p]);
      expect(2 * want.length).toBeLessThan(n); // the room would be copied out
      const a = upload(d, xs);
      const before = cuda.memory().liveAllocations;
      gpuarray.unique(a).dispose(); // kernels and workspaces made
      const seen = jest.spyOn(native, 'memAlloc');
      gpuarray.unique(a).dispose();
      const sizes = seen.mock.calls.map((c) => c[0]);
      seen.mockRestore();
      expect(sizes).toContain(4 * n); // the room (and the sort's values) of n values
      const real = native.memAlloc.bind(native);
      // The room (int32: before the sort, for its bitmaps; float32: after it) and the copy out of
      // it, told from the sort's own allocations of the same size by the caller's name.
      const fromRoom = (): boolean => /\b(roomFor|firstOf)\b/.test(new Error().stack ?? '');
      for (const refuse of [4 * n, 4 * want.length]) {
        let refused = 0;
        const spy = jest.spyOn(native, 'memAlloc').mockImplementation((bytes, s, owner) => {
          if (bytes === refuse && fromRoom()) {
            refused++;
            throw new cuda.CudaError('out of memory', { code: 'CUDA_ERROR_OUT_OF_MEMORY', status: 2, call: 'cuMemAllocAsync' });
          }
          return real(bytes, s, owner);
        });
        let u: GPUArray;
        try {
          u = gpuarray.unique(a);
        } finally {
          spy.mockRestore();
        }
        expect(refused).toBeGreaterThan(0);
        expect(u.shape).toEqual([want.length]);
        expectValues(download(u), want, `refusing ${refuse} bytes`);
        u.dispose();
      }
      a.dispose();
      cuda.driver.Context.synchronize();
      expect(cuda.memory().liveAllocations).toBe(before - 1);
    });

    test('2^26 int32 with many duplicates', () => cuda.tidy(() => {
      const n = 2 ** 26;
      const h = new Int32Array(n);
      const r = rng(9);
      for (let i = 0; i < n; i++) h[i] = Math.floor(r() * 1000) - 500;
      const u = gpuarray.unique(gpuarray.toGpu(h), { returnCounts: true }) as cuda.UniqueResult;
      const counts = new Map<number, number>();
      for (const x of h) counts.set(x, (counts.get(x) ?? 0) + 1);
      const keys = [...counts.keys()].sort((x, y) => x - y);
      expect(Array.from(u.values.get() as Int32Array)).toEqual(keys);
      expect(Array.from(u.counts!.get() as BigInt64Array).map(Number)).toEqual(keys.map((k) => counts.get(k)));
    }));
  });

  describe('unique by counting (integers and bool of a small range)', () => {
    const N = 2 ** 17 + 3; // above UNIQUE_COUNTING_MIN; not a multiple of 4 (the kernels' last group is partial)
    const BOUND = uniqueCountingBins(N); // 32768 values

    test.each(COUNTABLE)('%s: counting path = CPU reference (values, first indices, inverse, counts): small range, '
      + 'one value, both ends of the dtype, 2 and 5 values (warp ballots), 6000 values (shared or global bins), '
      + '2^16 elements exactly; 2^16 - 1 elements sort', (d) => {
      const check = softly();
      const [L, H] = limitsOf(d);
      const signed = kind(d) === 'i';
      const cases: Array<[string, bigint, bigint, number]> = [
        // [label, lo, hi, n]
        [signed ? '[-3, 50)' : d === 'bool' ? '{0, 1}' : '[0, 200)', signed ? -3n : 0n, d === 'bool' ? 1n : signed ? 49n : 199n, N],
        ['one value', d === 'bool' ? 1n : 7n, d === 'bool' ? 1n : 7n, N],
        ['the lowest 100 values', L, L + (d === 'bool' ? 1n : 99n), N],
        ['the highest 100 values', H - (d === 'bool' ? 1n : 99n), H, N],
        ['the highest 2 values', H - 1n, H, N],
        ['the lowest 5 values', L, L + (d === 'bool' ? 1n : 4n), N],
        ['every value of the dtype, or 6000', L, H - L < 6000n ? H : L + 5999n, N],
        ['[lo, lo + 50), exactly 2^16 elements', L, L + (d === 'bool' ? 1n : 49n), UNIQUE_COUNTING_MIN],
      ];
      if (d === 'int64') cases.push(['[2^62, 2^62 + 100)', 2n ** 62n, 2n ** 62n + 99n, N]);
      if (d === 'uint64') cases.push(['[2^63 - 50, 2^63 + 50)', 2n ** 63n - 50n, 2n ** 63n + 49n, N]);
      cases.forEach(([label, lo, hi, n], j) => {
        check(() => cuda.tidy(() => {
          const xs = spread(d, n, lo, hi, 300 + j);
          checkUnique(upload(d, xs), xs, `${d} ${label}`, 'counts');
        }));
      });
      check(() => cuda.tidy(() => {
        const xs = spread(d, UNIQUE_COUNTING_MIN - 1, L, L + (d === 'bool' ? 1n : 49n), 399);
        checkUnique(upload(d, xs), xs, `${d} 2^16 - 1 elements`, 'sorts');
      }));
      check.done();
    });

    test.each(['int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'] as DTypeName[])(
      '%s: a range of n / 4 values counts, one more sorts; both equal the CPU reference and NODECUDA_UNIQUE_COUNTING=0', (d) => {
        const check = softly();
        const [L, H] = limitsOf(d);
        // At the dtype's ends: int16 and int32 from their lowest value, the others up to their highest.
        const base = d === 'int16' || d === 'int32' ? L : H - BigInt(BOUND);
        for (const [extra, path] of [[0n, 'counts'], [1n, 'sorts']] as const) {
          check(() => cuda.tidy(() => {
            const xs = spread(d, N, base, base + BigInt(BOUND) - 1n + extra, 500 + Number(extra));
            const a = upload(d, xs);
            const label = `${d} range ${BOUND + Number(extra)}`;
            const range = jest.spyOn(sortEngine, 'uniqueMinMax');
            const sorts = jest.spyOn(sortEngine, 'runSort');
            try {
              checkUnique(a, xs, label, path);
              // The range is read either way: by a min/max kernel before anything else, or for 4-
              // and 8-byte dtypes without indices or the inverse (checkUnique's calls 1 and 5:
              // values alone, counts alone) by the sort's prep (the sort then does nothing when the
              // range is counted).
              const probed = cuda.DTYPES[d].bytes >= 4 ? [true, false, false, false, true] : Array(5).fill(false);
              expect(range).toHaveBeenCalledTimes(probed.filter((x) => !x).length);
              expect(sorts.mock.calls.map(([r]) => r.range?.narrow))
                .toEqual(probed.flatMap((x) => (x ? [BOUND] : path === 'counts' ? [] : [undefined])));
            } finally {
              range.mockRestore();
              sorts.mockRestore();
            }
            countingOff(() => checkUnique(a, xs, `${label}, NODECUDA_UNIQUE_COUNTING=0`, 'sorts'));
            const opts = { returnIndex: true, returnInverse: true, returnCounts: true };
            const on = gpuarray.unique(a, opts) as cuda.UniqueResult;
            const off = countingOff(() => gpuarray.unique(a, opts)) as cuda.UniqueResult;
            for (const key of ['values', 'indices', 'inverse', 'counts'] as const) {
              expectValues(download(on[key]!), download(off[key]!), `${label}: ${key}, counting on vs off`);
            }
          }));
        }
        check.done();
      });

    test.each(['bool', 'uint8', 'int16', 'int32', 'int64', 'uint64'] as DTypeName[])(
      '%s: non-contiguous (every second element, transposed) and 2-D inputs (inverse keeps the shape), on a stream and a '
      + 'non-blocking stream', (d) => {
        const check = softly();
        const [L, H] = limitsOf(d);
        const hi = d === 'bool' ? L + 1n : L + 999n < H ? L + 999n : H; // uint8: [0, 255], not wrapped values
        check(() => cuda.tidy(() => {
          const ys = spread(d, 2 * N, L, hi, 601);
          const xs = ys.filter((_, i) => i % 2 === 1);
          checkUnique(upload(d, ys).index(slice(1, null, 2)), xs, `${d} every second element`, 'counts');
        }));
        const shape = [257, 512];
        const ys = spread(d, 257 * 512, L, hi, 602);
        check(() => cuda.tidy(() => checkUnique(upload(d, ys, shape), ys, `${d} 2-D [257, 512]`, 'counts')));
        check(() => cuda.tidy(() => {
          const t = upload(d, ys, shape).T;
          checkUnique(t, viewOf(ys, [512, 257], [1, 512]), `${d} transposed [512, 257]`, 'counts');
        }));
        for (const flags of [cuda.driver.streamFlags.DEFAULT, cuda.driver.streamFlags.NON_BLOCKING]) {
          check(() => {
            const s = new cuda.driver.Stream(flags);
            try {
              cuda.tidy(() => { // the arrays made on s are gone before s is
                const a = upload(d, ys, shape);
                cuda.driver.Context.synchronize(); // the upload, before a non-blocking stream reads it
                checkUnique(a, ys, `${d} 2-D on a stream (flags ${flags})`, 'counts', s);
              });
            } finally {
              s.dispose();
            }
          });
        }
        check.done();
      });
  });

  describe('searchsorted', () => {
    // searchsorted compares values: -0 == +0 (only the sort orders -0 first).
    const z = (v: V): V => (typeof v === 'number' ? (v === 0 ? 0 : v)
      : typeof v === 'object' ? { re: v.re === 0 ? 0 : v.re, im: v.im === 0 ? 0 : v.im } : v);
    const lower = (a: V[], x: V, right: boolean): number => {
      let i = 0;
      while (i < a.length && (right ? cmp(z(a[i]), z(x)) <= 0 : cmp(z(a[i]), z(x)) < 0)) i++;
      return i;
    };
    test.each(['int32', 'uint8', 'int64', 'float16', 'float32', 'float64', 'complex128', 'bool'] as DTypeName[])(
      '%s: left/right, NaN last, with a sorter, v of any shape', (d) => cuda.tidy(() => {
        const raw = values(d, 3000, 4, 30).concat(kind(d) === 'f' ? [NaN, NaN, Infinity] : []);
        const order = argsortRef(raw);
        const sortedA = order.map((i) => raw[i]);
        const v = values(d, 12 * 10, 5, 34).concat(kind(d) === 'f' ? [NaN, -Infinity] : values(d, 2, 6));
        const vs = upload(d, v, [2, 61]);
        for (const side of ['left', 'right'] as const) {
          const want = v.map((x) => lower(sortedA, x, side === 'right'));
          const r = gpuarray.searchsorted(upload(d, sortedA), vs, { side });
          expect([...r.shape]).toEqual([2, 61]);
          expectIndices(r, want, side);
          const sorter = gpuarray.argsort(upload(d, raw));
          expectIndices(gpuarray.searchsorted(upload(d, raw), vs, { side, sorter }), want, `${side} sorter`);
          expectIndices(upload(d, sortedA).searchsorted(vs, { side }), want, `${side} method`);
        }
      }));

    test('a of 0, 1, 2, 3 and 2^k ± 1 elements; values past one grid stride (each thread searches 4 at a time)', () => cuda.tidy(() => {
      const lowerF = (a: Float32Array, x: number, right: boolean): number => {
        let i = 0;
        while (i < a.length && (right ? a[i] <= x : a[i] < x)) i++;
        return i;
      };
      const vals = Float32Array.from({ length: 77 }, (_, i) => (i % 11) - 1.5 + (i % 3) * 0.5);
      for (const na of [0, 1, 2, 3, 7, 8, 9, 255, 256, 257]) {
        const a = Float32Array.from({ length: na }, (_, i) => Math.floor(i / 2)); // pairs of equal keys
        for (const side of ['left', 'right'] as const) {
          const r = gpuarray.searchsorted(gpuarray.toGpu(a), gpuarray.toGpu(vals), { side });
          expectIndices(r, Array.from(vals, (x) => lowerF(a, x, side === 'right')), `na=${na} ${side}`);
        }
      }
      // Many values (more than the grid holds at 4 a thread, an odd count): checked against a
      // closed form, a = 0..m-1 and v = j / 2 - 3 (left: clamp(ceil(v)), right: clamp(floor(v) + 1)).
      const m = 1025, n = 3 * 2 ** 22 + 3;
      const a = gpuarray.arange(0, m, 1, 'float32');
      const v = gpuarray.arange(0, n, 1, 'float32').mul(0.5).sub(3);
      const clamp = (i: number): number => Math.min(m, Math.max(0, i));
      for (const side of ['left', 'right'] as const) {
        const got = gpuarray.searchsorted(a, v, { side }).get() as BigInt64Array;
        const bad = got.findIndex((g, j) => {
          const x = j / 2 - 3;
          return Number(g) !== clamp(side === 'left' ? Math.ceil(x) : Math.floor(x) + 1);
        });
        expect([side, bad]).toEqual([side, -1]);
      }
    }));

    test('scalars and mixed dtypes (compared in the promoted type)', () => cuda.tidy(() => {
      const a = gpuarray.toGpu(new Int32Array([1, 2, 2, 3, 10]));
      expect(gpuarray.searchsorted(a, 2).item()).toBe(1n);
      expect(gpuarray.searchsorted(a, 2, { side: 'right' }).item()).toBe(3n);
      expect(gpuarray.searchsorted(a, 2.5).item()).toBe(3n);
      const many = gpuarray.searchsorted(a, gpuarray.toGpu(new Float64Array([0.5, 9.9, 11])));
      expect(Array.from(many.get() as BigInt64Array)).toEqual([0n, 4n, 5n]);
      expect(gpuarray.searchsorted(gpuarray.toGpu(new Float32Array([1, 2, NaN])), NaN).item()).toBe(2n);
      expect([...gpuarray.searchsorted(a, gpuarray.zeros([0, 3], 'int32')).shape]).toEqual([0, 3]);
      // A JS integer past int64 is searched as the double it is (float64), in any integer array.
      const i8 = gpuarray.toGpu(new Int8Array([-128, 0, 5, 127]));
      expect([2 ** 64, -(2 ** 64), 2 ** 63, 6].map((v) => gpuarray.searchsorted(i8, v).item())).toEqual([4n, 0n, 4n, 3n]);
      const u64 = gpuarray.toGpu(new BigUint64Array([0n, 2n ** 63n, 2n ** 64n - 1n]));
      expect([2 ** 63, 2 ** 65, -1].map((v) => gpuarray.searchsorted(u64, v).item())).toEqual([1n, 3n, 0n]);
    }));

    test('argument errors', () => cuda.tidy(() => {
      const a = gpuarray.toGpu(new Float32Array([1, 2, 3]));
      expectCode(() => gpuarray.searchsorted(a, 1, { side: 'middle' as 'left' }), TypeError, 'ERR_INVALID_ARG_VALUE');
      expectCode(() => gpuarray.searchsorted(a.reshape([1, 3]), 1), RangeError, 'ERR_INVALID_ARG_VALUE');
      expectCode(() => gpuarray.searchsorted(a, 1, { sorter: gpuarray.zeros([3], 'int32') }), TypeError, 'ERR_INVALID_DTYPE');
      expectCode(() => gpuarray.searchsorted(a, 1, { sorter: gpuarray.zeros([4], 'int64') }), RangeError, 'ERR_SHAPE_MISMATCH');
      expectCode(() => gpuarray.sort(a, { axis: 1 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
      expectCode(() => gpuarray.argsort(gpuarray.toGpu(new Float32Array([1])).reshape([]), {}), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
      expectCode(() => gpuarray.sort(a, { out: gpuarray.empty([4], 'float32') }), RangeError, 'ERR_SHAPE_MISMATCH');
      expectCode(() => gpuarray.sort(a, { out: gpuarray.empty([3], 'float64') }), TypeError, 'ERR_INVALID_DTYPE');
      // torch's descending is refused, not dropped; NumPy's kinds are accepted (a stable sort is a valid result of each).
      expectCode(() => gpuarray.sort(a, { descending: true } as never), TypeError, 'ERR_INVALID_ARG_VALUE');
      const r = gpuarray.toGpu(new Float32Array([3, NaN, 1, 2]));
      for (const kind of ['quicksort', 'mergesort', 'heapsort', 'stable'] as const) {
        expect(Array.from(gpuarray.sort(r, { kind }).get() as Float32Array)).toEqual([1, 2, 3, NaN]);
        expect(Array.from(gpuarray.argsort(r, { kind }).get() as BigInt64Array)).toEqual([2n, 3n, 0n, 1n]);
      }
    }));
  });
});

describe('unique by counting: the policy and the CPU reference (no GPU needed)', () => {
  test('the bound is n / 4 values, at most 2^24; counting starts at 2^16 elements', () => {
    expect(UNIQUE_COUNTING_MIN).toBe(65536);
    expect(uniqueCountingBins(65536)).toBe(16384);
    expect(uniqueCountingBins(2 ** 17 + 3)).toBe(32768);
    expect(uniqueCountingBins(2 ** 26)).toBe(2 ** 24);
    expect(uniqueCountingBins(2 ** 30)).toBe(2 ** 24);
  });

  test('uniqueRef: sorted values, first occurrences, inverse, counts (numbers and bigints)', () => {
    expect(uniqueRef([3, 1, 3, 2, 1, 3])).toEqual({ values: [1, 2, 3], first: [1, 3, 0], inverse: [2, 0, 2, 1, 0, 2], counts: [2, 1, 3] });
    const big = 2n ** 62n;
    expect(uniqueRef([big + 2n, -5n, big, big + 2n]))
      .toEqual({ values: [-5n, big, big + 2n], first: [1, 2, 0], inverse: [2, 0, 1, 2], counts: [1, 1, 2] });
    expect(uniqueRef([1, 1, 1])).toEqual({ values: [1], first: [0], inverse: [0, 0, 0], counts: [3] });
    expect(uniqueRef([0, 1, -1, -2])).toEqual({ values: [-2, -1, 0, 1], first: [3, 2, 0, 1], inverse: [2, 3, 1, 0], counts: [1, 1, 1, 1] });
  });

  test('spread: n values in [lo, hi], both ends present (lo at n / 2, hi last); 64-bit dtypes as bigints', () => {
    const lo = 2n ** 62n;
    const xs = spread('int64', 1001, lo, lo + 99n, 1) as bigint[];
    expect(xs.every((x) => typeof x === 'bigint' && x >= lo && x <= lo + 99n)).toBe(true);
    expect([xs[500], xs[1000]]).toEqual([lo, lo + 99n]);
    expect(new Set(xs).size).toBe(100);
    const u = spread('uint64', 1000, 2n ** 64n - 3n, 2n ** 64n - 1n, 2) as bigint[];
    expect(new Set(u)).toEqual(new Set([2n ** 64n - 3n, 2n ** 64n - 2n, 2n ** 64n - 1n]));
    const s = spread('int8', 5000, -128n, 127n, 3) as number[];
    expect(s.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= -128 && x <= 127)).toBe(true);
    expect(new Set(s).size).toBe(256);
    expect(spread('bool', 100, 1n, 1n, 4)).toEqual(new Array(100).fill(1));
    expect(COUNTABLE.map(limitsOf).map(([a, b]) => b - a + 1n)).toEqual([2n, 256n, 256n, 65536n, 65536n, 2n ** 32n, 2n ** 32n,
      2n ** 64n, 2n ** 64n]);
  });
});

describe('sorting argument errors (no GPU needed)', () => {
  test('non-arrays are TypeErrors', () => {
    expectCode(() => gpuarray.sort(5 as unknown as GPUArray), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.argsort([1, 2] as unknown as GPUArray), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.unique('x' as unknown as GPUArray), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.searchsorted(null as unknown as GPUArray, 1), TypeError, 'ERR_INVALID_ARG_TYPE');
  });
});
