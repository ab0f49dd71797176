#!/usr/bin/env node
'use strict';
// gpuarray.unique of 4-byte integers, values alone, with its bitmaps (the default) and without
// (NODECUDA_UNIQUE_BITMAP=0: all four radix passes, then the run count and results), wall time
// (median of --reps, each call followed by a context synchronize), on inputs that favour and
// disfavour the buckets (docs/sorting.md, "unique's values by bitmaps"):
//   wide: int32 uniform in [0, 2^30) (the bench's row); full: uniform over all of int32;
//   skew: all but two elements in one bucket (65536 values), the range wide;
//   half: half the elements one value, the rest over all of int32.
//   node bench/unique-bitmap.js [--n=67108864] [--reps=15]
const cuda = require('..');
const { median, timeCalls } = require('./timing');
const { gpuarray, driver } = cuda;

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const N = Number(args.n ?? 2 ** 26);
const REPS = Number(args.reps ?? 15);
const sync = () => driver.Context.synchronize();

let seed = 12345;
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const inputs = {
  wide: () => Math.floor(rand() * 2 ** 30),
  full: () => Math.floor(rand() * 2 ** 32) - 2 ** 31,
  skew: () => Math.floor(rand() * 65536),
  half: () => (rand() < 0.5 ? 7 : Math.floor(rand() * 2 ** 32) - 2 ** 31),
};
for (const [name, gen] of Object.entries(inputs)) {
  const h = new Int32Array(N);
  for (let i = 0; i < N; i++) h[i] = gen();
  if (name === 'skew') [h[0], h[1]] = [-(2 ** 31), 2 ** 31 - 1];
  const a = gpuarray.toGpu(h);
  const row = [];
  let k0;
  for (const bitmap of ['1', '0']) {
    process.env.NODECUDA_UNIQUE_BITMAP = bitmap;
    const ts = timeCalls(() => gpuarray.unique(a), { reps: REPS, sync, dispose: (r) => r.dispose() });
    const r = gpuarray.unique(a);
    const k = r.size;
    const got = r.get();
    r.dispose();
    if (k0 === undefined) k0 = got;
    else if (k0.length !== got.length || k0.some((v, i) => v !== got[i])) throw new Error(`${name}: the two paths differ`);
    row.push(`${bitmap === '1' ? 'bitmaps' : 'full sort'} ${median(ts).toFixed(3)} ms (min ${ts[0].toFixed(3)}), ${k} values`);
  }
  console.log(`${name.padEnd(5)} n=${N}: ${row.join('; ')}`);
  a.dispose();
}
