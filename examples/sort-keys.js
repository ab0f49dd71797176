'use strict';
// Sorting on the GPU: a million float32 keys (with NaNs and duplicates) sorted and argsorted,
// checked against JavaScript's sort; a leaderboard (scores and player ids sorted together through
// argsort and take); unique values with counts; searchsorted to bin values into ranges; topk and
// partition (the largest keys and the middle one, by radix selection).
// Run with `node examples/sort-keys.js`.
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

// --- a million keys: sort and argsort ------------------------------------------------------
const n = 1 << 20;
random.seed(7);
const keys = cumath.floor(random.randn([n], 'float32').mul(100)); // many duplicates
const host = keys.get();
host[3] = NaN; // NaNs sort last, as in NumPy
host[n - 5] = NaN;
keys.set(host);

let t0 = process.hrtime.bigint();
const sorted = gpuarray.sort(keys);
const order = gpuarray.argsort(keys); // int64 indices; stable: equal keys keep their order
cuda.driver.Context.synchronize();
const ms = Number(process.hrtime.bigint() - t0) / 1e6;

const want = Float32Array.from(host).sort(); // TypedArray sort: numeric, NaNs last
const got = sorted.get();
for (let i = 0; i < n; i++) {
  if (!(got[i] === want[i] || (Number.isNaN(got[i]) && Number.isNaN(want[i])))) fail(`sorted[${i}] = ${got[i]}, expected ${want[i]}`);
}
console.log(`sorted ${n} float32 keys (2 NaNs, ${new Set(host).size} distinct) in ${ms.toFixed(2)} ms (first call compiles)`);
const idx = order.get();
for (let i = 1; i < n; i++) {
  const a = host[Number(idx[i - 1])], b = host[Number(idx[i])];
  const nanA = Number.isNaN(a), nanB = Number.isNaN(b);
  if ((nanA && !nanB) || (!nanA && !nanB && a > b)) fail(`argsort out of order at ${i}`);
  if ((a === b || (nanA && nanB)) && idx[i - 1] >= idx[i]) fail(`argsort not stable at ${i}`);
}
console.log('sort equals the CPU sort, argsort is ordered and stable: OK');

// --- a leaderboard: scores sorted with their player ids ------------------------------------
const scores = gpuarray.toGpu(Float32Array.from([72, 95, 88, 95, 60, 88, 100, 72]));
const players = ['ana', 'ben', 'cai', 'dev', 'eve', 'fay', 'gus', 'hal'];
const rank = gpuarray.argsort(scores.neg()); // descending by score, ties in original order
const board = [...rank.get()].map((i) => `${players[Number(i)]} ${scores.get()[Number(i)]}`);
console.log(`leaderboard: ${board.join(', ')}`);
if (board.join(',') !== 'gus 100,ben 95,dev 95,cai 88,fay 88,ana 72,hal 72,eve 60') fail('leaderboard order');
console.log('leaderboard (ties keep their order): OK');

// --- unique with counts ----------------------------------------------------------------------
const dice = random.rand([100000]).mul(6).astype('int32').add(1); // faces 1..6
const { values, counts } = gpuarray.unique(dice, { returnCounts: true });
const v = [...values.get()], c = [...counts.get()].map(Number);
const cpu = new Map();
for (const d of dice.get()) cpu.set(d, (cpu.get(d) ?? 0) + 1);
console.log(`unique faces ${v.join(' ')}, counts ${c.join(' ')}`);
if (v.join() !== '1,2,3,4,5,6') fail(`unique values ${v}`);
if (c.some((k, i) => k !== cpu.get(v[i]))) fail('unique counts differ from the CPU counts');
console.log('unique values and counts equal the CPU: OK');

// --- searchsorted: bin values into ranges ----------------------------------------------------
const edges = gpuarray.toGpu(Float64Array.from([0, 10, 20, 50, 100]));
const xs = Float64Array.from([-1, 0, 5, 10, 19.5, 20, 75, 100, 250]);
const bins = gpuarray.searchsorted(edges, gpuarray.toGpu(xs), { side: 'right' }).get();
const cpuBins = [...xs].map((x) => [...edges.get()].filter((e) => e <= x).length);
console.log(`bins (side 'right'): ${[...bins].join(' ')}`);
if ([...bins].map(Number).join() !== cpuBins.join()) fail(`searchsorted ${[...bins]} vs ${cpuBins}`);
console.log('searchsorted equals the CPU: OK');

// --- topk and a median: the best scores of a million, the middle value --------------------------
// topk selects by radix digits (no full sort): the 5 largest with their positions, largest first.
const best = gpuarray.topk(keys, 5);
const bestWant = Float32Array.from(host).filter((x) => !Number.isNaN(x)).sort().reverse().slice(0, 3);
const bestGot = best.values.get();
console.log(`top 5 keys: ${[...bestGot].join(' ')} at ${[...best.indices.get()].join(' ')}`);
// NaN counts as larger than every number (as in torch.topk): the two NaNs come first.
if (!Number.isNaN(bestGot[0]) || !Number.isNaN(bestGot[1]) || [...bestGot.slice(2)].join() !== [...bestWant].join()) fail('topk');
if ([...best.indices.get()].some((i, j) => !Object.is(host[Number(i)], bestGot[j]))) fail('topk indices');
// partition around the middle: the element at n/2 is where a sort puts it (the median of an even
// count is the mean of the two middle ones; this takes the upper one).
const mid = gpuarray.partition(keys, n / 2).get()[n / 2];
if (mid !== want[n / 2]) fail(`partition's middle ${mid}, expected ${want[n / 2]}`);
console.log(`upper median by partition: ${mid}`);
console.log('topk and partition equal the CPU: OK');

console.log('All checks passed.');
