#!/usr/bin/env node
'use strict';
// Where the first use of an operation goes, in one process: a V8 CPU profile (10 µs sampling)
// around each of the first a.add(a), a.mul(2), sum(a) and a second a.add(a) after the context
// exists, each ended by a context synchronize. Prints each call's time and its heaviest functions
// (self time, and inclusive time of library functions); OUT=DIR also writes DIR/fu-<label>.cpuprofile
// (Chrome DevTools opens them). Run it with the cache state to study, e.g.
//   NODECUDA_CACHE_DIR=$(mktemp -d) NODECUDA_PREBUILT=1 node bench/cold/profile.js
// (see bench/coldstart.js for the states). Native addon calls show up under one name in V8's
// profiles: read "native" rows as time spent in the addon as a whole.
const inspector = require('node:inspector');
const fs = require('node:fs');
const path = require('node:path');

const cuda = require(process.env.NODECUDA_DIST || '../../dist');
const { gpuarray } = cuda;
const sync = () => cuda.driver.Context.synchronize();
const a = gpuarray.zeros([1 << 20], 'float32');
sync();

const session = new inspector.Session();
session.connect();
const post = (method, params = {}) => new Promise((resolve, reject) =>
  session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));

/** Self and inclusive microseconds per function of a profile. */
function summarize(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const name = (n) => {
    const url = n.callFrame.url.replace(/^.*\/(dist|node_modules)\//, '$1/');
    return `${n.callFrame.functionName || '(anonymous)'} ${url ? `${url}:${n.callFrame.lineNumber + 1}` : '(native)'}`;
  };
  const self = new Map();
  const incl = new Map();
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i + 1] ?? 0;
    const leaf = name(byId.get(id));
    self.set(leaf, (self.get(leaf) || 0) + us);
    const seen = new Set();
    for (let c = id; c !== undefined; c = parent.get(c)) {
      const k = name(byId.get(c));
      if (!seen.has(k)) incl.set(k, (incl.get(k) || 0) + us);
      seen.add(k);
    }
  });
  const top = (m, filter, k) => [...m].filter(([key]) => filter(key)).sort((x, y) => y[1] - x[1]).slice(0, k);
  return { self: top(self, () => true, 12), incl: top(incl, (key) => key.includes('dist/'), 12) };
}

(async () => {
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 10 });
  for (const [label, fn] of [['add', () => a.add(a)], ['mul', () => a.mul(2)], ['sum', () => gpuarray.sum(a)], ['add-again', () => a.add(a)]]) {
    await post('Profiler.start');
    const t = process.hrtime.bigint();
    fn();
    sync();
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    const { profile } = await post('Profiler.stop');
    if (process.env.OUT) fs.writeFileSync(path.join(process.env.OUT, `fu-${label}.cpuprofile`), JSON.stringify(profile));
    const { self, incl } = summarize(profile);
    console.log(`${label}: ${ms.toFixed(2)} ms (profiled; sampling adds to it)`);
    console.log('  self:      ' + self.map(([k, us]) => `${(us / 1000).toFixed(3)} ${k}`).join('\n             '));
    console.log('  inclusive: ' + incl.map(([k, us]) => `${(us / 1000).toFixed(3)} ${k}`).join('\n             '));
  }
  session.disconnect();
})();
