/**
 * Output memory that overlaps an input, on a real GPU against a CPU reference computed here.
 * NumPy's rule: the result is as if every input had been read before the output is written (NumPy
 * copies an input when it detects overlap). Covered: out === input (in place), out as a shifted,
 * reversed or transposed view of an input's buffer, broadcast inputs, for the operators, cumath,
 * cumsum, matmul, take/put, sort, reductions, set()/astype/copy, the scan and elementwise kernel
 * builders.
 *
 * Races are made deterministic with sizes: the writer of an element and its reader are thousands
 * of blocks apart (more blocks than the GPU holds at once), so the reader's block starts only after
 * the writer's block has finished. Tests marked `WAS WRONG` gave a wrong answer before the overlap
 * checks of lib/array/overlap.ts (the reason follows the mark); they pass now.
 */
import * as cuda from '../lib';
import { ElementwiseKernel, ExclusiveScanKernel, GPUArray, InclusiveScanKernel, cumath, gpuarray } from '../lib';
import { describeGpu } from './helpers';
import { expectArray, upload } from './reference';

// ---- helpers ------------------------------------------------------------------------------------

type Floats = Float32Array | Float64Array | Int32Array;

/** `n` values `f(i)` as a Float32Array (exact: keep them below 2^24). */
function f32(n: number, f: (i: number) => number = (i) => i): Float32Array {
  const h = new Float32Array(n);
  for (let i = 0; i < n; i++) h[i] = f(i);
  return h;
}

/** `n` values `f(i)` as a Float64Array. */
function f64(n: number, f: (i: number) => number = (i) => i): Float64Array {
  const h = new Float64Array(n);
  for (let i = 0; i < n; i++) h[i] = f(i);
  return h;
}

/** Exact comparison of large typed arrays: lists the first mismatches and how many there are. */
function expectTyped(got: ArrayLike<number>, want: ArrayLike<number>, label: string): void {
  expect(got.length).toBe(want.length);
  const bad: string[] = [];
  let count = 0;
  for (let i = 0; i < want.length; i++) {
    if (!Object.is(got[i], want[i])) {
      count++;
      if (bad.length < 6) bad.push(`[${i}] got ${got[i]} want ${want[i]}`);
    }
  }
  expect({ label, count, first: bad }).toEqual({ label, count: 0, first: [] });
}

/** The host values of `a` (C order). */
const host = (a: GPUArray): Floats => a.get() as Floats;

/** A copy of `h` with `h[dst + j] = h[src + j]` for j < len, every source read first (NumPy's a[dst:] = a[src:]). */
function moved<T extends Floats>(h: T, dst: number, src: number, len: number, f: (v: number) => number = (v) => v): T {
  const r = h.slice() as T;
  for (let j = 0; j < len; j++) r[dst + j] = f(h[src + j]);
  return r;
}

/** C-order (rows, cols) transpose of a square matrix. */
function transposed<T extends Floats>(h: T, n: number): T {
  const r = h.slice() as T;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) r[i * n + j] = h[j * n + i];
  return r;
}

/** C-order matrix product of (n, k) and (k, m). */
function matmulRef(a: Float64Array, b: Float64Array, n: number, k: number, m: number): Float64Array {
  const r = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let q = 0; q < k; q++) s += a[i * k + q] * b[q * m + j];
      r[i * m + j] = s;
    }
  }
  return r;
}

// Sizes: SHIFT elements between a writer and its reader is thousands of blocks for every kernel
// here (elementwise: ≤ 1024 elements a block; take/put: 256; scan: 4096 int32 a tile).
const SHIFT = 2 ** 22;
const BIG = 3 * SHIFT;

