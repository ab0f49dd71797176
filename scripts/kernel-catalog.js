#!/usr/bin/env node
'use strict';
// Lists the built-in kernels to ship precompiled: runs the built-in operations at the common
// dtypes and layouts with NODECUDA_RECORD_KERNELS set, so every kernel the engines generate is
// recorded exactly as they generate it (source and NVRTC options: the prebuilt key). Needs a
// driver: a GPU, or the CPU driver double (scripts/build-kernels.js runs this against
// build-fake/Release/libfakecuda.so; NVRTC is real there, launches are not).
//   node scripts/kernel-catalog.js OUT.jsonl
const fs = require('node:fs');
const path = require('node:path');

const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/kernel-catalog.js OUT.jsonl');
  process.exit(2);
}
fs.writeFileSync(out, '');
process.env.NODECUDA_RECORD_KERNELS = path.resolve(out);
process.env.NODECUDA_PREBUILT = '0';
const cuda = require(process.env.NODECUDA_DIST || path.join(__dirname, '..', 'dist'));
const { gpuarray: ga, cumath, random } = cuda;
const {
  uniqueBinsCount, uniqueBinsResults, uniqueChunks, uniqueCounts, uniqueHistogram, uniqueInverse, uniqueMinMax, uniqueResults,
} = require(path.join(process.env.NODECUDA_DIST || path.join(__dirname, '..', 'dist'), 'engine', 'sort'));
const { histRange, runHistogram } = require(path.join(process.env.NODECUDA_DIST || path.join(__dirname, '..', 'dist'), 'engine', 'histogram'));

// The dtypes most programs use; others still compile on first use (NVRTC + the disk cache).
const DTYPES = ['float32', 'float64', 'int32', 'int64', 'float16', 'uint8', 'bool'];
const FLOATS = ['float32', 'float64', 'float16'];
const BINARY = ['add', 'sub', 'mul', 'div', 'pow', 'mod', 'floorDiv', 'eq', 'ne', 'lt', 'le', 'gt', 'ge',
  'and', 'or', 'xor', 'shl', 'shr', 'maximum', 'minimum', 'logicalAnd', 'logicalOr', 'logicalXor'];
const REVERSED = ['rsub', 'rdiv', 'rpow'];
const UNARY = ['neg', 'abs', 'not', 'logicalNot'];
const MATH1 = ['fabs', 'ceil', 'floor', 'trunc', 'round', 'sign', 'exp', 'exp2', 'expm1', 'log', 'log2', 'log10',
  'log1p', 'sqrt', 'cbrt', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'isnan',
  'isinf', 'isfinite', 'asinh', 'acosh', 'atanh', 'deg2rad', 'rad2deg', 'square', 'reciprocal', 'sinc', 'nanToNum'];
const MATH2 = ['fmod', 'atan2', 'hypot', 'copysign', 'fmax', 'fmin', 'logaddexp', 'logaddexp2', 'heaviside', 'nextafter'];
const REDUCE = ['sum', 'prod', 'min', 'max', 'mean', 'var', 'std', 'any', 'all', 'argmin', 'argmax'];

let tried = 0;
let failed = 0;
const attempt = (fn) => {
  tried++;
  try {
    fn();
  } catch {
    failed++; // an op the dtype does not support (e.g. shl on float32): nothing to ship
  }
};

