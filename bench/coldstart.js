#!/usr/bin/env node
'use strict';
// Cold start: fresh processes timing the first use of each built-in family (bench/cold/first-use.js)
// and the wall time of examples/gpuarray.js, under three kernel-cache states:
//   empty   an empty disk cache, shipped kernels off (NODECUDA_PREBUILT=0): every kernel is NVRTC
//   shipped an empty disk cache, shipped kernels on (dist/kernel-images, npm run build:kernels)
//   warm    the disk cache the empty run filled, shipped kernels off
//   later   shipped kernels on, a cache directory an earlier run used (a user's second run: the
//           V8 code cache of lib/cuda/code_cache.ts is there; empty and shipped have none)
// Each state runs REPS times (fresh cache each time for empty/shipped) and reports the median.
// Goal (issue 18): shipped first use ≤ 30 ms per family, fresh example ≤ 1.5× warm.
//   node bench/coldstart.js [--reps=N] [--json=FILE]; also run by bench/run.js (--no-cold skips).
// Without a GPU it runs against the CPU driver double when NODECUDA_LIBCUDA points at
// build-fake/Release/libfakecuda.so (NVRTC real, launches not): compile costs only.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const FIRST_USE = path.join(__dirname, 'cold', 'first-use.js');
const EXAMPLE = path.join(ROOT, 'examples', 'gpuarray.js');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function fresh() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-cold-'));
  fs.chmodSync(d, 0o700);
  return d;
}

function runNode(file, env, cwd = ROOT) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [file], { cwd, encoding: 'utf8', timeout: 600_000, env: { ...process.env, ...env } });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${path.basename(file)} exited ${r.status ?? r.signal}: ${(r.stderr || '').trim().split('\n').pop()}`);
  const line = r.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  return { wall, out: line && file === FIRST_USE ? JSON.parse(line) : null };
}

const STATES = {
  empty: { prebuilt: '0', reuse: false },
  shipped: { prebuilt: '1', reuse: false },
  warm: { prebuilt: '0', reuse: true },
  later: { prebuilt: '1', reuse: true },
};

/** Runs every state `reps` times; returns { labels, states: { name: { first: [ms per label], total, example } } }. */
function measureCold(reps = 3) {
  const warmDir = fresh();
  const laterDir = fresh();
  const result = { labels: null, states: {} };
  const dirs = [warmDir, laterDir];
  try {
    // Fill the reused caches once (not measured).
    runNode(FIRST_USE, { NODECUDA_CACHE_DIR: warmDir, NODECUDA_PREBUILT: '0' });
    runNode(FIRST_USE, { NODECUDA_CACHE_DIR: laterDir, NODECUDA_PREBUILT: '1' });
    // The example checks its own values: against the CPU driver double it stops early (no times).
    let exampleError = null;
    try {
      runNode(EXAMPLE, { NODECUDA_CACHE_DIR: warmDir, NODECUDA_PREBUILT: '0' }, path.dirname(EXAMPLE));
    } catch (e) {
      exampleError = e.message;
      result.exampleError = exampleError;
    }
    for (const [name, s] of Object.entries(STATES)) {
      const runs = [];
      const examples = [];
      for (let i = 0; i < reps; i++) {
        const reused = s.prebuilt === '1' ? laterDir : warmDir;
        const dir = s.reuse ? reused : fresh();
        if (!s.reuse) dirs.push(dir);
        const env = { NODECUDA_CACHE_DIR: dir, NODECUDA_PREBUILT: s.prebuilt };
        runs.push(runNode(FIRST_USE, env).out);
        if (exampleError) continue;
        const exDir = s.reuse ? reused : fresh();
        if (!s.reuse) dirs.push(exDir);
        examples.push(runNode(EXAMPLE, { ...env, NODECUDA_CACHE_DIR: exDir }, path.dirname(EXAMPLE)).wall);
      }
      result.labels ??= runs[0].rows.map((r) => r[0]);
      result.states[name] = {
        first: result.labels.map((_, j) => median(runs.map((r) => r.rows[j][1]))),
        total: median(runs.map((r) => r.total_ms)),
        nvrtcLoadedByBuiltins: runs.some((r) => r.nvrtcBeforeUser),
        example: examples.length ? median(examples) : NaN,
      };
    }
  } finally {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
  return result;
}

function printCold(r) {
  const names = Object.keys(r.states);
  const lines = [['first use (ms)', ...names.map((n) => `${n}`)]];
  r.labels.forEach((l, j) => lines.push([l, ...names.map((n) => r.states[n].first[j].toFixed(1))]));
  lines.push(['process total', ...names.map((n) => r.states[n].total.toFixed(0))]);
  lines.push(['examples/gpuarray.js wall', ...names.map((n) => r.states[n].example.toFixed(0))]);
  lines.push(['NVRTC opened by built-ins', ...names.map((n) => (r.states[n].nvrtcLoadedByBuiltins ? 'yes' : 'no'))]);
  const w = lines[0].map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  console.log('\ncold start: fresh processes, median per state (empty cache + NVRTC | empty cache + shipped kernels | warm disk cache | shipped kernels, second run)');
  for (const l of lines) console.log(l.map((s, i) => (i ? s.padStart(w[i]) : s.padEnd(w[i]))).join('  '));
  if (r.exampleError) console.log(`examples/gpuarray.js: not timed (${r.exampleError})`);
  else {
    const ex = r.states.shipped.example / r.states.warm.example;
    console.log(`examples/gpuarray.js fresh (shipped) / warm: ${ex.toFixed(2)}× (goal ≤ 1.5×)`);
  }
}

module.exports = { measureCold, printCold };

if (require.main === module) {
  let reps = 3;
  let json = null;
  for (const a of process.argv.slice(2)) {
    const [k, v] = a.split('=');
    if (k === '--reps') reps = Math.max(1, Number(v) | 0);
    else if (k === '--json') json = v;
  }
  const r = measureCold(reps);
  printCold(r);
  if (json) fs.writeFileSync(json, JSON.stringify(r, null, 2) + '\n');
}
