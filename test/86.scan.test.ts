/**
 * Scans on a real GPU against the CPU reference in reduce-reference.ts (NumPy 2 semantics, API:
 * /work/briefs/reduction-api.md): cumsum/cumprod for every dtype (flattened and along an axis of
 * 2-d/3-d, transposed and sliced inputs; dtype and out options; float16 computed in float32 and
 * rounded per element); sizes 0, 1, 31, 1000003, 2^20+3 and 4096·k−1, 4096·k, 4096·k+1 up to
 * k = 300 (across tile boundaries); InclusiveScanKernel/ExclusiveScanKernel (sum, max, min,
 * wrapping int32 product, non-commutative operators, in place by default); GenericScanKernel
 * (segmented sums, exclusive output through prev_item, stream compaction, size option).
 * Integer scans are exact (BigInt); float prefixes within the documented tolerance.
 */
import * as cuda from '../lib';
import { ExclusiveScanKernel, GPUArray, GenericScanKernel, InclusiveScanKernel, driver, gpuarray } from '../lib';
import type { DTypeName } from '../lib';
import { collect, describeGpu, settledLive } from './helpers';
import { DTYPE_NAMES, V, download, kind, softly, upload, viewOf, wrap } from './reference';
import { Expect, cumprodRef, cumsumRef, expectClose, randomValues, rng, scanAlong, sumDtype } from './reduce-reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number, BigInt } = globalThis;

type Opts = Record<string, unknown>;
type Fn = (a: GPUArray, opts?: Opts) => GPUArray;
const fn = (name: string, a: GPUArray, opts?: Opts): GPUArray =>
  opts === undefined ? (gpuarray as unknown as Record<string, Fn>)[name](a) : (gpuarray as unknown as Record<string, Fn>)[name](a, opts);
const meth = (name: string, a: GPUArray, opts?: Opts): GPUArray =>
  opts === undefined ? (a as unknown as Record<string, (o?: Opts) => GPUArray>)[name]()
    : (a as unknown as Record<string, (o?: Opts) => GPUArray>)[name](opts);
const live = (): number => cuda.memory().liveAllocations;
const exact = (vals: V[]): Expect[] => vals.map((value) => ({ value, tol: 0 }));
const num = (v: V): number => Number(v);
/** Small integer x as a value of dtype d. */
const k = (d: DTypeName, x: number): V => (kind(d) === 'c' ? { re: x, im: 0 } : d.endsWith('int64') ? BigInt(x) : kind(d) === 'b' ? (x ? 1 : 0) : x);
/**
 * Sizes around multiples of 4096 elements (the tile of 4-byte values; 8-byte values use 2048, 16-byte 1024), up to k = 300,
 * and 2^20 + 3.
 */
const TILE_SIZES = [...new Set([1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257, 299, 300]
  .flatMap((m) => [4096 * m - 1, 4096 * m, 4096 * m + 1])), 2 ** 20 + 3];

