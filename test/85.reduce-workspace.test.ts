/**
 * The reduction engine's per-stream partials workspace (engine/reduce.ts): a reduction allocates
 * nothing but its result (no per-call partials allocation on the timed stream), and reductions
 * queued back to back on one stream, or on two streams at once, that reuse and grow the workspace
 * give the CPU reference's results: odd sizes, empty, NaN, whole-array, axis 0 (column tiles
 * split over blockIdx.y, columns loaded as vectors where aligned) and axis 1 with few rows
 * (several blocks per row).
 */
import * as cuda from '../lib';
import { GPUArray, driver, gpuarray } from '../lib';
import { native } from '../lib/cuda/native';
import { describeGpu } from './helpers';

/** Deterministic small integers (exact in int32 and in float32 sums of these sizes). */
function ints(n: number, seed: number): Int32Array {
  const a = new Int32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    a[i] = (s >>> 24) - 128;
  }
  return a;
}

const sumAll = (a: Int32Array) => a.reduce((x, y) => x + y, 0);
function sumAxis(a: Int32Array, rows: number, cols: number, axis: 0 | 1): number[] {
  const r = new Array<number>(axis === 0 ? cols : rows).fill(0);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) r[axis === 0 ? j : i] += a[i * cols + j];
  return r;
}
const values = (g: GPUArray) => Array.from(g.get() as unknown as ArrayLike<number | bigint>, Number);