const N = 4096;
for (const dt of DTYPES) {
  const a = ga.zeros([N], dt);
  const b = ga.zeros([N], dt);
  const m = ga.zeros([64, 64], dt);
  const wideRows = ga.zeros([64, 2048], dt);
  const odd = ga.zeros([64, 63], dt);
  const row = ga.zeros([64], dt);
  for (const op of BINARY) {
    attempt(() => a[op](b)); // two arrays
    attempt(() => a[op](2)); // array and scalar
    if (dt === 'float32') attempt(() => m[op](row)); // broadcast row
  }
  for (const op of REVERSED) attempt(() => a[op](1));
  for (const op of UNARY) attempt(() => a[op]());
  attempt(() => a.fill(1));
  attempt(() => a.copy());
  attempt(() => m.T.copy()); // transposed: tiled variant
  for (const len of [63, 62, 64]) {
    // Copies of other strided views (get() and toArray() of one): 2-D (reversed rows) and 1-D (a
    // column), rows odd, even or a multiple of 4 long.
    attempt(() => ga.zeros([4, len], dt).index(':', '::-1').copy());
    attempt(() => ga.zeros([len, 4], dt).index(':', 0).copy());
  }
  attempt(() => ga.where(a.gt(0), a, b));
  attempt(() => ga.arange(0, N, 1, dt));
  for (const to of DTYPES) if (to !== dt) attempt(() => a.astype(to));
  for (const op of REDUCE) {
    attempt(() => ga[op](a));
    attempt(() => ga[op](m, { axis: 0 })); // columns in vectors (aligned, a multiple of 16 bytes)
    attempt(() => ga[op](odd, { axis: 0 })); // one column a thread
    attempt(() => ga[op](m, { axis: 1 }));
    attempt(() => ga[op](wideRows, { axis: 1 }));
  }
  attempt(() => ga.dot(a, b));
  attempt(() => ga.cumsum(a));
  attempt(() => ga.cumprod(a));
  attempt(() => ga.cumsum(m, { axis: 1 }));
  if (dt === 'float32' || dt === 'float64') {
    // The NaN-skipping forms at the float dtypes a NaN is in: whole array and either axis.
    for (const op of ['nansum', 'nanmean', 'nanmax', 'nanmin', 'nanstd']) {
      attempt(() => ga[op](a));
      attempt(() => ga[op](m, { axis: 0 }));
      attempt(() => ga[op](m, { axis: 1 }));
    }
    attempt(() => ga.nancumsum(a));
    for (const op of ['nanargmin', 'nanargmax']) attempt(() => ga[op](a));
    attempt(() => ga.isclose(a, b));
  }
  attempt(() => ga.clip(a, 0, 1));
  attempt(() => ga.clip(a, a, b));
}
// Broadcast layouts beyond a row of a 64-wide matrix: a row or a column against a matrix whose
// rows are odd, even or a multiple of 4 long (the engine's variants: 1, 2 or 4 items a thread), a
// scalar where(), and fill() of a row or a column view — what a first script does with small
// matrices (examples/gpuarray.js compiled 4 such kernels with NVRTC on a fresh machine).
const BROADCAST = ['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'eq', 'ne', 'lt', 'le', 'gt', 'ge'];
for (const dt of ['float32', 'float64', 'int32']) {
  const ops = dt === 'float32' ? BROADCAST : BROADCAST.slice(0, 4);
  for (const cols of [63, 62, 64]) {
    const m = ga.zeros([8, cols], dt);
    const row = ga.zeros([cols], dt);
    const col = ga.zeros([8, 1], dt);
    for (const op of ops) {
      if (cols !== 64 || dt !== 'float32') attempt(() => m[op](row));
      attempt(() => m[op](col));
    }
    attempt(() => m.index(0).fill(0));
    attempt(() => m.index(':', 0).fill(0));
    attempt(() => ga.where(m.gt(0), m, 0));
  }
}
for (const dt of FLOATS) {
  const a = ga.zeros([N], dt);
  for (const f of MATH1) attempt(() => cumath[f](a));
  for (const f of MATH2) attempt(() => cumath[f](a, a));
  attempt(() => ga.linspace(0, 1, N, { dtype: dt }));
}
for (const dt of ['int32', 'int64', 'uint8']) {
  const a = ga.zeros([N], dt);
  for (const f of ['fabs', 'sqrt', 'sin', 'exp', 'log']) attempt(() => cumath[f](a));
  if (dt !== 'uint8') for (const f of ['gcd', 'lcm']) attempt(() => cumath[f](a, a));
}
for (const dt of ['float32', 'int32', 'int64', 'float64']) {
  const a = ga.zeros([N], dt);
  const long = ga.zeros([8192], dt); // past the short-row sort (rows of at most 4096): the radix sort
  const m = ga.zeros([8192, 2], dt);
  attempt(() => ga.sort(long)); // keys only
  attempt(() => ga.argsort(long)); // with payload
  attempt(() => ga.topk(long, 5)); // topk's selection (engine/select.ts), its slots sorted by the short-row sort
  attempt(() => ga.median(long)); // the ranks' selection and its pick, the quantile kernel
  attempt(() => ga.nonzero(m)); // compaction: count, scan (stops at the count read back on the double)
  attempt(() => ga.quantile(ga.zeros([64, 64], dt), [0.25, 0.75], { axis: 1 })); // sorted rows
  attempt(() => ga.sort(m, { axis: 0 })); // segmented: the row stage, the gather
  attempt(() => ga.sort(ga.zeros([64, 64], dt))); // the short-row sort (templates/sort_rows.ts)
  attempt(() => ga.searchsorted(a, a));
  attempt(() => ga.unique(a, { returnCounts: true })); // stops at the count read back (0 on the double)
  // 2^16 elements and more of a 4- or 8-byte integer: the sort's prep also finds the range (its own
  // kernel); stops at the read back (an invalid range on the double).
  if (dt.startsWith('int')) attempt(() => ga.unique(ga.zeros([2 ** 16], dt)));
  // unique's kernels after the read back, launched directly (the double runs no kernel).
  attempt(() => {
    const z = { sorted: 0n, blocks: 0n, perm: 0n, vals: 0n, first: 0n, starts: 0n, inv: 0n };
    uniqueResults(a.dtype, true, z, N, uniqueChunks(N), null, []);
    uniqueCounts(0n, 0n, N, N, null);
  });
}
{
  // Boolean masks: the indices, and extract of float32 values.
  const mask = ga.zeros([N], 'bool');
  attempt(() => ga.flatnonzero(mask));
  attempt(() => ga.extract(mask, ga.zeros([N], 'float32')));
}
for (const dt of ['int32', 'int64', 'uint8', 'bool']) {
  // unique's counting path (integers and bool of a small range), launched directly: past its range
  // read back (nothing on the double) the engine would not go on. The min/max reduction in the
  // variant a fresh contiguous array gets (vector loads); the histogram kernel serves every mode.
  attempt(() => {
    const a = ga.zeros([N], dt);
    const hist = ga.zeros([64], 'uint32');
    const ch = uniqueChunks(32);
    uniqueMinMax(a.dtype, a.address, a.align16, N, hist.address, null, []);
    uniqueHistogram(a.dtype, a.address, hist.address, true, N, 0n, 32, null, []);
    uniqueBinsCount(hist.address, 0n, 0n, 32, ch, null);
    const z = { hist: hist.address, blocks: 0n, vals: 0n, first: 0n, counts: 0n };
    uniqueBinsResults(a.dtype, z, true, 0n, 32, ch, true, null, []);
    uniqueInverse(a.dtype, a.address, hist.address, 0n, N, 0n, 32, null, []);
  });
}
// bincount and histogram (engine/histogram.ts), launched directly: past their min/max read back
// (garbage on the double) the functions would not go on. One kernel serves both ways of adding.
for (const dt of ['int32', 'int64']) {
  attempt(() => {
    const a = ga.zeros([N], dt);
    const out = ga.zeros([64], 'float64');
    const w = ga.zeros([N], 'float64');
    runHistogram({ x: a.dtype, input: a.address, n: N, bins: 64, out: out.address, uses: [] });
    runHistogram({ x: a.dtype, input: a.address, n: N, bins: 64, out: out.address, weights: { dt: w.dtype, address: w.address }, uses: [] });
  });
}
for (const dt of ['float32', 'float64']) {
  attempt(() => {
    const a = ga.zeros([N], dt);
    const out = ga.zeros([64], 'int64');
    histRange(a.dtype, a.address, a.align16, N, out.address, null, []);
    const edges = { dt: a.dtype, cmp: a.dtype, address: a.address, uniform: { lo: 0, hi: 1 } };
    runHistogram({ x: a.dtype, input: a.address, n: N, bins: 32, out: out.address, edges, uses: [] });
  });
}
{
  // bfloat16: a few common kernels (conversions with float32, arithmetic, sums); the rest compile on first use.
  const h = ga.zeros([N], 'bfloat16');
  const f = ga.zeros([N], 'float32');
  for (const op of ['add', 'sub', 'mul', 'div']) {
    attempt(() => h[op](h));
    attempt(() => h[op](2));
  }
  attempt(() => h.astype('float32'));
  attempt(() => f.astype('bfloat16'));
  attempt(() => h.fill(1));
  attempt(() => h.copy());
  for (const op of ['sum', 'mean', 'max']) attempt(() => ga[op](h));
}
for (const dt of ['float32', 'float64', 'int32']) {
  // pad's gather (one kernel per element size and dimension count, every mode), average's product
  // in the result dtype, logspace/geomspace's float64 powers.
  const v = ga.zeros([N], dt);
  const m = ga.zeros([64, 64], dt);
  attempt(() => ga.pad(v, 2)); // 1-D, constant
  attempt(() => ga.pad(m, 1, 'reflect')); // 2-D
  attempt(() => ga.pad(ga.zeros([8, 64, 64], dt), [[0, 0], [1, 1], [1, 1]], 'edge')); // a batch of images: 3-D
  attempt(() => ga.average(m, { axis: 1, weights: ga.ones([64], dt) }));
  attempt(() => ga.logspace(0, 1, N, { dtype: dt }));
  attempt(() => ga.geomspace(1, 2, N, { dtype: dt }));
}
for (const dt of ['float32', 'float64']) {
  attempt(() => random.rand([N], dt));
  attempt(() => random.randn([N], dt));
}
cuda.driver.Context.synchronize();
const lines = fs.readFileSync(out, 'utf8').split('\n').filter(Boolean).length;
console.log(`kernel-catalog: ${lines} kernels from ${tried} operations (${failed} not supported) → ${out}`);