describeGpu('scans', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  describe('cumsum / cumprod', () => {
    test.each(DTYPE_NAMES)('%s: cumsum at n = 0, 1, 31, 1000003 (flattened, function and method), result dtype', (d) => cuda.tidy(() => {
      const check = softly();
      for (const n of [0, 1, 31, 1000003]) {
        const xs = randomValues(d, n, 200 + n, -0.5, 1.5);
        const a = upload(d, xs);
        const want = cumsumRef(d, xs);
        for (const r of [fn('cumsum', a), meth('cumsum', a)]) {
          check(() => {
            expect([n, r.dtype.name, [...r.shape]]).toEqual([n, sumDtype(d), [n]]);
            expectClose(download(r), want, `cumsum n=${n}`);
          });
        }
      }
      const m = randomValues(d, 6 * 7, 209);
      check(() => { // no axis: the flattened (C order) array, also for a transposed input
        const t = upload(d, m, [6, 7]).T;
        const r = fn('cumsum', t);
        expect([...r.shape]).toEqual([42]);
        expectClose(download(r), cumsumRef(d, viewOf(m, [7, 6], [1, 7])), 'flattened T');
      });
      check.done();
    }));

    test('int32 cumsum is exact (int64) across tile boundaries: 4096·k−1, 4096·k, 4096·k+1 up to k = 300, 2^20+3', () => {
      const check = softly();
      for (const n of TILE_SIZES) {
        cuda.tidy(() => {
          const xs = randomValues('int32', n, n);
          const r = fn('cumsum', upload('int32', xs));
          let s = 0n;
          const got = download(r);
          const bad = got.findIndex((g, i) => { s += BigInt(xs[i] as number); return g !== s; });
          check(() => expect([n, r.dtype.name, bad]).toEqual([n, 'int64', -1]));
        });
      }
      check.done();
    }, 300000);

    test('thousands of tiles (launches of 500+ tiles sleep in the look-back): int32 wraps exactly, float64 integers exact', () => cuda.tidy(() => {
      const n = 2 ** 24 + 5; // 4097 tiles of 4-byte values
      const r = rng(77);
      const xs = new Int32Array(n);
      for (let i = 0; i < n; i++) xs[i] = Math.floor(r() * 2 ** 31) - 2 ** 30;
      const got = gpuarray.cumsum(gpuarray.toGpu(xs), { dtype: 'int32' }).get() as Int32Array;
      let s = 0;
      let bad = -1;
      for (let i = 0; i < n && bad < 0; i++) { s = (s + xs[i]) | 0; if (got[i] !== s) bad = i; }
      expect([got.length, bad]).toEqual([n, -1]);
      const m = 2 ** 23 + 3; // 4097 tiles of 8-byte values; integer sums stay exact in float64
      const xd = new Float64Array(m);
      for (let i = 0; i < m; i++) xd[i] = Math.floor(r() * 2001) - 1000;
      const gd = gpuarray.cumsum(gpuarray.toGpu(xd)).get() as Float64Array;
      let t = 0;
      bad = -1;
      for (let i = 0; i < m && bad < 0; i++) { t += xd[i]; if (gd[i] !== t) bad = i; }
      expect([gd.length, bad]).toEqual([m, -1]);
    }), 120000);

    test('float32, float16 and bfloat16 cumsum across tile boundaries (positive data: relative tolerance)', () => cuda.tidy(() => {
      const check = softly();
      for (const d of ['float32', 'float16', 'bfloat16'] as DTypeName[]) {
        for (const n of [4095, 4097, 8193, 4096 * 37 + 1, 4096 * 300 + 1, 2 ** 20 + 3]) {
          const xs = randomValues(d, n, 300 + n, 0, 1);
          check(() => expectClose(download(fn('cumsum', upload(d, xs))), cumsumRef(d, xs), `${d} n=${n}`));
        }
      }
      check.done();
    }));

    test.each(DTYPE_NAMES)('%s: cumprod at n = 1, 31, 1000 (odd integers wrap in 64 bits; floats near 1)', (d) => cuda.tidy(() => {
      const check = softly();
      for (const n of [1, 31, 1000]) {
        const r = rng(400 + n);
        const pool = kind(d) === 'i' ? [1, -1, 3, -3, 5] : [1, 3, 5];
        const xs: V[] = kind(d) === 'f' || kind(d) === 'c' ? randomValues(d, n, 401 + n, 0.9, 1.1)
          : Array.from({ length: n }, (_, i) => (kind(d) === 'b' ? (i === n - 3 ? 0 : 1) : k(d, pool[Math.floor(r() * pool.length)])));
        const a = upload(d, xs);
        const want = cumprodRef(d, xs);
        check(() => {
          const got = fn('cumprod', a);
          expect([got.dtype.name, [...got.shape]]).toEqual([sumDtype(d), [n]]);
          expectClose(download(got), want, `cumprod n=${n}`);
        });
        check(() => expectClose(download(meth('cumprod', a)), want, `a.cumprod() n=${n}`));
      }
      check.done();
    }));

    // Views of C-ordered bases: shape, element strides and offset of the view.
    type Case = { name: string; base: number[]; view: (a: GPUArray) => GPUArray; shape: number[]; strides: number[]; offset: number };
    const CASES: Case[] = [
      { name: '[37,1000]', base: [37, 1000], view: (a) => a, shape: [37, 1000], strides: [1000, 1], offset: 0 },
      { name: '[37,1000].T', base: [37, 1000], view: (a) => a.T, shape: [1000, 37], strides: [1, 1000], offset: 0 },
      { name: '[5,7,33].T', base: [5, 7, 33], view: (a) => a.T, shape: [33, 7, 5], strides: [1, 33, 231], offset: 0 },
      {
        name: '[6,40,9][1:, ::-3, 2:8:2]', base: [6, 40, 9], view: (a) => a.index('1:', '::-3', '2:8:2'),
        shape: [5, 14, 3], strides: [360, -27, 2], offset: 360 + 39 * 9 + 2,
      },
    ];
    test.each(['int32', 'float32', 'float16', 'bfloat16', 'uint8', 'complex64'] as DTypeName[])('%s: cumsum/cumprod along an axis of 2-d/3-d, transposed and sliced inputs', (d) => cuda.tidy(() => {
      const check = softly();
      CASES.forEach((c, ci) => {
        const size = c.base.reduce((p, q) => p * q, 1);
        const baseVals = kind(d) === 'i' || kind(d) === 'u' ? randomValues(d, size, 500 + ci) : randomValues(d, size, 500 + ci, 0.95, 1.05);
        const v = c.view(upload(d, baseVals, c.base));
        const host = viewOf(baseVals, c.shape, c.strides, c.offset);
        for (const axis of [...c.shape.keys(), -1]) {
          for (const name of ['cumsum', 'cumprod']) {
            if (name === 'cumprod' && c.shape[axis < 0 ? c.shape.length - 1 : axis] > 40 && kind(d) !== 'i' && kind(d) !== 'u') continue;
            const want = scanAlong(host, c.shape, axis, (xs) => (name === 'cumsum' ? cumsumRef(d, xs) : cumprodRef(d, xs)));
            check(() => {
              const r = fn(name, v, { axis });
              expect([c.name, name, axis, r.dtype.name, [...r.shape]]).toEqual([c.name, name, axis, sumDtype(d), c.shape]);
              expectClose(download(r), want, `${c.name} ${name} axis ${axis}`);
            });
          }
        }
      });
      check.done();
    }));

    test('dtype option (accumulate and return in it: int8 wraps, float64 from float32), out option, empty arrays', () => cuda.tidy(() => {
      const check = softly();
      const i8 = Array.from({ length: 300 }, (_, i) => ((i * 53) % 256) - 128);
      let s = 0n;
      check(() => expectClose(download(fn('cumsum', upload('int8', i8), { dtype: 'int8' })),
        exact(i8.map((x) => { s += BigInt(x); return wrap('int8', s); }))));
      const f = randomValues('float32', 100003, 600);
      check(() => {
        const r = fn('cumsum', upload('float32', f), { dtype: 'float64' });
        expect(r.dtype.name).toBe('float64');
        expectClose(download(r), cumsumRef('float32', f, 'float64'));
      });
      check(() => expectClose(download(fn('cumsum', upload('bool', [1, 0, 1, 1]))), exact([1n, 1n, 2n, 3n])));
      check(() => expectClose(download(fn('cumsum', upload('uint8', [255, 255, 2]))), exact([255n, 510n, 512n])));
      check(() => expectClose(download(fn('cumprod', upload('int16', [300, 300, 2]), { dtype: 'int16' })),
        exact([300, wrap('int16', 90000n), wrap('int16', 180000n)])));
      const m = upload('int32', [1, 2, 3, 4, 5, 6], [2, 3]);
      const o = gpuarray.full([2, 3], -1n, 'int64');
      check(() => expect(fn('cumsum', m, { axis: 1, out: o })).toBe(o));
      check(() => expectClose(download(o), exact([1n, 3n, 6n, 4n, 9n, 15n])));
      const o2 = gpuarray.empty([6], 'float64');
      check(() => expect(meth('cumsum', m, { out: o2 })).toBe(o2));
      check(() => expectClose(download(o2), exact([1, 3, 6, 10, 15, 21])));
      check(() => expect([...fn('cumsum', gpuarray.empty([0], 'float32')).shape]).toEqual([0]));
      check(() => expect([...fn('cumprod', gpuarray.empty([0, 3], 'int8'), { axis: 1 }).shape]).toEqual([0, 3]));
      check(() => expect([...fn('cumsum', gpuarray.empty([4, 0], 'float64'), { axis: 0 }).shape]).toEqual([4, 0]));
      check(() => expect(() => fn('cumsum', m, { axis: 2 })).toThrow(RangeError));
      check(() => expect(() => fn('cumsum', m, { axis: -3 })).toThrow(RangeError));
      check(() => expect(() => fn('cumsum', m, { out: gpuarray.empty([3, 2], 'int64'), axis: 0 })).toThrow(RangeError));
      check.done();
    }));
  });

  describe('InclusiveScanKernel / ExclusiveScanKernel', () => {
    test('int32 a+b (wrapping), in place by default; separate output; sizes across tiles', () => cuda.tidy(() => {
      const check = softly();
      const add = new InclusiveScanKernel('int32', 'a+b');
      const ex = new ExclusiveScanKernel('int32', 'a+b', '0');
      for (const n of [1, 31, 4095, 4097, 4096 * 300 + 1, 1000003]) {
        const xs = randomValues('int32', n, 700 + n);
        let s = 0n;
        const inc = xs.map((x) => { s += BigInt(x as number); return wrap('int32', s); });
        const excl = [0, ...inc.slice(0, -1)];
        const a = upload('int32', xs);
        check(() => {
          expect(add(a)).toBe(a);
          expectClose(download(a), exact(inc), `inclusive in place n=${n}`);
        });
        const b = upload('int32', xs), y = gpuarray.empty([n], 'int32');
        check(() => {
          expect(ex(b, y)).toBe(y);
          expectClose(download(y), exact(excl), `exclusive n=${n}`);
          expectClose(download(b), exact(xs), 'input untouched');
        });
      }
      const m = upload('int32', [1, 2, 3, 4, 5, 6], [2, 3]); // any shape, scanned in C order
      check(() => expectClose(download(add(m)), exact([1, 3, 6, 10, 15, 21])));
      check.done();
    }));

    test('max, min (with neutral), a*b on int32 (wrapping), float64 a+b, a stream', () => cuda.tidy(() => {
      const check = softly();
      const n = 100003;
      const f = randomValues('float32', n, 710);
      const mx = new InclusiveScanKernel('float32', 'max(a,b)');
      let best = -Infinity;
      check(() => expectClose(download(mx(upload('float32', f))), exact(f.map((x) => (best = Math.max(best, num(x)))))));
      const ints = randomValues('int32', n, 711);
      const mn = new InclusiveScanKernel('int32', 'min(a,b)', '2147483647');
      let low = Infinity;
      check(() => expectClose(download(mn(upload('int32', ints))), exact(ints.map((x) => (low = Math.min(low, num(x)))))));
      const odd = ints.map((x) => num(x) | 1);
      const mul = new InclusiveScanKernel('int32', 'a*b', '1');
      let p = 1n;
      check(() => expectClose(download(mul(upload('int32', odd))), exact(odd.map((x) => { p = BigInt.asIntN(32, p * BigInt(x)); return Number(p); }))));
      const d = randomValues('float64', n, 712);
      const fadd = new ExclusiveScanKernel('float64', 'a+b', 0);
      const s = new driver.Stream();
      const out = gpuarray.empty([n], 'float64');
      fadd(upload('float64', d), out, { stream: s });
      s.synchronize();
      const inc = cumsumRef('float64', d);
      check(() => expectClose(download(out), [{ value: 0, tol: 0 }, ...inc.slice(0, -1)], 'exclusive f64'));
      s.dispose();
      check.done();
    }));

    test('non-commutative associative operators: last value (b), affine composition on uint32', () => cuda.tidy(() => {
      const check = softly();
      const n = 4096 * 5 + 17;
      const xs = randomValues('int32', n, 720);
      // op(a, b) = b: inclusive → x itself; exclusive → x shifted right by one, neutral first.
      check(() => expectClose(download(new InclusiveScanKernel('int32', 'b', '0')(upload('int32', xs))), exact(xs)));
      check(() => expectClose(download(new ExclusiveScanKernel('int32', 'b', '-7')(upload('int32', xs))), exact([-7, ...xs.slice(0, -1)])));
      // x ↦ m·x + c mod 2^16 packed as (m << 16) | c; composing a then b: (m_a·m_b, c_a·m_b + c_b).
      const expr = '((((a >> 16) * (b >> 16)) & 0xffffu) << 16) | (((a & 0xffffu) * (b >> 16) + (b & 0xffffu)) & 0xffffu)';
      const r = rng(721);
      const fs = Array.from({ length: n }, () => ((Math.floor(r() * 65536) << 16) | Math.floor(r() * 65536)) >>> 0);
      let m = 1, c = 0;
      const want = fs.map((f) => {
        const mb = f >>> 16, cb = f & 0xffff;
        c = (Number((BigInt(c) * BigInt(mb)) % 65536n) + cb) & 0xffff;
        m = Number((BigInt(m) * BigInt(mb)) % 65536n);
        return ((m << 16) | c) >>> 0;
      });
      check(() => expectClose(download(new InclusiveScanKernel('uint32', expr, '0x10000u')(upload('uint32', fs))), exact(want)));
      check.done();
    }));

    test('bad input: non-contiguous or wrong dtype → TypeError; syntax errors → NvrtcError', () => cuda.tidy(() => {
      const add = new InclusiveScanKernel('int32', 'a+b');
      const m = gpuarray.zeros([4, 5], 'int32');
      expect(() => add(m.T)).toThrow(TypeError);
      expect(() => add(m.index(':', '::2'))).toThrow(TypeError);
      expect(() => add(gpuarray.zeros([4], 'float32'))).toThrow(TypeError);
      expect(() => add(m, gpuarray.zeros([20], 'int64'))).toThrow(TypeError);
      expect(() => new InclusiveScanKernel('int32', 'a + * b')(gpuarray.zeros([8], 'int32'))).toThrow(cuda.NvrtcError);
    }));
  });

  describe('GenericScanKernel', () => {
    const N = [1, 31, 4097, 4096 * 300 + 1, 1000003];
    /** Segment starts: random ones plus tile boundaries. */
    const starts = (n: number, seed: number): number[] => {
      const r = rng(seed);
      return Array.from({ length: n }, (_, i) => (i % 4096 === 0 || i % 4096 === 4095 || r() < 0.001 ? 1 : 0));
    };

    test('segmented inclusive sum (isSegmentStartExpr) and exclusive output through prev_item', () => cuda.tidy(() => {
      const check = softly();
      const seg = new GenericScanKernel({
        dtype: 'int32', arguments: 'const int *x, const int *flags, int *y, int *z', inputExpr: 'x[i]', scanExpr: 'a+b',
        neutral: '0', isSegmentStartExpr: 'flags[i] != 0', outputStatement: 'y[i] = item; z[i] = prev_item;',
      });
      for (const n of N) {
        const xs = randomValues('int16', n, 800 + n).map(Number), fl = starts(n, 801 + n);
        const inc: number[] = [], excl: number[] = [];
        let s = 0;
        xs.forEach((x, i) => {
          if (fl[i]) s = 0;
          excl.push(s);
          s = wrap('int32', BigInt(s + x)) as number;
          inc.push(s);
        });
        const y = gpuarray.full([n], -1, 'int32'), z = gpuarray.full([n], -1, 'int32');
        seg(upload('int32', xs), upload('int32', fl), y, z);
        check(() => expectClose(download(y), exact(inc), `segmented item n=${n}`));
        check(() => expectClose(download(z), exact(excl), `segmented prev_item n=${n}`));
      }
      check.done();
    }));

    test('argument names that the generated kernel once used itself (s, j, t, x, v, e, tile, base, lane, op, combine) are plain arguments', () => cuda.tidy(() => {
      const g = new GenericScanKernel({
        dtype: 'int32', scanExpr: 'a+b', neutral: '0',
        arguments: 'const int *x, int *v, int s, int j, int t, int e, int tile, int base, int lane, int op, int combine',
        inputExpr: 'x[i] * s + j * 2 + t * 4 + e * 8 + tile * 16 + base * 32 + lane * 64 + op * 128 + combine * 256',
        outputStatement: 'v[i] = item;',
      });
      for (const n of [1, 31, 4097, 1000003]) {
        const xs = Array.from({ length: n }, (_, i) => i % 5);
        const want: number[] = [];
        let acc = 0;
        for (const x of xs) want.push((acc = wrap('int32', BigInt(acc + 3 * x + 510)) as number)); // 2 + 4 + ... + 256
        const v = gpuarray.full([n], -1, 'int32');
        g(upload('int32', xs), v, 3, 1, 1, 1, 1, 1, 1, 1, 1);
        expectClose(download(v), exact(want), `n=${n}`);
      }
      expect(() => new GenericScanKernel({ dtype: 'int32', scanExpr: 'a+b', neutral: '0', arguments: 'const int *x, int *item',
        inputExpr: 'x[i]', outputStatement: 'item[i] = 0;' })).toThrow(TypeError);
    }));

    test('stream compaction: inputExpr (x[i] > 0) ? 1 : 0, outputStatement writes y[prev_item]; size option', () => cuda.tidy(() => {
      const check = softly();
      const compact = new GenericScanKernel({
        dtype: 'int32', arguments: 'const float *x, float *y', inputExpr: '(x[i] > 0) ? 1 : 0', scanExpr: 'a+b', neutral: '0',
        outputStatement: 'if (prev_item != item) y[prev_item] = x[i];',
      });
      for (const n of [...N, 2 ** 20 + 3]) {
        const xs = randomValues('float32', n, 900 + n);
        const kept = xs.filter((x) => num(x) > 0);
        const y = gpuarray.full([n], -5, 'float32');
        compact(upload('float32', xs), y);
        check(() => expectClose(download(y), exact([...kept, ...Array(n - kept.length).fill(-5)]), `compaction n=${n}`));
      }
      const xs = randomValues('float32', 10000, 950);
      const y = gpuarray.full([10000], -5, 'float32');
      compact(upload('float32', xs), y, { size: 1000 }); // only the first 1000 elements
      const kept = xs.slice(0, 1000).filter((x) => num(x) > 0);
      check(() => expectClose(download(y), exact([...kept, ...Array(10000 - kept.length).fill(-5)]), 'size 1000'));
      const s = new driver.Stream();
      const y2 = gpuarray.full([10000], -5, 'float32');
      compact(upload('float32', xs), y2, { stream: s });
      s.synchronize();
      const all = xs.filter((x) => num(x) > 0);
      check(() => expectClose(download(y2), exact([...all, ...Array(10000 - all.length).fill(-5)]), 'stream'));
      s.dispose();
      check.done();
    }));

    test('bad input: wrong argument count or types → TypeError', () => cuda.tidy(() => {
      const g = new GenericScanKernel({
        dtype: 'int32', arguments: 'const int *x, int *y', inputExpr: 'x[i]', scanExpr: 'a+b', neutral: '0', outputStatement: 'y[i] = item;',
      });
      const x = gpuarray.zeros([8], 'int32');
      expect(() => g(x)).toThrow(TypeError);
      expect(() => g(x, gpuarray.zeros([8], 'float32'))).toThrow(TypeError);
      expect(() => g(x, 3)).toThrow(TypeError);
      expect(() => g(x, x, x)).toThrow(TypeError);
    }));
  });

  test('nothing leaked by this suite', async () => {
    await collect();
    expect(live()).toBe(baseline);
  });
});