describeGpu('reduction partials workspace', () => {
  test('a reduction with several blocks per output allocates nothing but its result', () => {
    const x = gpuarray.toGpu(ints(1 << 22, 1));
    const out = gpuarray.empty([], 'int64'); // sum's own dtype: written in place, no temporary
    gpuarray.sum(x, { out }); // first call: the workspaces are made here
    driver.Context.synchronize();
    const spy = jest.spyOn(native, 'memAlloc');
    try {
      for (let i = 0; i < 10; i++) gpuarray.sum(x, { out });
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
    expect(values(out)).toEqual([sumAll(ints(1 << 22, 1))]);
    x.dispose();
    out.dispose();
  });

  test('back-to-back reductions on one stream, growing the workspace, match the CPU', () => cuda.tidy(() => {
    // Each case needs more partials than the one before (the workspace grows between queued
    // launches); nothing is synchronized until all results are read.
    const cases: Array<{ host: Int32Array; rows: number; cols: number; axis: 0 | 1 | null }> = [
      { host: ints(1, 2), rows: 1, cols: 1, axis: null },
      { host: ints(31, 3), rows: 1, cols: 31, axis: null },
      { host: ints(1000003, 4), rows: 1, cols: 1000003, axis: null },
      { host: ints(37 * 100003, 5), rows: 37, cols: 100003, axis: 1 },
      { host: ints(1000 * 4099, 6), rows: 1000, cols: 4099, axis: 0 },
      { host: ints(3 * 1048583, 7), rows: 3, cols: 1048583, axis: 1 },
      { host: ints((1 << 22) + 7, 8), rows: 1, cols: (1 << 22) + 7, axis: null },
    ];
    const results = cases.map((c) => {
      const g = gpuarray.toGpu(c.host);
      const f = g.astype('float64'); // exact sums of these integers
      if (c.axis === null) return [gpuarray.sum(g), gpuarray.sum(f), gpuarray.max(g.astype('float32'))];
      const m = g.reshape(c.rows, c.cols);
      return [gpuarray.sum(m, { axis: c.axis }), gpuarray.sum(f.reshape(c.rows, c.cols), { axis: c.axis })];
    });
    cases.forEach((c, i) => {
      if (c.axis === null) {
        const s = sumAll(c.host);
        expect(values(results[i][0])).toEqual([s]);
        expect(values(results[i][1])).toEqual([s]);
        expect(values(results[i][2])).toEqual([c.host.reduce((x, y) => Math.max(x, y), -Infinity)]);
      } else {
        const ref = sumAxis(c.host, c.rows, c.cols, c.axis);
        expect(values(results[i][0])).toEqual(ref);
        expect(values(results[i][1])).toEqual(ref);
      }
    });
  }));

  test('two streams at once, each with its own workspace', () => cuda.tidy(() => {
    const s1 = new driver.Stream();
    const s2 = new driver.Stream();
    const a = ints(3000017, 9);
    const b = ints(2000003, 10);
    const ga = gpuarray.toGpu(a);
    const gb = gpuarray.toGpu(b);
    driver.Context.synchronize();
    const ra: GPUArray[] = [];
    const rb: GPUArray[] = [];
    for (let i = 0; i < 8; i++) {
      ra.push(gpuarray.sum(ga, { stream: s1 }));
      rb.push(gpuarray.sum(gb.reshape(1, b.length), { axis: 1, stream: s2 }));
    }
    s1.synchronize();
    s2.synchronize();
    for (const r of ra) expect(values(r)).toEqual([sumAll(a)]);
    for (const r of rb) expect(values(r)).toEqual([sumAll(b)]);
    s1.dispose();
    s2.dispose();
  }));

  test('axis 0 with each thread\'s columns loaded as one vector (cols variant, E = 16 bytes), and where it cannot be', () => cuda.tidy(() => {
    // Column-tile launches (blocks of 32x8): a vector one has fewer threads along x than columns.
    const launch = native.launch.bind(native);
    let tiles: Array<[number, number]> = [];
    const spy = jest.spyOn(native, 'launch').mockImplementation((fn, st, cfg, bytes, off, queue) => {
      if (cfg[3] === 32 && cfg[4] === 8) tiles.push([cfg[0], cfg[1]]);
      return launch(fn, st, cfg, bytes, off, queue);
    });
    const vectorLaunches = (cols = 0): number => {
      const n = tiles.filter(([gx]) => gx * 32 < cols).length;
      tiles = [];
      return n;
    };
    try {
      // [base shape, view, dtype, vector expected]: the engine picks E from the dtype (float32 4,
      // float64 2, float16/int8/uint8 8); views whose columns are not 16-byte aligned, or not a
      // multiple of E, read one column a thread.
      type Case = [number[], (a: GPUArray) => GPUArray, 'float32' | 'int32' | 'float64' | 'float16' | 'int8' | 'uint8', boolean];
      const same = (a: GPUArray) => a;
      const cases: Case[] = [
        [[1000, 4128], same, 'float32', true], // 1032 threads of 4 columns, split over blockIdx.y
        [[1000, 4128], same, 'int32', true], // int64 sums
        [[700, 1030], same, 'float64', true],
        [[10, 40], same, 'float16', true], // |sums| <= 1280: exact in float16
        [[300, 96], same, 'int8', true],
        [[300, 96], same, 'uint8', true],
        [[5, 6, 64], (a) => a.index(':', ':', ':32'), 'float32', true], // kept [6, 32] strided: two kept dims
        [[3, 8, 24], same, 'float32', true], // kept [8, 24] collapses to 192 columns
        [[100, 40], (a) => a.index(':', '1:33'), 'float32', false], // 4-byte offset: not aligned
        [[100, 42], same, 'float32', false], // 42 columns: not a multiple of 4
      ];
      cases.forEach(([base, view, dt, vec], c) => {
        const n = base.reduce((x, y) => x * y, 1);
        const host = ints(n, 40 + c);
        const full = gpuarray.toGpu(host).astype(dt === 'uint8' ? 'int32' : dt);
        const g = view((dt === 'uint8' ? full.add(128).astype('uint8') : full).reshape(...base));
        const h = Array.from(g.astype('float64').get() as Float64Array);
        const rows = g.shape[0], cols = g.size / rows;
        const ref = new Array<number>(cols).fill(0), mx = new Array<number>(cols).fill(-Infinity), am = new Array<number>(cols).fill(0);
        for (let i = 0; i < rows; i++) {
          for (let j = 0; j < cols; j++) {
            const x = h[i * cols + j];
            ref[j] += x;
            if (x > mx[j]) { mx[j] = x; am[j] = i; }
          }
        }
        vectorLaunches();
        const sum = gpuarray.sum(g, { axis: 0 });
        const max = gpuarray.max(g, { axis: 0 });
        const arg = gpuarray.argmax(g, { axis: 0 });
        expect([base, dt, vectorLaunches(cols)]).toEqual([base, dt, vec ? 3 : 0]);
        const num = (x: GPUArray) => values(x.astype('float64').reshape(cols)); // float16's host copy is its bits
        expect([base, dt, num(sum)]).toEqual([base, dt, ref]);
        expect([base, dt, num(max)]).toEqual([base, dt, mx]);
        expect([base, dt, values(arg.reshape(cols))]).toEqual([base, dt, am]);
        if (dt === 'float32') {
          const mean = values(gpuarray.mean(g, { axis: 0 }).reshape(cols));
          mean.forEach((m, j) => expect(Math.abs(m - ref[j] / rows)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(ref[j] / rows))));
        }
      });
      // NaN in one column of the vector path: that column only.
      const f = new Float32Array(64 * 64).fill(1);
      f[5 * 64 + 6] = NaN;
      vectorLaunches();
      const s = values(gpuarray.sum(gpuarray.toGpu(f).reshape(64, 64), { axis: 0 }));
      expect(vectorLaunches(64)).toBe(1);
      s.forEach((v, j) => (j === 6 ? expect(v).toBeNaN() : expect(v).toBe(64)));
    } finally {
      spy.mockRestore();
    }
  }));

  test('empty and NaN inputs through the workspace path', () => cuda.tidy(() => {
    const big = new Float32Array(1000003).fill(0.5);
    big[999999] = NaN;
    const g = gpuarray.toGpu(big);
    expect(values(gpuarray.sum(g))[0]).toBeNaN();
    expect(values(gpuarray.max(g))[0]).toBeNaN();
    expect(values(gpuarray.sum(gpuarray.empty([0], 'float32')))).toEqual([0]);
    expect(values(gpuarray.sum(gpuarray.empty([0, 5], 'float32'), { axis: 0 }))).toEqual([0, 0, 0, 0, 0]);
    // The same array without the NaN: the partials of the NaN call do not leak into the next.
    big[999999] = 0.5;
    expect(values(gpuarray.sum(gpuarray.toGpu(big)))).toEqual([0.5 * 1000003]);
  }));
});
