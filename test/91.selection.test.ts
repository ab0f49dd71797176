/**
 * topk, partition and argpartition (lib/array/selection.ts), and the short-row sort behind them and
 * behind sort/argsort of rows up to 4096 long (templates/sort_rows.ts), on a real GPU against a CPU
 * reference: row lengths at each padding boundary, in place and overlapping outputs, the radix
 * sort's segmented form with the short-row sort off (a child process);
 * every dtype (NaN/±Inf/-0, extremes, duplicates), k = 0 … the axis' length, largest and smallest,
 * axis 0/1/-1/null of 2-D and 3-D arrays, transposed, stepped and broadcast inputs, empty axes, the
 * methods, a stream; topk of long rows by radix selection (several blocks a row or one, k past the
 * short-row sort, ties at the k-th, every value equal, NaN bits); partition's defining property
 * checked for each kth, and partition of long rows by selection checked exactly (its stable
 * three-way order). Argument errors raised
 * before any GPU work are checked at the end (those that need an array run on the GPU too).
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import * as cuda from '../lib';
import { GPUArray, gpuarray, slice } from '../lib';
import type { DTypeName } from '../lib';
import { describeGpu, expectCode } from './helpers';
import { DTYPE_NAMES, V, download, softly, upload, viewOf } from './reference';
import { argsortRef, argsortRows, cmp, expectIndices, expectValues, values } from './sort-reference';

const strides = (shape: number[]): number[] => shape.map((_, i) => shape.slice(i + 1).reduce((p, q) => p * q, 1));

/**
 * torch.topk as nodecuda documents it, for C-order values `xs` of `shape`: along `axis` (null:
 * flattened) the k smallest in stable order, or the k largest in reverse stable order (NaN largest).
 */
function topkRef(xs: V[], shape: number[], axis: number | null, k: number, largest: boolean): {
  values: V[]; indices: number[]; shape: number[];
} {
  if (axis === null) return topkRef(xs, [xs.length], 0, k, largest);
  const ax = axis < 0 ? axis + shape.length : axis;
  const perm = shape.map((_, i) => i).filter((i) => i !== ax).concat([ax]);
  const moved = viewOf(xs, perm.map((i) => shape[i]), perm.map((i) => strides(shape)[i]));
  const len = shape[ax];
  const rows = len === 0 ? 0 : moved.length / len;
  const vals: V[] = [];
  const idx: number[] = [];
  for (let r = 0; r < rows; r++) {
    const row = moved.slice(r * len, r * len + len);
    const order = argsortRef(row);
    const sel = largest ? order.slice(len - k).reverse() : order.slice(0, k);
    for (const i of sel) {
      vals.push(row[i]);
      idx.push(i);
    }
  }
  const outShape = shape.slice();
  outShape[ax] = k;
  const pshape = perm.map((i) => outShape[i]);
  const pstr = strides(pshape);
  const back = <T>(v: T[]): T[] => viewOf(v, outShape, shape.map((_, i) => pstr[perm.indexOf(i)]));
  return { values: back(vals), indices: back(idx), shape: outShape };
}

function checkTopk(a: GPUArray, xs: V[], axis: number | null, k: number, largest: boolean, label: string, stream?: cuda.Stream): void {
  const want = topkRef(xs, [...a.shape], axis, k, largest);
  const r = gpuarray.topk(a, k, axis === -1 ? { largest, stream } : { axis, largest, stream });
  stream?.synchronize();
  expect([...r.values.shape]).toEqual(want.shape);
  expect([...r.indices.shape]).toEqual(want.shape);
  expect(r.values.dtype).toBe(a.dtype);
  expect(r.values.flags.cContiguous && r.indices.flags.cContiguous).toBe(true);
  expectValues(download(r.values), want.values, `${label} values`);
  expectIndices(r.indices, want.indices, `${label} indices`);
}

