'use strict';
// Sorting (docs/sorting.md): sort and argsort of 2^28 uniform float32 keys, unique of 2^26 uniform
// int32 in [0, 1000) (a range that small is counted: min/max, a histogram, no sort) and in
// [0, 2^30) (too wide to count: the radix sort, then the runs), searchsorted of 2^24 float32
// queries into 2^20 sorted keys. Rows in GB/s of keys (n × 4 bytes per call; the searchsorted row
// counts the queries): higher is faster, the peer columns compare the same call time (peers.py
// builds the same data: the unique rows pass their range). torch.sort returns values and int64
// indices (it has no keys-only sort), so the sort row compares our keys-only sort with it, as its
// note says; argsort is torch.argsort(stable=True). topk (values and int64 indices, as torch.topk)
// of 2^24 float32 keys as one row, 256 rows of 65536 and 16384 rows of 1024: ours selects by radix
// digits in the long rows and sorts the short ones in one kernel (docs/sorting.md), torch's selects
// by radix digits; CuPy has no topk. partition of 2^24 float32 keys around the middle: ours selects
// by radix digits and writes a stable three-way partition, CuPy's cupy.partition; torch has none.
// median of 2^24 float32 as one row (ours: the two middle ranks and the last, a NaN probe, by radix
// selection; torch.median returns the lower middle element alone, cupy.median partitions) and as
// 16384 rows of 1024 (ours: the short-row sort); quantile of 128 rows of 65536 at three q (ours
// sorts the rows; torch.quantile takes at most 2^24 elements, so the row is 2^23). nonzero of
// 2^24 float32 with about half of them zero: the count read back and the indices (torch.nonzero
// returns them as [n, 1]).
// The "along rows" rows sort 2^24 keys as 16384 rows of 1024 (a segmented sort).
// `npm run bench -- --filter=sort` runs the sort rows (labels containing "sort"), `--filter=topk`
// and `--filter=partition` the others.

const cuda = require('../..');
const { gpuarray, random } = cuda;

const N = 2 ** 28;
const U = 2 ** 26;
const Q = 2 ** 24;
const M = 2 ** 20;

const dispose = (ctx) => { for (const v of Object.values(ctx)) if (v && typeof v.dispose === 'function') v.dispose(); };

function row(op, label, n, setup, run, extra = {}) {
  return {
    op: label, size: `2^${Math.log2(n)}`, unit: 'GBs', bytes: n * 4,
    peer: { kind: 'sort', op, n, ...extra }, setup, run: (ctx) => run(ctx).dispose(), teardown: dispose,
  };
}

const keys = (n) => { random.seed(80); return random.rand([n], 'float32'); };

/** unique of U uniform int32 in [0, range) (float64 draws, so every value of a wide range can occur). */
const uniqueRow = (label, range) => row('unique', label, U, () => {
  random.seed(80);
  const u = random.rand([U], 'float64').mul(range);
  const x = u.astype('int32');
  u.dispose();
  return { x };
}, ({ x }) => gpuarray.unique(x), { range });

/** topk of Q uniform float32 keys as `rows` rows: values and indices (the indices freed at once). */
const topkRow = (label, rows, k) => row('topk', label, Q, () => ({ x: keys(Q).reshape([rows, Q / rows]) }), ({ x }) => {
  const r = gpuarray.topk(x, k);
  r.indices.dispose();
  return r.values;
}, { rows, k });

/** median of Q uniform float32 keys as `rows` rows (one row: of the whole array). */
const medianRow = (label, rows) => row('median', label, Q, () => ({ x: keys(Q).reshape([rows, Q / rows]) }),
  ({ x }) => gpuarray.median(x, { axis: rows === 1 ? null : 1 }), { rows });

module.exports = [
  row('sort', 'sort f32 (keys only)', N, () => ({ x: keys(N) }), ({ x }) => gpuarray.sort(x)),
  row('argsort', 'argsort f32 (int64 indices)', N, () => ({ x: keys(N) }), ({ x }) => gpuarray.argsort(x)),
  uniqueRow('unique i32 in [0, 1000)', 1000),
  uniqueRow('unique i32 in [0, 2^30) (sorts)', 2 ** 30),
  row('searchsorted', 'searchsorted f32 (2^24 into 2^20)', Q, () => {
    const k = keys(M);
    const a = gpuarray.sort(k);
    k.dispose();
    random.seed(81);
    return { a, v: random.rand([Q], 'float32') };
  }, ({ a, v }) => gpuarray.searchsorted(a, v), { m: M }),
  row('sort', 'sort f32 along rows, 16384 × 1024', Q, () => ({ x: keys(Q).reshape([16384, 1024]) }), ({ x }) => gpuarray.sort(x),
    { rows: 16384 }),
  row('argsort', 'argsort f32 along rows, 16384 × 1024', Q, () => ({ x: keys(Q).reshape([16384, 1024]) }),
    ({ x }) => gpuarray.argsort(x), { rows: 16384 }),
  topkRow('topk k=100 of 2^24 f32', 1, 100),
  topkRow('topk k=100 per row, 256 rows of 65536 f32', 256, 100),
  topkRow('topk k=5 per row, 16384 rows of 1024 f32', 16384, 5),
  row('partition', 'partition f32 around the middle (one kth)', Q, () => ({ x: keys(Q) }), ({ x }) => gpuarray.partition(x, Q / 2),
    { kth: Q / 2 }),
  medianRow('median f32 of 2^24 (one row, even count)', 1),
  medianRow('median f32 along rows, 16384 × 1024', 16384),
  row('quantile', 'quantile f32 q=[0.1,0.5,0.9] along rows, 128 × 65536', Q / 2,
    () => ({ x: keys(Q / 2).reshape([128, 65536]) }), ({ x }) => gpuarray.quantile(x, [0.1, 0.5, 0.9], { axis: 1 }),
    { rows: 128, q: [0.1, 0.5, 0.9] }),
  row('nonzero', 'nonzero of 2^24 f32, half zeros (reads the count back)', Q, () => {
    const k = keys(Q);
    const x = gpuarray.where(k.gt(0.5), k, 0);
    k.dispose();
    return { x };
  }, ({ x }) => gpuarray.nonzero(x)[0]),
  // Histograms (docs/gpuarray.md): bincount reads x's min and max back (as torch.bincount reads its max);
  // histogram with a given range reads nothing back (as torch.histc).
  row('bincount', 'bincount i32 in [0, 1000), 2^26 (reads min/max back)', U, () => {
    random.seed(80);
    const u = random.rand([U], 'float64').mul(1000);
    const x = u.astype('int32');
    u.dispose();
    return { x };
  }, ({ x }) => gpuarray.bincount(x), { range: 1000 }),
  row('histogram', 'histogram f32, 100 bins in [0, 1), 2^26', U, () => ({ x: keys(U) }), ({ x }) => {
    const r = gpuarray.histogram(x, { bins: 100, range: [0, 1] });
    r.binEdges.dispose();
    return r.hist;
  }, { bins: 100 }),
];