describeGpu('output overlapping an input', () => {
  // ---- elementwise operators and cumath (an overlap check copies: operators.ts elementwise) ------

  describe('operators and cumath', () => {
    test('out === input (same view, contiguous and strided) is computed in place', () => {
      cuda.tidy(() => {
        const n = SHIFT + 3;
        const h = f32(n, (i) => i % 1000);
        const x = gpuarray.toGpu(h);
        const y = gpuarray.toGpu(f32(n, (i) => (i * 7) % 13));
        const r = gpuarray.add(x, y, { out: x });
        expect(r).toBe(x);
        expectTyped(host(x), f32(n, (i) => (i % 1000) + ((i * 7) % 13)), 'add out=x');
        const v = x.index('::2');
        gpuarray.neg(v, { out: v });
        expectTyped(host(x), f32(n, (i) => ((i % 1000) + ((i * 7) % 13)) * (i % 2 ? 1 : -1)), 'neg in place on x[::2]');
        gpuarray.mul(v, v, { out: v }); // both operands and out the same view
        expectTyped(host(v), f32(v.size, (j) => ((2 * j) % 1000 + ((14 * j) % 13)) ** 2), 'mul(v, v, out=v)');
      });
    });

    test('binary op into a shifted view of an operand (by 1 and by SHIFT, both directions)', () => {
      cuda.tidy(() => {
        const h = f32(BIG + 1);
        for (const [dst, src] of [[1, 0], [0, 1], [SHIFT, 0], [0, SHIFT]]) {
          const x = gpuarray.toGpu(h);
          const len = BIG + 1 - Math.max(dst, src);
          gpuarray.add(x.index(`${src}:${src + len}`), 1, { out: x.index(`${dst}:${dst + len}`) });
          expectTyped(host(x), moved(h, dst, src, len, (v) => v + 1), `x[${dst}:] = x[${src}:] + 1`);
        }
      });
    });

    test('binary op with both operands views of out (x[1:] = x[:-1] + x[1:])', () => {
      cuda.tidy(() => {
        const h = f32(BIG + 1, (i) => i % 4096);
        const x = gpuarray.toGpu(h);
        gpuarray.add(x.index(':-1'), x.index('1:'), { out: x.index('1:') });
        const want = h.slice();
        for (let i = 1; i <= BIG; i++) want[i] = h[i - 1] + h[i];
        expectTyped(host(x), want, 'x[1:] = x[:-1] + x[1:]');
      });
    });

    test('binary op into the transpose of an operand: add(m, m.T, { out: m })', () => {
      cuda.tidy(() => {
        const n = 2048;
        const h = f32(n * n, (i) => i % 65536);
        const m = gpuarray.toGpu(h, { shape: [n, n] });
        gpuarray.add(m, m.T, { out: m });
        const t = transposed(h, n);
        expectTyped(host(m), h.map((v, i) => v + t[i]), 'm = m + m.T');
        const w = gpuarray.toGpu(h, { shape: [n, n] });
        gpuarray.neg(w.T, { out: w }); // a unary op into the transpose of its input
        expectTyped(host(w), t.map((v) => -v), 'w = -w.T');
      });
    });

    test('broadcast operand whose memory is out\'s: x[0:4] = x[0:4] * x[3]', () => {
      cuda.tidy(() => {
        const x = upload('float64', [1, 2, 3, 4, 5]);
        gpuarray.mul(x.index('0:4'), x.index('3:4'), { out: x.index('0:4') });
        expectArray(x, 'float64', [5], [4, 8, 12, 16, 5]);
      });
    });

    test('unary cumath function into a shifted view of its input (fabs, sqrt)', () => {
      cuda.tidy(() => {
        const h = f32(BIG + 1, (i) => (i % 2 ? 1 : -1) * (i % 3000));
        for (const [dst, src] of [[1, 0], [SHIFT, 0], [0, SHIFT]]) {
          const x = gpuarray.toGpu(h);
          const len = BIG + 1 - Math.max(dst, src);
          cumath.fabs(x.index(`${src}:${src + len}`), { out: x.index(`${dst}:${dst + len}`) });
          expectTyped(host(x), moved(h, dst, src, len, Math.abs), `fabs x[${dst}:] = x[${src}:]`);
        }
        const sq = f32(BIG + 1, (i) => (i % 1000) ** 2);
        const y = gpuarray.toGpu(sq);
        cumath.sqrt(y.index(`0:${BIG + 1 - SHIFT}`), { out: y.index(`${SHIFT}:`) });
        expectTyped(host(y), moved(sq, SHIFT, 0, BIG + 1 - SHIFT, Math.sqrt), 'sqrt y[SHIFT:] = y[:-SHIFT]');
      });
    });

    test('cumath.modf with out[0] the input and out[1] a shifted view of it', () => {
      cuda.tidy(() => {
        const n = 1000;
        const h = f64(n + 1, (i) => i / 4 - 100);
        const x = gpuarray.toGpu(h);
        const a = x.index(`0:${n}`);
        const [frac, whole] = cumath.modf(a, { out: [a, x.index('1:')] });
        expect(frac).toBe(a);
        const want = h.slice();
        for (let i = 0; i < n; i++) want[i + 1] = Math.trunc(h[i]);
        // out[0] is written first, then out[1] (the same memory shifted by one): the later write wins.
        expectTyped(host(whole), want.subarray(1), 'modf whole');
      });
    });

    test('fill on a view, and on the same memory viewed twice', () => {
      cuda.tidy(() => {
        const x = upload('float32', [1, 2, 3, 4, 5, 6]);
        x.index('1:5').fill(9);
        x.index('::2').fill(0);
        expectArray(x, 'float32', [6], [0, 9, 0, 9, 0, 6]);
      });
    });
  });

  // ---- set() / assign: device to device (operators.ts assign has no overlap check) ---------------

  describe('set() from an overlapping view', () => {
    // WAS WRONG: GPUArray.set(GPUArray) → assign() launches one copy kernel from the source view into the destination
    // with no overlap check; the block that reads x[j + SHIFT] starts after the block that wrote it (gpuarray.ts:292).
    test('x[SHIFT:] = x[:-SHIFT] (a forward shift) copies the values as they were', () => {
      cuda.tidy(() => {
        const h = f32(BIG);
        const x = gpuarray.toGpu(h);
        x.index(`${SHIFT}:`).set(x.index(`:${BIG - SHIFT}`));
        expectTyped(host(x), moved(h, SHIFT, 0, BIG - SHIFT), 'x[SHIFT:] = x[:-SHIFT]');
      });
    });

    // WAS WRONG: same as above by a shift of one element; a wrong value appears whenever a block starts after the one
    // before it has stored its last element (timing-dependent: may pass by luck on an idle GPU).
    test('x[1:] = x[:-1]', () => {
      cuda.tidy(() => {
        const h = f32(BIG + 1);
        const x = gpuarray.toGpu(h);
        x.index('1:').set(x.index(':-1'));
        expectTyped(host(x), moved(h, 1, 0, BIG), 'x[1:] = x[:-1]');
      });
    });

    // Unchecked too, but the block that reads an element runs thousands of blocks before the one that overwrites it:
    // right in practice (the kernel's block order), not by construction.
    test('x[:-SHIFT] = x[SHIFT:] (a backward shift: each element is read before it is overwritten)', () => {
      cuda.tidy(() => {
        const h = f32(BIG);
        const x = gpuarray.toGpu(h);
        x.index(`:${BIG - SHIFT}`).set(x.index(`${SHIFT}:`));
        expectTyped(host(x), moved(h, 0, SHIFT, BIG - SHIFT), 'x[:-SHIFT] = x[SHIFT:]');
      });
    });

    // WAS WRONG: x.set(x[::-1]) — the first half's blocks store x[i] = x[n-1-i] before the second half's blocks read
    // x[i], so the second half keeps its own values (a palindrome instead of the reversal).
    test('x[:] = x[::-1] reverses', () => {
      cuda.tidy(() => {
        const n = BIG + 1;
        const h = f32(n);
        const x = gpuarray.toGpu(h);
        x.set(x.index('::-1'));
        expectTyped(host(x), h.slice().reverse(), 'x = x[::-1]');
      });
    });

    // WAS WRONG: m.set(m.T) — the tiled transpose kernel writes tile (I, J) before the block of tile (J, I), rows of
    // tiles later, reads it: the lower triangle comes back unchanged (a symmetric matrix, not the transpose).
    test('m[...] = m.T transposes', () => {
      cuda.tidy(() => {
        const n = 2048;
        const h = f32(n * n, (i) => i % 65536);
        const m = gpuarray.toGpu(h, { shape: [n, n] });
        m.set(m.T);
        expectTyped(host(m), transposed(h, n), 'm = m.T');
      });
    });

    test('through astype() or copy(): the source is a new array, so any overlap is fine', () => {
      cuda.tidy(() => {
        const h = f32(BIG + 1, (i) => i % 10000);
        const x = gpuarray.toGpu(h);
        x.index('1:').set(x.index(':-1').astype('float64')); // converted back to float32 by set
        expectTyped(host(x), moved(h, 1, 0, BIG), 'x[1:] = x[:-1].astype(float64)');
        const y = gpuarray.toGpu(h);
        y.set(y.index('::-1').copy());
        expectTyped(host(y), h.slice().reverse(), 'y = y[::-1].copy()');
        const m = gpuarray.toGpu(h.subarray(0, 1024 * 1024), { shape: [1024, 1024] });
        m.set(m.T.copy());
        expectTyped(host(m), transposed(h.subarray(0, 1024 * 1024), 1024), 'm = m.T.copy()');
      });
    });

    test('a broadcast source inside the destination: x[0:4] = x[3] (every element gets the old x[3])', () => {
      cuda.tidy(() => {
        const x = upload('int32', [1, 2, 3, 4, 5]);
        x.index('0:4').set(x.index('3:4'));
        expectArray(x, 'int32', [5], [4, 4, 4, 4, 5]);
        const m = upload('float64', [1, 2, 3, 4, 5, 6], [2, 3]);
        m.set(m.index('1:2')); // every row = the old last row
        expectArray(m, 'float64', [2, 3], [4, 5, 6, 4, 5, 6]);
      });
    });

    test('set(itself) and set(a view of the same layout) leave the values', () => {
      cuda.tidy(() => {
        const h = f32(SHIFT + 5, (i) => i % 777);
        const x = gpuarray.toGpu(h);
        x.set(x);
        x.index('::3').set(x.index('::3'));
        expectTyped(host(x), h, 'x = x');
      });
    });

    // WAS WRONG: an out with internal overlap (stride 0) is accepted: 2048 threads race to store each element. NumPy
    // refuses (broadcast_to views are read-only: "output array is read-only").
    test('an out with stride 0 (a broadcast view) is refused', () => {
      cuda.tidy(() => {
        const z = gpuarray.zeros([4], 'float32');
        const b = gpuarray.toGpu(f32(2048 * 4), { shape: [2048, 4] });
        expect(() => gpuarray.add(b, 1, { out: z.broadcastTo([2048, 4]) })).toThrow(expect.objectContaining({ code: 'ERR_READ_ONLY' }));
        expect(() => z.broadcastTo([2048, 4]).set(b)).toThrow(expect.objectContaining({ code: 'ERR_READ_ONLY' }));
      });
    });
  });

  // ---- scans ---------------------------------------------------------------------------------------

  describe('cumsum / cumprod and the scan kernels', () => {
    test('cumsum and cumprod with out === input', () => {
      cuda.tidy(() => {
        const n = SHIFT + 17;
        const h = f64(n, (i) => i % 5);
        const x = gpuarray.toGpu(h);
        expect(gpuarray.cumsum(x, { out: x })).toBe(x);
        const want = h.slice();
        for (let i = 1; i < n; i++) want[i] = want[i - 1] + h[i];
        expectTyped(host(x), want, 'cumsum out=x');
        const p = upload('float64', [1, 2, 3, -1, 0.5]);
        gpuarray.cumprod(p, { out: p });
        expectArray(p, 'float64', [5], [1, 2, 6, -6, -3]);
      });
    });

    test('cumsum into a shifted view of its input (forward and backward)', () => {
      cuda.tidy(() => {
        const h = f64(BIG + 1, (i) => i % 3);
        for (const [dst, src] of [[1, 0], [SHIFT, 0], [0, SHIFT]]) {
          const x = gpuarray.toGpu(h);
          const len = BIG + 1 - Math.max(dst, src);
          gpuarray.cumsum(x.index(`${src}:${src + len}`), { out: x.index(`${dst}:${dst + len}`) });
          const want = h.slice();
          let s = 0;
          for (let j = 0; j < len; j++) {
            s += h[src + j];
            want[dst + j] = s;
          }
          expectTyped(host(x), want, `cumsum x[${dst}:] = x[${src}:]`);
        }
      });
    });

    test('cumsum along axis 0 and 1 of a matrix into itself, and into its transpose', () => {
      cuda.tidy(() => {
        const n = 512;
        const h = f64(n * n, (i) => i % 7);
        const ref = (axis: number, src: Float64Array) => {
          const r = src.slice();
          for (let i = 0; i < n; i++) {
            for (let j = 1; j < n; j++) {
              const [at, prev] = axis === 0 ? [j * n + i, (j - 1) * n + i] : [i * n + j, i * n + j - 1];
              r[at] += r[prev];
            }
          }
          return r;
        };
        for (const axis of [0, 1]) {
          const m = gpuarray.toGpu(h, { shape: [n, n] });
          gpuarray.cumsum(m, { axis, out: m });
          expectTyped(host(m), ref(axis, h), `cumsum axis ${axis} out=m`);
        }
        const m = gpuarray.toGpu(h, { shape: [n, n] });
        gpuarray.cumsum(m, { axis: 1, out: m.T });
        expectTyped(host(m), transposed(ref(1, h), n), 'cumsum axis 1 out=m.T');
      });
    });

    test('InclusiveScanKernel and ExclusiveScanKernel in place (output omitted, or the input itself)', () => {
      cuda.tidy(() => {
        const n = BIG + 5;
        const h = new Int32Array(n).fill(1);
        const inc = new InclusiveScanKernel('int32', 'a + b');
        const x = gpuarray.toGpu(h);
        expect(inc(x)).toBe(x);
        expectTyped(host(x), Int32Array.from({ length: n }, (_, i) => i + 1), 'inclusive in place');
        const exc = new ExclusiveScanKernel('int32', 'a + b', 0);
        const y = gpuarray.toGpu(h);
        exc(y, y);
        expectTyped(host(y), Int32Array.from({ length: n }, (_, i) => i), 'exclusive in place');
      });
    });

    // WAS WRONG: InclusiveScanKernel takes any C-contiguous output, with no overlap check (kernels/scan.ts scanCall); tile t
    // stores its scan into the input of tile t + SHIFT / 4096, which loads it only after tile t is done.
    test('InclusiveScanKernel into a shifted view of its input', () => {
      cuda.tidy(() => {
        const n = BIG + SHIFT;
        const x = gpuarray.toGpu(new Int32Array(n).fill(1));
        const inc = new InclusiveScanKernel('int32', 'a + b');
        inc(x.index(`:${BIG}`), x.index(`${SHIFT}:`));
        const want = new Int32Array(n).fill(1);
        for (let j = 0; j < BIG; j++) want[SHIFT + j] = j + 1;
        expectTyped(host(x), want, 'inclusive scan x[SHIFT:] = scan(x[:-SHIFT])');
      });
    });
  });

  // ---- matmul ------------------------------------------------------------------------------------

  describe('matmul', () => {
    test('out === a, out === b, out === a.T (a square float64 product of small integers: exact)', () => {
      cuda.tidy(() => {
        const n = 256;
        const ha = f64(n * n, (i) => (i % 7) - 3);
        const hb = f64(n * n, (i) => (i % 5) - 2);
        const want = matmulRef(ha, hb, n, n, n);
        const a = gpuarray.toGpu(ha, { shape: [n, n] });
        const b = gpuarray.toGpu(hb, { shape: [n, n] });
        expect(gpuarray.matmul(a, b, { out: a })).toBe(a);
        expectTyped(host(a), want, 'matmul out=a');
        a.set(ha);
        gpuarray.matmul(a, b, { out: b });
        expectTyped(host(b), want, 'matmul out=b');
        b.set(hb);
        gpuarray.matmul(a, b, { out: a.T });
        expectTyped(host(a), transposed(want, n), 'matmul out=a.T');
        a.set(ha);
        gpuarray.matmul(a, a, { out: a });
        expectTyped(host(a), matmulRef(ha, ha, n, n, n), 'matmul(a, a, out=a)');
      });
    });

    test('out overlapping a shifted part of an operand\'s buffer (batched)', () => {
      cuda.tidy(() => {
        const n = 64;
        const buf = gpuarray.toGpu(f64(3 * n * n, (i) => (i % 11) - 5));
        const h = host(buf) as Float64Array;
        const a = buf.index(`0:${2 * n * n}`).reshape(2, n, n);
        const out = buf.index(`${n * n}:`).reshape(2, n, n); // out[0] is a[1]
        gpuarray.matmul(a, a, { out });
        const want = h.slice();
        for (let k = 0; k < 2; k++) {
          const m = h.subarray(k * n * n, (k + 1) * n * n);
          want.set(matmulRef(m, m, n, n, n), (k + 1) * n * n);
        }
        expectTyped(host(buf), want, 'batched matmul into a shifted out');
      });
    });
  });

  // ---- take / put -------------------------------------------------------------------------------

  describe('take and put', () => {
    test('take (no out option: a new array) leaves its input as it was', () => {
      cuda.tidy(() => {
        const h = f32(1000, (i) => i * 3);
        const x = gpuarray.toGpu(h);
        const r = gpuarray.take(x, [999, 0, 5, -1]);
        expectArray(r, 'float32', [4], [2997, 0, 15, 2997]);
        expectTyped(host(x), h, 'take input');
        const m = gpuarray.toGpu(f32(12), { shape: [3, 4] });
        expectArray(gpuarray.take(m.T, [2, 0], 1), 'float32', [4, 2], [8, 0, 9, 1, 10, 2, 11, 3]);
      });
    });

    test('put with values that are a non-contiguous view of the target (copied first)', () => {
      cuda.tidy(() => {
        const a = upload('float64', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        gpuarray.put(a, [1, 3, 5], a.index('0:6:2')); // values [0, 2, 4], read before any store
        expectArray(a, 'float64', [10], [0, 0, 2, 2, 4, 4, 6, 7, 8, 9]);
      });
    });

    // WAS WRONG: put() passes values that are a contiguous view of `a` straight to the scatter kernel (joins.ts put:
    // no copy, no overlap check); thread i stores a[SHIFT + i], which thread SHIFT + i reads SHIFT / 256 blocks later.
    // NumPy (np.put(a, ind, a[:n])) reads the values first.
    test('put with values a contiguous view of the target, shifted', () => {
      cuda.tidy(() => {
        const n = 2 * SHIFT;
        const h = f32(n + SHIFT);
        const a = gpuarray.toGpu(h);
        const idx = gpuarray.arange(SHIFT, SHIFT + n, 1, 'int64');
        gpuarray.put(a, idx, a.index(`0:${n}`));
        expectTyped(host(a), moved(h, SHIFT, 0, n), 'put(a, SHIFT + i, a[:n])');
      });
    });

    test('put with values === the target and the identity indices', () => {
      cuda.tidy(() => {
        const h = f32(SHIFT, (i) => i % 999);
        const a = gpuarray.toGpu(h);
        gpuarray.put(a, gpuarray.arange(0, SHIFT, 1, 'int64'), a);
        expectTyped(host(a), h, 'put(a, arange, a)');
      });
    });
  });

  // ---- sort --------------------------------------------------------------------------------------

  describe('sort', () => {
    const desc = (n: number) => f32(n, (i) => (n - i) % 4099);

    test('sort(x, { out: x }) and x.sort() (1-D)', () => {
      cuda.tidy(() => {
        const n = SHIFT + 3;
        const h = desc(n);
        const want = h.slice().sort();
        const x = gpuarray.toGpu(h);
        expect(gpuarray.sort(x, { out: x })).toBe(x);
        expectTyped(host(x), want, 'sort out=x');
        const y = gpuarray.toGpu(h);
        expect(y.sort()).toBe(y);
        expectTyped(host(y), want, 'x.sort()');
      });
    });

    test('x.sort() of a matrix along each axis, in place', () => {
      cuda.tidy(() => {
        const r = 300, c = 257;
        const h = f64(r * c, (i) => (i * 7919) % 1009);
        for (const axis of [-1, 0]) {
          const m = gpuarray.toGpu(h, { shape: [r, c] });
          m.sort({ axis });
          const want = h.slice();
          const lines = axis === -1 ? r : c, len = axis === -1 ? c : r;
          const at = (l: number, k: number): number => (axis === -1 ? l * c + k : k * c + l);
          for (let l = 0; l < lines; l++) {
            const line = Array.from({ length: len }, (_, k) => h[at(l, k)]).sort((p, q) => p - q);
            line.forEach((v, k) => { want[at(l, k)] = v; });
          }
          expectTyped(host(m), want, `m.sort(axis ${axis})`);
        }
      });
    });

    test('sort into a shifted view of its input (forward and backward)', () => {
      cuda.tidy(() => {
        const h = desc(BIG + 1);
        for (const [dst, src] of [[1, 0], [SHIFT, 0], [0, SHIFT]]) {
          const x = gpuarray.toGpu(h);
          const len = BIG + 1 - Math.max(dst, src);
          gpuarray.sort(x.index(`${src}:${src + len}`), { out: x.index(`${dst}:${dst + len}`) });
          const want = h.slice();
          want.set(h.slice(src, src + len).sort(), dst);
          expectTyped(host(x), want, `sort x[${dst}:] = sort(x[${src}:])`);
        }
      });
    });
  });

  // ---- reductions (reductions.ts target(): out written directly when contiguous of the result's dtype) ----

  describe('reductions with out', () => {
    test('a whole-array sum into an element of its input (written once every block has read)', () => {
      cuda.tidy(() => {
        const n = BIG + 1;
        const x = gpuarray.toGpu(f64(n, (i) => i % 3));
        let want = 0;
        for (let i = 0; i < n; i++) want += i % 3;
        gpuarray.sum(x, { keepdims: true, out: x.index('0:1') });
        expect(x.index(0).item()).toBe(want);
      });
    });

    test('sum over axis 0 with keepdims into the first row of its input', () => {
      cuda.tidy(() => {
        const r = 4096, c = 1024;
        const h = f64(r * c, (i) => i % 5);
        const m = gpuarray.toGpu(h, { shape: [r, c] });
        gpuarray.sum(m, { axis: 0, keepdims: true, out: m.index('0:1') });
        const want = h.slice();
        for (let j = 0; j < c; j++) {
          let s = 0;
          for (let i = 0; i < r; i++) s += h[i * c + j];
          want[j] = s;
        }
        expectTyped(host(m), want, 'sum axis 0 into row 0');
      });
    });

    // WAS WRONG: a contiguous out of the result's dtype is written directly with no overlap check (reductions.ts
    // target()); the block of rows 0-7 stores its sums into the last 1024 rows before the blocks of those rows load them.
    test('sum over axis 1 into the last elements of its input', () => {
      cuda.tidy(() => {
        const r = 65536, c = 64;
        const h = f64(r * c, (i) => i % 7);
        const m = gpuarray.toGpu(h, { shape: [r, c] });
        const out = m.ravel().index(`${r * c - r}:`);
        gpuarray.sum(m, { axis: 1, out });
        const want = h.slice();
        for (let i = 0; i < r; i++) {
          let s = 0;
          for (let j = 0; j < c; j++) s += h[i * c + j];
          want[r * c - r + i] = s;
        }
        expectTyped(host(m), want, 'sum axis 1 into the tail of m');
      });
    });

    // WAS WRONG: as above on the one-block-per-row path: block i stores mean(row i) into m[-1, i]; the block of the last row
    // starts after most of the others have stored, and averages the stored means.
    test('mean over axis 1 into the last row of its input', () => {
      cuda.tidy(() => {
        const n = 2048;
        const h = f64(n * n, (i) => i % 9);
        const m = gpuarray.toGpu(h, { shape: [n, n] });
        gpuarray.mean(m, { axis: 1, out: m.index(-1) });
        const want = h.slice();
        for (let i = 0; i < n; i++) {
          let s = 0;
          for (let j = 0; j < n; j++) s += h[i * n + j];
          want[(n - 1) * n + i] = s / n;
        }
        expectTyped(host(m), want, 'mean axis 1 into m[-1]');
      });
    });
  });

  // ---- elementwise kernel builders ---------------------------------------------------------------

  describe('ElementwiseKernel', () => {
    test('PyCUDA form: the same array as a const input and the output', () => {
      cuda.tidy(() => {
        const k = new ElementwiseKernel('const float *a, float *b', 'b[i] = a[i] * 2 + 1', 'overlap_twice_plus1');
        const h = f32(SHIFT + 1, (i) => i % 1000);
        const x = gpuarray.toGpu(h);
        k(x, x);
        expectTyped(host(x), h.map((v) => v * 2 + 1), 'k(x, x)');
      });
    });

    test('generic form: output a shifted view of the input, or the input itself', () => {
      cuda.tidy(() => {
        const inc = ElementwiseKernel.generic('T x', 'T y', 'y = x + 1', 'overlap_inc');
        const h = f32(BIG + 1);
        for (const [dst, src] of [[1, 0], [SHIFT, 0], [0, SHIFT]]) {
          const x = gpuarray.toGpu(h);
          const len = BIG + 1 - Math.max(dst, src);
          inc(x.index(`${src}:${src + len}`), x.index(`${dst}:${dst + len}`));
          expectTyped(host(x), moved(h, dst, src, len, (v) => v + 1), `generic x[${dst}:] = x[${src}:] + 1`);
        }
        const y = gpuarray.toGpu(h);
        inc(y, y);
        expectTyped(host(y), h.map((v) => v + 1), 'generic in place');
        const n = 1024;
        const m = gpuarray.toGpu(h.subarray(0, n * n), { shape: [n, n] });
        inc(m.T, m);
        expectTyped(host(m), transposed(h.subarray(0, n * n), n).map((v) => v + 1), 'generic m = m.T + 1');
      });
    });
  });
});
