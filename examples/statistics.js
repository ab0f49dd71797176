'use strict';
// Statistics on the GPU: a million response times (log-normal, some missing as NaN) summarized by
// nanmedian and nanpercentile; the outliers past the 99th percentile picked out with extract
// (NumPy's x[x > p99]) and flatnonzero; per-sensor counts with countNonzero and argwhere on a
// matrix. Every result is checked against a computation in JavaScript.
// Run with `node examples/statistics.js`.
const cuda = require('nodecuda');
const { gpuarray, random, cumath } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

function fail(message) {
  console.error(`MISMATCH: ${message}`);
  process.exit(1);
}

// --- a million response times in ms, 1 % missing ------------------------------------------
const n = 1 << 20;
random.seed(11);
const times = cumath.exp(random.randn([n], 'float64').mul(0.5).add(3)); // median about e^3 = 20 ms
const host = times.get();
for (let i = 0; i < n; i += 100) host[i] = NaN;
times.set(host);

const median = gpuarray.nanmedian(times).item();
const pct = Array.from(gpuarray.nanpercentile(times, [50, 90, 99]).get());

// CPU: NumPy's 'linear' method on the sorted values that are not NaN.
const valid = host.filter((v) => !Number.isNaN(v)).sort();
const at = (q) => {
  const v = (valid.length - 1) * q;
  const lo = Math.floor(v);
  const g = v - lo;
  if (g === 0) return valid[lo];
  const d = valid[lo + 1] - valid[lo];
  return g >= 0.5 ? valid[lo + 1] - d * (1 - g) : valid[lo] + d * g;
};
const m = valid.length;
const wantMedian = m % 2 ? valid[(m - 1) / 2] : (valid[m / 2 - 1] + valid[m / 2]) / 2;
if (median !== wantMedian) fail(`nanmedian ${median}, expected ${wantMedian}`);
[0.5, 0.9, 0.99].forEach((q, i) => { if (pct[i] !== at(q)) fail(`nanpercentile ${q * 100}: ${pct[i]}, expected ${at(q)}`); });
console.log(`${m} response times: median ${median.toFixed(2)} ms, p90 ${pct[1].toFixed(2)} ms, p99 ${pct[2].toFixed(2)} ms`);
console.log('nanmedian and nanpercentile equal the CPU: OK');

// --- the outliers: x[x > p99] ----------------------------------------------------------------
const slow = times.gt(pct[2]); // NaN > p99 is false: the missing ones stay out
const outliers = gpuarray.extract(slow, times).get();
const where = Array.from(gpuarray.flatnonzero(slow).get(), Number);
const wantWhere = [];
host.forEach((v, i) => { if (v > pct[2]) wantWhere.push(i); });
if (where.length !== wantWhere.length || where.some((w, i) => w !== wantWhere[i])) fail('flatnonzero of the outliers');
if (outliers.some((v, i) => v !== host[wantWhere[i]])) fail('extract of the outliers');
console.log(`${outliers.length} outliers past p99, the slowest ${Math.max(...outliers).toFixed(1)} ms`);
console.log('outliers (extract, flatnonzero) equal the CPU: OK');

// --- 8 sensors × 1000 readings: how many fired, and where ------------------------------------
const readings = random.rand([1000, 8], 'float32');
const fired = readings.gt(0.995);
const perSensor = Array.from(gpuarray.countNonzero(fired, { axis: 0 }).get(), Number);
const hits = Array.from(gpuarray.argwhere(fired).get(), Number); // [row, sensor] pairs, row by row
const r = readings.get();
const th = Math.fround(0.995); // a float32 array compares with the scalar as float32 (NumPy 2)
const wantCount = new Array(8).fill(0);
const wantHits = [];
r.forEach((v, i) => { if (v > th) { wantCount[i % 8]++; wantHits.push(Math.floor(i / 8), i % 8); } });
if (perSensor.some((c, j) => c !== wantCount[j])) fail(`countNonzero ${perSensor}, expected ${wantCount}`);
if (hits.length !== wantHits.length || hits.some((h, i) => h !== wantHits[i])) fail('argwhere of the readings');
console.log(`sensor hits: ${perSensor.join(' ')}`);
console.log('argwhere and countNonzero equal the CPU: OK');
console.log('All checks passed.');
