#!/usr/bin/env node
'use strict';
// Host time of single calls, native call by native call (issue 18: why a single call's GPU time,
// the bench's events column, exceeds a batch's per-call time). Every function of the addon is
// wrapped to record [start, end] µs from the call's start; each case runs after a context
// synchronize (the device idle, as the events column times it) and back to back, printing the
// median call's trace. "interpreted": the first calls of a process (V8 runs our JavaScript in its
// interpreter); "optimized": after 5000 calls (V8's optimizing compiler has run).
//   node bench/hostline.js [--reps=15]
const cuda = require('..');
const { native } = require('../dist/cuda/native');
const { gpuarray, random, driver } = cuda;

const REPS = Number((process.argv.find((a) => a.startsWith('--reps=')) ?? '--reps=15').slice(7));
const trace = require('./native-trace')(native);
const sync = () => driver.Context.synchronize();

function probe(label, call, warm) {
  for (let i = 0; i < warm; i++) call();
  sync();
  const runs = [];
  for (let i = 0; i < REPS; i++) {
    sync();
    trace.start();
    const t0 = process.hrtime.bigint();
    call();
    const total = Number(process.hrtime.bigint() - t0) / 1e3;
    runs.push({ total, rec: trace.stop(), t0 });
  }
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < REPS; i++) call();
  const back = Number(process.hrtime.bigint() - t0) / 1e3 / REPS;
  sync();
  runs.sort((a, b) => a.total - b.total);
  const m = runs[runs.length >> 1];
  const us = (t) => (Number(t - m.t0) / 1e3).toFixed(1);
  console.log(`${label}: after a sync ${m.total.toFixed(1)} µs (median; min ${runs[0].total.toFixed(1)}), back to back ${back.toFixed(1)} µs a call`);
  console.log(`   ${m.rec.map(([k, a, b]) => `${k} ${us(a)}–${us(b)}`).join(', ')}`);
}

if (!cuda.isAvailable()) {
  console.log('hostline: no GPU');
  process.exit(0);
}
random.seed(80);
const small = gpuarray.arange(0, 1024, 1, 'float32');
const x = random.rand([2 ** 28], 'float32');
const wide = random.rand([2 ** 26], 'float64').mul(2 ** 30).astype('int32');
probe('unique of 2^26 int32 in [0, 2^30), interpreted', () => gpuarray.unique(wide).dispose(), 3);
probe('sum of 1024 float32, interpreted', () => gpuarray.sum(small).dispose(), 5);
probe('sum of 1024 float32, optimized', () => gpuarray.sum(small).dispose(), 5000);
probe('sum of 2^28 float32, optimized', () => gpuarray.sum(x).dispose(), 50);
probe('unique of 2^26 int32 in [0, 2^30), after 30 calls', () => gpuarray.unique(wide).dispose(), 20);
