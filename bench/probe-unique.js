#!/usr/bin/env node
'use strict';
// gpuarray.unique (engine/templates/unique.ts): wall time of 2^26 int32 in [0, 1000) (--range) with and
// without returnInverse/returnCounts (median of 15, each call followed by a context synchronize),
// counted (the default for a range that small) and sorted (NODECUDA_UNIQUE_COUNTING=0, the
// chunked count/result kernels after the radix sort), then results checked against a CPU
// reference at n = 1e6 (int32 in small ranges and one value, uint8 of 3 values: counted, each way
// of counting; int32 in a wide range and 1025 elements: sorted; float32 with NaNs;
// returnIndex/returnInverse/returnCounts).
//   node bench/probe-unique.js [--n=67108864] [--range=1000] [--reps=15]
// (--range up to n / 4 is counted: a wider one times the sort twice.)
const cuda = require('..');
const { median, timeCalls } = require('./timing');
const { gpuarray, random, driver } = cuda;

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const N = Number(args.n ?? 2 ** 26);
const RANGE = Number(args.range ?? 1000);
const REPS = Number(args.reps ?? 15);
const sync = () => driver.Context.synchronize();

function dispose(r) {
  for (const x of r.values ? Object.values(r) : [r]) x?.dispose();
}

function time(label, fn) {
  const ts = timeCalls(fn, { reps: REPS, sync, dispose });
  console.log(`${label.padEnd(28)} median ${median(ts).toFixed(3)} ms  (min ${ts[0].toFixed(3)}, max ${ts[ts.length - 1].toFixed(3)})`);
}

random.seed(80);
const u = random.rand([N], 'float64').mul(RANGE).astype('int32');
for (const counting of ['1', '0']) {
  process.env.NODECUDA_UNIQUE_COUNTING = counting; // read on every call
  console.log(counting === '1' ? 'counted (default):' : 'sorted (NODECUDA_UNIQUE_COUNTING=0):');
  time('unique', () => gpuarray.unique(u));
  time('unique counts', () => gpuarray.unique(u, { returnCounts: true }));
  time('unique inverse+counts', () => gpuarray.unique(u, { returnInverse: true, returnCounts: true }));
  time('unique index+inverse+counts', () => gpuarray.unique(u, { returnIndex: true, returnInverse: true, returnCounts: true }));
}
delete process.env.NODECUDA_UNIQUE_COUNTING;
u.dispose();

// CPU reference: NumPy's unique (NaNs one value, last; first index = first occurrence).
function reference(h) {
  const key = (x) => (Number.isNaN(x) ? Infinity : x); // every NaN sorts last, after +Infinity
  const same = (x, y) => x === y || (Number.isNaN(x) && Number.isNaN(y));
  const order = Array.from(h.keys()).sort((i, j) => key(h[i]) - key(h[j]) || (Number.isNaN(h[i]) - Number.isNaN(h[j])) || i - j);
  const values = [], index = [], counts = [], inverse = new Array(h.length);
  for (const i of order) {
    if (!values.length || !same(values[values.length - 1], h[i])) { values.push(h[i]); index.push(i); counts.push(0); }
    counts[counts.length - 1]++;
    inverse[i] = values.length - 1;
  }
  return { values, index, inverse, counts };
}

let bad = 0;
function check(label, host, dtype) {
  const a = gpuarray.toGpu(host);
  const r = gpuarray.unique(a, { returnIndex: true, returnInverse: true, returnCounts: true });
  const plain = gpuarray.unique(a);
  const ref = reference(host);
  const eqv = (x, y) => x === y || (Number.isNaN(x) && Number.isNaN(y));
  const errs = [];
  const cmp = (what, got, want, eq = (x, y) => x === y) => {
    if (got.length !== want.length) return errs.push(`${what}: length ${got.length}, want ${want.length}`);
    for (let i = 0; i < want.length; i++) if (!eq(got[i], want[i])) return errs.push(`${what}[${i}] = ${got[i]}, want ${want[i]}`);
  };
  cmp('values', Array.from(r.values.get()), ref.values, eqv);
  cmp('plain values', Array.from(plain.get()), ref.values, eqv);
  cmp('indices', Array.from(r.indices.get(), Number), ref.index);
  cmp('inverse', Array.from(r.inverse.get(), Number), ref.inverse);
  cmp('counts', Array.from(r.counts.get(), Number), ref.counts);
  bad += errs.length;
  console.log(`check ${label} (${dtype}, k = ${ref.values.length}): ${errs.length ? errs.join('; ') : 'ok'}`);
  dispose(r); plain.dispose(); a.dispose();
}

const M = 1e6;
const rnd = (range) => Math.floor(Math.random() * range);
check('[0, 1000)', Int32Array.from({ length: M }, () => rnd(1000)), 'int32');
check('[0, 1e6) (heads everywhere)', Int32Array.from({ length: M }, () => rnd(M)), 'int32');
check('one value', new Int32Array(M).fill(7), 'int32');
check('[0, 6000) (bins in shared memory, global with first indices)', Int32Array.from({ length: M }, () => rnd(6000)), 'int32');
check('[-1e5, 1e5) (global bins)', Int32Array.from({ length: M }, () => rnd(2e5) - 1e5), 'int32');
check('{0, 1, 2} (warp ballots)', Uint8Array.from({ length: M }, () => rnd(3)), 'uint8');
check('n = 1025', Int32Array.from({ length: 1025 }, () => rnd(10)), 'int32');
check('NaNs', Float32Array.from({ length: M }, () => (Math.random() < 0.01 ? NaN : rnd(100) - 50)), 'float32');
console.log(bad ? `FAILED (${bad})` : 'all checks ok');
process.exitCode = bad ? 1 : 0;