/** NumPy's partition property along the last axis of C-order rows of `len`: p[kth] is the sorted one, ≤ before, ≥ after. */
function expectPartitioned(p: V[], xs: V[], len: number, kths: number[], label: string): void {
  for (let r = 0; r * len < p.length; r++) {
    const row = p.slice(r * len, r * len + len);
    const sortedRow = argsortRef(xs.slice(r * len, r * len + len)).map((i) => xs[r * len + i]);
    for (const k0 of kths) {
      const k = k0 < 0 ? k0 + len : k0;
      if (cmp(row[k], sortedRow[k]) !== 0) throw new Error(`${label}: row ${r} kth ${k0} holds the wrong value`);
      if (row.some((v, i) => (i < k ? cmp(v, row[k]) > 0 : i > k ? cmp(v, row[k]) < 0 : false))) {
        throw new Error(`${label}: row ${r} is not partitioned around ${k0}`);
      }
    }
  }
}

describeGpu('selection', () => {
  test.each(['bool', 'uint8', 'int16', 'float16', 'bfloat16', 'int32', 'float32', 'int64', 'uint64', 'float64'] as DTypeName[])(
    'short-row sort %s: rows of 1 … 4097 (each side of every padding size), sort, argsort and topk', (d) => {
      const check = softly();
      const block = d.endsWith('64') ? 2048 : 4096; // positions a block holds
      for (const [len, distinct] of [1, 2, 7, 9, 31, 32, 33, 100, 128, 255, 256, 257, 1023, 1025, 2048, 2049, 4096, 4097]
        .flatMap((l) => [[l, 0], [l, 7]])) {
        // Two full blocks and a partial one (at least 3 rows), or 300 short rows.
        const n2 = 2 ** Math.max(3, Math.ceil(Math.log2(len)));
        const rows = len <= 64 ? 300 : Math.max(3, 2 * Math.floor(block / n2) + 1);
        check(() => cuda.tidy(() => {
          const xs = values(d, rows * len, len + 41 + distinct, distinct);
          const a = upload(d, xs, [rows, len]);
          const idx = argsortRows(xs, len);
          const label = `${d} len ${len} × ${rows} distinct ${distinct}`;
          expectValues(download(gpuarray.sort(a)), idx.map((k, j) => xs[j - (j % len) + k]), `${label} sort`);
          expectIndices(gpuarray.argsort(a), idx, `${label} argsort`);
          for (const largest of [true, false]) checkTopk(a, xs, -1, Math.min(3, len), largest, `${label} topk ${largest}`);
        }));
      }
      check.done();
    });

  test('short rows in place (the kernel writes over its input), into an output overlapping the input, many rows; NaN bits', () => cuda.tidy(() => {
    const xs = values('float32', 50 * 300, 31, 0);
    const want = argsortRows(xs, 300).map((k, j) => xs[j - (j % 300) + k]);
    const a = upload('float32', xs, [50, 300]);
    expect(gpuarray.sort(a, { out: a })).toBe(a);
    expectValues(download(a), want, 'in place');
    const big = upload('float32', [...xs, 0]);
    const dst = big.index(slice(1, null)).reshape([50, 300]);
    gpuarray.sort(big.index(slice(0, xs.length)).reshape([50, 300]), { out: dst }); // through a new array
    expectValues(download(dst), want, 'out shifted by one');
    // 1-D: in place, shifted by one (the radix sort takes it), partition in place.
    const ys = values('float64', 300, 33, 0);
    const ywant = argsortRef(ys).map((i) => ys[i]);
    const y = upload('float64', ys);
    expect(gpuarray.sort(y, { out: y })).toBe(y);
    expectValues(download(y), ywant, '1-D in place');
    const ybig = upload('float64', [...ys, 0]);
    gpuarray.sort(ybig.index(slice(0, 300)), { out: ybig.index(slice(1, null)) });
    expectValues(download(ybig.index(slice(1, null))), ywant, '1-D out shifted by one');
    const yp = upload('float64', ys);
    expect(yp.partition(150)).toBe(yp);
    expectPartitioned(download(yp), ys, 300, [150], '1-D partition in place');
    // NaN bits: kept by a sort into a new array and by topk (gathered by column); in place, one quiet NaN.
    const bits = new Uint32Array([0x3f800000, 0xffc00000, 0x7fc00001, 0x40000000, 0x7f800001, 0xbf800000]);
    const fa = gpuarray.toGpu(new Float32Array(bits.buffer)).reshape([2, 3]);
    const u32 = (x: GPUArray): number[] => [...new Uint32Array((x.get() as Float32Array).buffer)];
    expect(u32(gpuarray.sort(fa))).toEqual([0x3f800000, 0xffc00000, 0x7fc00001, 0xbf800000, 0x40000000, 0x7f800001]);
    expect(u32(gpuarray.topk(fa, 2).values)).toEqual([0x7fc00001, 0xffc00000, 0x7f800001, 0x40000000]); // equal NaNs: reverse index order
    expect(u32(fa.sort())).toEqual([0x3f800000, 0x7fffffff, 0x7fffffff, 0xbf800000, 0x40000000, 0x7fffffff]);
    const many = values('int32', 100003 * 5, 32, 3);
    expectIndices(gpuarray.argsort(upload('int32', many, [100003, 5])), argsortRows(many, 5), '100003 rows of 5');
  }));

  test('the radix sort\'s segmented form (NODECUDA_SORT_ROWS_MAX=0, in a child process)', () => {
    const script = `const { gpuarray } = require(${JSON.stringify(path.resolve(__dirname, '..', 'dist'))});
      const { ROW_SORT_MAX } = require(${JSON.stringify(path.resolve(__dirname, '..', 'dist', 'engine', 'templates', 'sort_rows'))});
      const x = new Float32Array(7 * 33).map((_, i) => ((i * 7919) % 101) - 50);
      const a = gpuarray.toGpu(x).reshape([7, 33]);
      const out = { max: ROW_SORT_MAX, s: [...gpuarray.sort(a).get()], i0: [...gpuarray.argsort(a, { axis: 0 }).get()].map(Number),
        t: [...gpuarray.topk(a, 4).indices.get()].map(Number) };
      console.log(JSON.stringify(out));`;
    const r = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, NODECUDA_SORT_ROWS_MAX: '0' }, encoding: 'utf8', timeout: 120000 });
    if (r.status !== 0) throw new Error(`the child exited ${r.status ?? r.signal}: ${r.stderr}`);
    const got = JSON.parse(r.stdout.trim().split('\n').pop()!) as { max: number; s: number[]; i0: number[]; t: number[] };
    const xs = Array.from({ length: 7 * 33 }, (_, i) => ((i * 7919) % 101) - 50);
    expect(got.max).toBe(0);
    expect(got.s).toEqual(argsortRows(xs, 33).map((k, j) => xs[j - (j % 33) + k]));
    expect(got.i0).toEqual(viewOf(argsortRows(viewOf(xs, [33, 7], [1, 33]), 7), [7, 33], [1, 7]));
    expect(got.t).toEqual(topkRef(xs, [7, 33], -1, 4, true).indices);
  });

  test.each(DTYPE_NAMES)('topk %s, 1-D: n = 1, 31, 1000, 4097; k = 0, 1, 5, n; largest and smallest; duplicates', (d) => {
    const check = softly();
    for (const n of [1, 31, 1000, 4097]) {
      for (const distinct of [0, 4]) {
        check(() => cuda.tidy(() => {
          const xs = values(d, n, n + 3 + distinct, distinct);
          const a = upload(d, xs);
          for (const k of [...new Set([0, 1, Math.min(5, n), n])]) {
            for (const largest of [true, false]) checkTopk(a, xs, -1, k, largest, `${d} n=${n} k=${k} largest=${largest} distinct=${distinct}`);
          }
        }));
      }
    }
    check.done();
  });

  test.each(['float32', 'int64', 'complex64', 'bool', 'float16'] as DTypeName[])('topk %s along axis 0, 1, -1 and null of 2-D and 3-D arrays', (d) => {
    const check = softly();
    for (const shape of [[7, 33], [3, 5, 17], [1, 300], [300, 1]]) {
      const xs = values(d, shape.reduce((p, q) => p * q, 1), shape[0] + shape.length, d === 'bool' ? 0 : 6);
      for (const axis of [...shape.map((_, i) => i), -1, null]) {
        const len = axis === null ? xs.length : shape[axis < 0 ? axis + shape.length : axis];
        for (const k of [...new Set([1, Math.min(3, len), len])]) {
          for (const largest of [true, false]) {
            check(() => cuda.tidy(() => checkTopk(upload(d, xs, shape), xs, axis, k, largest, `${d} ${shape} axis ${axis} k ${k} ${largest}`)));
          }
        }
      }
    }
    check.done();
  });

  // Rows past the short-row sort with k at most a quarter of the row: the radix selection
  // (engine/select.ts). Several blocks a row (a single long row; three rows of 70000), one block a
  // row (many rows), k past the short-row sort of the selected slots (the radix sort sorts them).
  test.each(DTYPE_NAMES.filter((d) => !d.startsWith('complex')))('topk %s by selection: long rows, k = 1 … len/4, ties at the k-th, NaN', (d) => {
    const check = softly();
    const cases: Array<[number, number, number[]]> = [[1, 5000, [1, 7, 100, 1250]], [2, 40000, [1, 33, 4097]],
      [40, 4100, [5, 1025]], [1, 2 ** 17 + 3, [50]]];
    for (const [rows, len, ks] of cases) {
      for (const distinct of [0, 5]) {
        if (rows * len > 100000 && distinct) continue;
        check(() => cuda.tidy(() => {
          const xs = values(d, rows * len, rows + len + distinct, distinct);
          const a = upload(d, xs, [rows, len]);
          for (const k of ks) {
            for (const largest of [true, false]) checkTopk(a, xs, -1, k, largest, `${d} ${rows}×${len} k=${k} largest=${largest} distinct=${distinct}`);
          }
        }));
      }
    }
    check.done();
  });

  test('topk by selection: every value equal, along axis 0 and null, on a stream; NaN bits kept; big k on many rows', () => cuda.tidy(() => {
    const same = gpuarray.full([6000], 7, 'int16');
    const t = gpuarray.topk(same, 10);
    expectIndices(t.indices, Array.from({ length: 10 }, (_, i) => 5999 - i), 'equal, largest');
    expect(download(t.values)).toEqual(Array(10).fill(7));
    expectIndices(gpuarray.topk(same, 10, { largest: false }).indices, Array.from({ length: 10 }, (_, i) => i), 'equal, smallest');
    const xs = values('float64', 5000 * 3, 41, 0);
    const stream = new cuda.driver.Stream();
    try {
      checkTopk(upload('float64', xs, [5000, 3]), xs, 0, 20, true, 'axis 0', stream);
      checkTopk(upload('float64', xs, [100, 150]), xs, null, 300, false, 'axis null', stream);
    } finally {
      stream.synchronize();
      stream.dispose();
    }
    const bits = new Uint32Array(5000).fill(0x3f800000);
    bits[10] = 0x7fc00001;
    bits[4000] = 0xffc00002;
    bits[20] = 0x7f800001;
    bits[30] = 0x7f800000;
    const r = gpuarray.topk(gpuarray.toGpu(new Float32Array(bits.buffer)), 5);
    const got = [...new Uint32Array((r.values.get() as Float32Array).buffer)];
    expect(got).toEqual([0xffc00002, 0x7f800001, 0x7fc00001, 0x7f800000, 0x3f800000]);
    expectIndices(r.indices, [4000, 20, 10, 30, 4999], 'NaN bits');
    const many = values('uint8', 16 * 9000, 42, 0);
    checkTopk(upload('uint8', many, [16, 9000]), many, -1, 2100, true, '16 rows of 9000, k = 2100');
    const wide = values('float32', 8 * 20000, 43, 0);
    checkTopk(upload('float32', wide, [8, 20000]), wide, -1, 4500, false, '8 rows of 20000, k = 4500 (the slots radix-sorted by row)');
    // Each side of the k limit (len / 4: selection, then the sort); a transposed (copied) input.
    const xs5 = values('int32', 2 * 5000, 44, 0);
    const a5 = upload('int32', xs5, [2, 5000]);
    for (const k of [1250, 1251]) checkTopk(a5, xs5, -1, k, true, `k = ${k} of 5000`);
    checkTopk(upload('int32', xs5, [5000, 2]).T, viewOf(xs5, [2, 5000], [1, 2]), -1, 30, false, 'transposed');
  }));

  test('partition by selection in place: a stepped view, along axis 0; argpartition of a stepped input', () => cuda.tidy(() => {
    const xs = values('float32', 2 * 10000, 45, 0);
    const big = upload('float32', xs, [2, 10000]);
    const view = big.index(slice(null), slice(null, null, 2)); // [2, 5000], every other column
    const vxs = viewOf(xs, [2, 5000], [10000, 2]);
    const pivot = (row: V[], kth: number): V => row[argsortRef(row)[kth]];
    expect(view.partition(2000)).toBe(view);
    const got = viewOf(download(big), [2, 5000], [10000, 2]);
    for (let r = 0; r < 2; r++) {
      const row = vxs.slice(r * 5000, r * 5000 + 5000);
      const p = pivot(row, 2000);
      const want = [-1, 0, 1].flatMap((side) => row.filter((v) => Math.sign(cmp(v, p)) === side));
      expectValues(got.slice(r * 5000, r * 5000 + 5000), want, `stepped view row ${r}`);
    }
    // the columns not in the view are untouched
    expectValues(viewOf(download(big), [2, 5000], [10000, 2], 1), viewOf(xs, [2, 5000], [10000, 2], 1), 'the other columns');
    const ys = values('int64', 6000 * 2, 46, 3);
    const m = upload('int64', ys, [6000, 2]);
    expect(m.partition(5999, { axis: 0 })).toBe(m);
    expectPartitioned(viewOf(download(m), [2, 6000], [1, 2]), viewOf(ys, [2, 6000], [1, 2]), 6000, [5999], 'axis 0 in place');
    const idx = gpuarray.argpartition(upload('float32', xs, [2, 10000]).index(slice(null), slice(1, null, 2)), 100);
    const oxs = viewOf(xs, [2, 5000], [10000, 2], 1);
    const ii = (idx.get() as BigInt64Array);
    expectPartitioned([...ii].map((i, j) => oxs[j - (j % 5000) + Number(i)]), oxs, 5000, [100], 'argpartition of a stepped input');
  }));

  test('topk of transposed, stepped and broadcast inputs; empty axes; the method; a stream; NaN ranks largest', () => cuda.tidy(() => {
    const xs = values('float64', 40 * 50, 5, 0);
    const a = upload('float64', xs, [40, 50]);
    checkTopk(a.T, viewOf(xs, [50, 40], [1, 50]), -1, 7, true, 'transposed');
    checkTopk(a.index(slice(null, null, 3), slice(1, null, 2)), viewOf(xs, [14, 25], [150, 2], 1), 0, 4, false, 'stepped');
    checkTopk(upload('int32', [5, 1, 3]).broadcastTo([4, 3]), Array(12).fill(0).map((_, i) => [5, 1, 3][i % 3]), -1, 2, true, 'broadcast');
    const e = gpuarray.topk(gpuarray.zeros([3, 0], 'int32'), 0);
    expect([[...e.values.shape], [...e.indices.shape], e.indices.dtype.name]).toEqual([[3, 0], [3, 0], 'int64']);
    expect([...gpuarray.topk(gpuarray.zeros([0, 5], 'float32'), 2).values.shape]).toEqual([0, 2]);
    expect([...gpuarray.topk(gpuarray.zeros([4, 6], 'float32'), 0, { axis: 0 }).indices.shape]).toEqual([0, 6]);
    const f = upload('float32', [1, NaN, 3, -Infinity, 3, 2]);
    const m = f.topk(3);
    expectValues(download(m.values), [NaN, 3, 3], 'NaN largest');
    expectIndices(m.indices, [1, 4, 2], 'NaN largest, equal values in reverse index order');
    const s = f.topk(2, { largest: false, sorted: false });
    expectValues(download(s.values), [-Infinity, 1], 'smallest');
    const stream = new cuda.driver.Stream();
    try {
      const big = values('float32', (1 << 20) + 3, 9, 0);
      checkTopk(upload('float32', big), big, null, 100, true, 'stream 2^20+3', stream);
    } finally {
      stream.synchronize();
      stream.dispose();
    }
  }));

  test.each(['float32', 'int16', 'uint64', 'complex128', 'bfloat16'] as DTypeName[])('partition / argpartition %s: the kth elements in place, the rest on their side', (d) => {
    cuda.tidy(() => {
      const shape = [6, 45];
      const xs = values(d, 270, 17, 8);
      const a = upload(d, xs, shape);
      for (const kth of [0, 44, -1, [3, 20, -5]] as Array<number | number[]>) {
        const kths = Array.isArray(kth) ? kth : [kth];
        const p = gpuarray.partition(a, kth);
        expect([...p.shape]).toEqual(shape);
        expectPartitioned(download(p), xs, 45, kths, `${d} partition ${kth}`);
        const idx = gpuarray.argpartition(a, kth);
        expect(idx.dtype.name).toBe('int64');
        const ii = [...(idx.get() as BigInt64Array)].map(Number);
        expectPartitioned(ii.map((i, j) => xs[j - (j % 45) + i]), xs, 45, kths, `${d} argpartition ${kth}`);
      }
      // axis 0 and null; the methods (partition in place)
      const cols = viewOf(xs, [45, 6], [1, 45]);
      const p0 = gpuarray.partition(a, 2, { axis: 0 });
      expectPartitioned(viewOf(download(p0), [45, 6], [1, 45]), cols, 6, [2], `${d} axis 0`);
      expectPartitioned(download(gpuarray.partition(a, 100, { axis: null })), xs, 270, [100], `${d} axis null`);
      expectIndices(a.argpartition(3), argsortRows(xs, 45), `${d} argpartition method (a stable sort)`);
      const c = upload(d, xs, shape);
      expect(c.partition([1, 2])).toBe(c);
      expectPartitioned(download(c), xs, 45, [1, 2], `${d} in place`);
    });
  });

  // One kth of rows past the short-row sort: the radix selection's stable three-way partition
  // (smaller, equal, larger, each in index order), checked exactly.
  test.each(DTYPE_NAMES.filter((d) => !d.startsWith('complex')))('partition / argpartition %s by selection: exact three-way order', (d) => {
    const check = softly();
    /** The selection's partition of C-order rows of `len` around `kth`: indices within each row. */
    const threeWay = (xs: V[], len: number, kth: number): number[] => {
      const out: number[] = [];
      for (let r = 0; r * len < xs.length; r++) {
        const row = xs.slice(r * len, r * len + len);
        const pivot = row[argsortRef(row)[kth]];
        const cols = row.map((_, i) => i);
        for (const side of [-1, 0, 1]) out.push(...cols.filter((i) => Math.sign(cmp(row[i], pivot)) === side));
      }
      return out;
    };
    for (const [rows, len] of [[1, 5000], [3, 9000]]) {
      for (const distinct of [0, 5]) {
        check(() => cuda.tidy(() => {
          const xs = values(d, rows * len, rows + len + distinct + 1, distinct);
          const a = upload(d, xs, [rows, len]);
          for (const kth of [0, 1234, -1, Math.floor(len / 2)]) {
            const want = threeWay(xs, len, kth < 0 ? kth + len : kth);
            const label = `${d} ${rows}×${len} kth ${kth} distinct ${distinct}`;
            expectValues(download(gpuarray.partition(a, kth)), want.map((i, j) => xs[j - (j % len) + i]), `${label} partition`);
            expectIndices(gpuarray.argpartition(a, kth), want, `${label} argpartition`);
          }
          const c = upload(d, xs, [rows, len]);
          expect(c.partition(77)).toBe(c);
          expectValues(download(c), threeWay(xs, len, 77).map((i, j) => xs[j - (j % len) + i]), `${d} in place`);
        }));
      }
    }
    check(() => cuda.tidy(() => { // axis 0, axis null, two kths (the sort), a stream
      const xs = values(d, 5000 * 3, 7, 0);
      const cols = viewOf(xs, [3, 5000], [1, 3]);
      const stream = new cuda.driver.Stream();
      try {
        const p0 = gpuarray.partition(upload(d, xs, [5000, 3]), 4000, { axis: 0, stream });
        stream.synchronize();
        expectValues(viewOf(download(p0), [3, 5000], [1, 3]), threeWay(cols, 5000, 4000).map((i, j) => cols[j - (j % 5000) + i]), `${d} axis 0`);
      } finally {
        stream.synchronize();
        stream.dispose();
      }
      expectIndices(gpuarray.argpartition(upload(d, xs, [100, 150]), 9000, { axis: null }), threeWay(xs, 15000, 9000), `${d} axis null`);
      expectPartitioned(download(gpuarray.partition(upload(d, xs, [3, 5000]), [10, 4000])), xs, 5000, [10, 4000], `${d} two kths`);
    }));
    check.done();
  });

  test('argument errors that need an array', () => cuda.tidy(() => {
    const a = upload('float32', [3, 1, 2, 5], [2, 2]);
    expectCode(() => gpuarray.topk(a, 3), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.topk(a, -1), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.topk(a, 1.5), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.topk(a, 1n as unknown as number), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.topk(a, 1, { largest: 1 as unknown as boolean }), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.topk(a, 1, { dim: 0 } as never), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => gpuarray.topk(a, 1, { axis: 2 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
    expectCode(() => gpuarray.topk(gpuarray.zeros([], 'float32'), 1), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
    expect(gpuarray.topk(gpuarray.zeros([], 'float32'), 1, { axis: null }).values.shape).toEqual([1]);
    expectCode(() => gpuarray.partition(a, 2), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.partition(a, -3), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.partition(a, [0, 1.5]), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.partition(a, '1' as unknown as number), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.argpartition(a, 0, { kind: 'quicksort' as 'introselect' }), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => a.partition(0, { axis: null } as never), TypeError, 'ERR_INVALID_ARG_VALUE');
    const d = upload('float32', [1]);
    d.dispose();
    expectCode(() => gpuarray.topk(d, 1), TypeError, 'ERR_USE_AFTER_DISPOSE');
  }));
});

describe('selection argument errors (no GPU needed)', () => {
  test('non-arrays and unknown options are typed errors', () => {
    expectCode(() => gpuarray.topk(5 as unknown as GPUArray, 1), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.partition([1, 2] as unknown as GPUArray, 0), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.argpartition(null as unknown as GPUArray, 0), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.topk(null as unknown as GPUArray, 1, { descending: true } as never), TypeError, 'ERR_INVALID_ARG_VALUE');
  });
});
