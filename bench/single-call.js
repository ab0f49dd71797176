#!/usr/bin/env node
'use strict';
// What one call costs on the GPU timeline (issue 18: sum 0.74× torch by events around single
// calls, 0.97× by batches). For each op, median of REPS:
//   idle1   events around one call, the device idle before it (the independent harness's method)
//   busy1   events around REPS calls back to back, per call (launch gaps hidden by the queue)
//   host    CPU time of one call (no sync): when idle1 - busy1 ≈ host, the gap is host work
//           before the kernel reaches the GPU, not GPU work
//   kernels GPU launches one call makes (launch queue counter: queued + direct) when known
// Variants isolate the suspects: a preallocated `out` (no result allocation), a user stream.
// --warm=N calls before the timed ones (default 3: V8 still interprets our JavaScript; a few
// thousand let it optimize the call's path, as in a long-running program).
//   node bench/single-call.js [--n=268435456] [--reps=20] [--warm=3]
const cuda = require('..');
const { gpuarray, ElementwiseKernel, driver } = cuda;

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const N = Number(args.n ?? 2 ** 28);
const REPS = Number(args.reps ?? 20);
const WARM = Number(args.warm ?? 3);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function measure(label, call, stream = null, bytes = N * 4) {
  const s = new driver.Event();
  const e = new driver.Event();
  const sync = () => driver.Context.synchronize();
  for (let i = 0; i < WARM; i++) call();
  sync();
  const idle = [];
  const host = [];
  for (let i = 0; i < REPS; i++) {
    sync();
    s.record(stream);
    const t0 = process.hrtime.bigint();
    call();
    host.push(Number(process.hrtime.bigint() - t0) / 1e3);
    e.record(stream);
    e.synchronize();
    idle.push(e.timeSince(s));
  }
  sync();
  s.record(stream);
  for (let i = 0; i < REPS; i++) call();
  e.record(stream);
  e.synchronize();
  const busy = e.timeSince(s) / REPS;
  const i1 = median(idle);
  console.log(`${label.padEnd(44)} idle1 ${(i1 * 1e3).toFixed(1).padStart(8)} µs (${(bytes / i1 / 1e6).toFixed(0).padStart(5)} GB/s)` +
    `  busy1 ${(busy * 1e3).toFixed(1).padStart(8)} µs (${(bytes / busy / 1e6).toFixed(0).padStart(5)} GB/s)` +
    `  host ${median(host).toFixed(1).padStart(6)} µs`);
  s.dispose();
  e.dispose();
}

if (!cuda.isAvailable()) {
  console.log('single-call: no GPU');
  process.exit(0);
}
const dev = new driver.Device(0);
console.log(`${dev.name()} (sm_${dev.computeCapability().join('')}, ${dev.getAttribute('multiprocessorCount')} SMs), n = ${N}, median of ${REPS} after ${WARM} calls`);
const x = gpuarray.arange(0, N, 1, 'float32').mul(1 / N);
const y = gpuarray.onesLike(x);
const z = gpuarray.emptyLike(x);
const out0 = gpuarray.empty([], 'float32');
const stream = new driver.Stream();
measure('sum(x)', () => gpuarray.sum(x).dispose());
measure('sum(x, { out })  (no result allocation)', () => gpuarray.sum(x, { out: out0 }));
measure('sum(x, { stream })', () => gpuarray.sum(x, { stream }).dispose(), stream);
measure('max(x)', () => gpuarray.max(x).dispose());
measure('dot(x, y)', () => gpuarray.dot(x, y).dispose(), null, N * 8);
measure('add(x, y, { out: z })', () => x.add(y, { out: z }), null, N * 12);
const axpy = new ElementwiseKernel('float a, float *x, float *y, float *z', 'z[i] = a*x[i]+y[i]');
measure('ElementwiseKernel axpy(2, x, y, z)', () => axpy(2, x, y, z), null, N * 12);
measure('x.set(y)  (copy)', () => z.set(y), null, N * 8);
