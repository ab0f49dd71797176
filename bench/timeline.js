#!/usr/bin/env node
'use strict';
// Timeline of one call, host and GPU side by side (docs/sorting.md, "Where the wide unique's time
// goes"): every kernel launch gets CUDA events before and after it, every blocking device-to-host
// copy host timestamps, all relative to the call's start (an event recorded then). Gaps between
// one kernel's end and the next one's start are the GPU waiting for the host.
//   node bench/timeline.js [unique|unique-sorted|sort|argsort|nonzero] [--reps=3]
// unique: 2^26 int32 in [0, 2^30) (the bench's wide row); unique-sorted: the same with
// NODECUDA_UNIQUE_COUNTING=0; sort/argsort: 2^28 float32; nonzero: 2^24 float32, about half zero
// (the bench's row). The events add a few µs to each launch.
const cuda = require('..');
const { native } = require('../dist/cuda/native');
const { bracketLaunches } = require('./timing');
const { gpuarray, random } = cuda;

const args = process.argv.slice(2);
const what = args.find((a) => !a.startsWith('--')) ?? 'unique';
const reps = Number((args.find((a) => a.startsWith('--reps=')) ?? '--reps=3').slice(7));
const sync = () => cuda.driver.Context.synchronize();
random.seed(80);
let op;
if (what === 'unique' || what === 'unique-sorted') {
  if (what === 'unique-sorted') process.env.NODECUDA_UNIQUE_COUNTING = '0';
  const wide = random.rand([2 ** 26], 'float64').mul(2 ** 30).astype('int32');
  op = () => gpuarray.unique(wide);
} else if (what === 'sort' || what === 'argsort') {
  const x = random.rand([2 ** 28], 'float32');
  op = () => gpuarray[what](x);
} else if (what === 'nonzero') {
  const k = random.rand([2 ** 24], 'float32');
  const x = gpuarray.where(k.gt(0.5), k, 0);
  op = () => gpuarray.nonzero(x)[0];
} else {
  throw new Error(`unknown operation ${what}: unique, unique-sorted, sort, argsort or nonzero`);
}
for (let i = 0; i < 3; i++) op().dispose();
sync();

const dtoh = native.memcpyDtoh;
let log = [];
let t0 = 0n;
const now = () => Number(process.hrtime.bigint() - t0) / 1e3;
const restore = bracketLaunches(native, (cfg, a, b, host) => log.push({ what: `launch grid ${cfg[0]}`, h: Number(host - t0) / 1e3, a, b }));
native.memcpyDtoh = (...a) => {
  const h = now();
  dtoh(...a);
  log.push({ what: `read back ${a[2]} B`, h, h2: now() });
};
try {
  for (let rep = 0; rep < reps; rep++) {
    log = [];
    sync();
    const e0 = native.eventCreate(0);
    t0 = process.hrtime.bigint();
    native.eventRecord(e0, null);
    const r = op();
    sync();
    const end = now();
    let busy = 0;
    const lines = log.map((l) => {
      if (!l.a) return `${l.what.padEnd(22)} host ${l.h.toFixed(1).padStart(8)} – ${l.h2.toFixed(1)}`;
      const [g0, g1] = [native.eventElapsed(e0, l.a) * 1e3, native.eventElapsed(e0, l.b) * 1e3];
      busy += g1 - g0;
      return `${l.what.padEnd(22)} host ${l.h.toFixed(1).padStart(8)}   gpu ${g0.toFixed(1).padStart(8)} – ${g1.toFixed(1).padStart(8)}`;
    });
    console.log(`--- ${what}, call ${rep + 1}: ${end.toFixed(1)} µs on the host, kernels ${busy.toFixed(1)} µs (µs from the call's start)`);
    console.log(lines.join('\n'));
    r.dispose();
  }
} finally {
  restore();
  native.memcpyDtoh = dtoh;
}
