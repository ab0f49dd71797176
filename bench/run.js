#!/usr/bin/env node
'use strict';
// nodecuda benchmarks: npm run bench [-- --filter=TEXT[,TEXT…]] [--reps=N] [--rounds=N] [--no-peers] [--no-cold]
//
// Runs every case of bench/cases/*.js (files in name order) and, interleaved, the same ops in
// PyTorch and CuPy when python3 has them (BENCH_PYTHON picks another interpreter): one
// `peers.py --serve` process (bench/peer_server.js) imports them before the first case, and each
// case with a peer op is sent to it right after nodecuda's measurement of that case (nodecuda's
// cached pool memory freed first, theirs freed before it answers), so both rows of an op are
// measured seconds apart, in the same GPU clock and thermal state. Prints one table and writes
// bench/results/latest.json, and $OUT/bench.json when OUT is set.
//   --rounds=N  (default 1) measures each case N times, nodecuda and peers alternating; every
//               figure is then the median of that side's N per-round medians.
//   BENCH_PEER_START_TIMEOUT_S (default 300): how long peers.py may take to import torch and CuPy;
//   BENCH_PEER_TIMEOUT_S (default 600): how long it may take to answer one case. Past either, or
//   when it exits, it is killed and the remaining cases' peers are marked skipped with the reason.
//
// A case file exports an array of cases:
//   op, size   labels for the table ('H2D from TypedArray', '256 MiB')
//   unit       'GBs': the row shows bytes / batch time; 'us': batch time / iters, in µs per op;
//              'TFLOPs': `flops` (per batch) / batch time
//   bytes      bytes one batch moves ('GBs'), or the size the op works on (passed to peers)
//   iters      ops per batch (default 1)
//   repeat     calls of run() per timed batch; by default enough for a batch of BENCH_BATCH_MS
//              (10 ms; at most 500 calls; 1 for cases with iters > 1), so a short op's figure is not
//              mostly launch latency and clock ramps of one call + sync. The row's figure is per call
//              (batch time / repeat); its events column times ONE call, device idle before (the
//              single-call view). Peers run the same count.
//   target     optional goal: a minimum GB/s or a maximum µs/op
//   peer       optional { kind, ...params } for bench/peers.py; rows without it have no peers
//   setup()    optional, untimed; its result (or what its Promise resolves to) is the ctx given to run and teardown
//   run(ctx)   one batch; the harness syncs the context after it, inside the timed region
//   teardown(ctx)  optional, untimed
// A batch is timed with process.hrtime.bigint: WARMUP untimed batches (and at least WARMUP_S
// seconds of them), then the median of REPS. Independently, EVENT_REPS single batches are timed
// with CUDA events recorded on the legacy stream right before and after (the context idle before
// each): the GPU-timeline cost of one call, per op (the 'events' column; peers.py does the same),
// after EVENT_WARM_CALLS single calls (at most EVENT_WARM_S seconds of them) so that V8 has
// optimized the call's JavaScript: a process's first few hundred calls of an op run in V8's
// interpreter, 2-5× the host time (docs/kernels.md, "One call after an idle device"; the
// first-calls view is bench/single-call.js --warm=3).
// Then the cold-start table (bench/coldstart.js; --no-cold skips it).

const fs = require('node:fs');
const path = require('node:path');
const { PeerServer } = require('./peer_server');

const WARMUP = 2;
const WARMUP_S = 0.1;
const EVENT_REPS = 20;
const EVENT_WARM_CALLS = 2000;
const EVENT_WARM_S = 0.5;
const PEERS = ['torch', 'cupy'];

function parseArgs(argv) {
  const opts = { filter: '', reps: 10, rounds: 1, peers: true, cold: true };
  const count = (value) => Number.isInteger(Number(value)) && Number(value) > 0;
  for (const arg of argv) {
    const [key, value = ''] = arg.split('=');
    if (key === '--filter') opts.filter = value;
    else if (key === '--reps' && count(value)) opts.reps = Number(value);
    else if (key === '--rounds' && count(value)) opts.rounds = Number(value);
    else if (key === '--no-peers') opts.peers = false;
    else if (key === '--no-cold') opts.cold = false;
    else fail(`unknown or invalid option ${arg}`, 2);
  }
  return opts;
}

function fail(message, code = 1) {
  console.error(`bench: ${message}`);
  process.exit(code);
}

// A timeout in ms from an environment variable in seconds.
function envTimeoutMs(name, defaultS) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return defaultS * 1e3;
  if (!(Number(raw) > 0)) fail(`${name}=${raw}: expected a positive number of seconds`, 2);
  return Number(raw) * 1e3;
}

const errorText = (e) => (e instanceof Error ? e.message : String(e)).split('\n')[0];

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function loadCases(filter) {
  const dir = path.join(__dirname, 'cases');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .flatMap((f) => require(path.join(dir, f)))
    .filter((c) => filter.split(',').some((f) => `${c.op} ${c.size}`.includes(f)))
    .map((c, id) => ({ iters: 1, ...c, id: String(id) }));
}

// Median wall time in seconds of one batch, each ended by a context synchronize.
function timeBatches(cuda, batch, reps) {
  const sync = () => cuda.driver.Context.synchronize();
  // At least WARMUP batches and WARMUP_S seconds untimed (GPU clocks settle; peers do the same).
  const end = process.hrtime.bigint() + BigInt(WARMUP_S * 1e9);
  for (let i = 0; i < WARMUP || process.hrtime.bigint() < end; i++) {
    batch();
    sync();
  }
  const times = [];
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    batch();
    sync();
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return median(times);
}

// Median GPU time in seconds between CUDA events recorded around one batch, the context idle
// before each (what a single call costs on the GPU timeline, launch gaps inside included).
function timeEvents(cuda, batch, reps) {
  const { Event, Context } = cuda.driver;
  const start = new Event();
  const end = new Event();
  const times = [];
  try {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < EVENT_WARM_CALLS && Number(process.hrtime.bigint() - t0) < EVENT_WARM_S * 1e9; i++) {
      batch();
      if (i % 64 === 63) Context.synchronize();
    }
    for (let i = 0; i < reps; i++) {
      Context.synchronize();
      start.record();
      batch();
      end.record();
      end.synchronize();
      times.push(end.timeSince(start) / 1e3);
    }
  } finally {
    start.dispose();
    end.dispose();
  }
  return median(times);
}

// Measures one case; any exception becomes { error } so the remaining cases still run.
// Calls per batch for a case that sets no `repeat`: enough that a batch lasts BENCH_BATCH_MS
// (default 10 ms; 0: always 1), at most 500, from the median of three timed single calls. Cases with
// iters > 1 loop themselves: 1.
function autoRepeat(cuda, c, once) {
  const target = Number(process.env.BENCH_BATCH_MS ?? 10) / 1e3;
  if (!(target > 0) || c.iters > 1) return 1;
  const sync = () => cuda.driver.Context.synchronize();
  const t = [];
  for (let i = 0; i < 4; i++) {
    const t0 = process.hrtime.bigint();
    once();
    sync();
    if (i > 0) t.push(Number(process.hrtime.bigint() - t0) / 1e9); // the first call warms up
  }
  t.sort((a, b) => a - b);
  return Math.max(1, Math.min(500, Math.round(target / t[1])));
}

async function measure(cuda, c, reps) {
  let ctx;
  try {
    ctx = c.setup ? await c.setup() : undefined;
  } catch (e) {
    return { error: `setup: ${errorText(e)}` };
  }
  let result;
  try {
    // `repeat` calls per timed batch (seconds per call = batch / repeat); events time one call.
    const once = () => c.run(ctx);
    c.repeat ??= autoRepeat(cuda, c, once); // the first round decides; peers get the same count
    const batch = c.repeat > 1 ? () => { for (let i = 0; i < c.repeat; i++) c.run(ctx); } : once;
    result = { seconds: timeBatches(cuda, batch, reps) / (c.repeat || 1) };
    if (!c.noEvents) result.eventSeconds = timeEvents(cuda, once, EVENT_REPS);
  } catch (e) {
    result = { error: errorText(e) };
  }
  try {
    if (c.teardown) c.teardown(ctx);
  } catch (e) {
    result.error ??= `teardown: ${errorText(e)}`;
  }
  return result;
}

const skipped = (reason) =>
  Object.fromEntries(PEERS.map((p) => [p, { available: false, reason, results: {} }]));

const peerCase = (c) => ({ id: c.id, iters: c.iters, repeat: c.repeat || 1, bytes: c.bytes, ...c.peer });

// Starts `peers.py --serve` when peers are on and some case names a peer op. Returns { server,
// peers }: peers is { torch, cupy }, each { available, version?, reason?, results: {} } (results
// filled per case by the caller); server is absent when no peer will run (peers say why).
async function startPeers(cases, opts) {
  if (!opts.peers) return { peers: skipped('--no-peers') };
  if (!cases.some((c) => c.peer)) return { peers: skipped('no case has a peer op') };
  const python = process.env.BENCH_PYTHON || 'python3';
  const server = await PeerServer.start(python, path.join(__dirname, 'peers.py'), {
    startTimeoutMs: envTimeoutMs('BENCH_PEER_START_TIMEOUT_S', 300),
  });
  if (server.failure) return { peers: skipped(server.failure) };
  const peers = Object.fromEntries(
    PEERS.map((p) => {
      const { available = false, version, reason = 'not in the ready line of peers.py' } = server.info[p] ?? {};
      return [p, available ? { available, version, results: {} } : { available, reason, results: {} }];
    }),
  );
  if (PEERS.some((p) => peers[p].available)) return { server, peers };
  await server.close(); // neither framework can run: nothing to ask it
  return { peers };
}

// Measures case c in the peers: one request, answered before this returns. Returns
// { torch?, cupy? }, each { seconds, eventSeconds?, note? } | { error }; throws when the server
// failed (exited, or no answer within the timeout: then it is killed).
async function measurePeers(server, c, reps, timeoutMs) {
  const request = { warmup: WARMUP, reps, event_reps: EVENT_REPS, cases: [peerCase(c)] };
  const answer = await server.request(request, timeoutMs);
  if (answer.error !== undefined) {
    return Object.fromEntries(PEERS.map((p) => [p, { error: `peers.py: ${answer.error}` }]));
  }
  return Object.fromEntries(PEERS.map((p) => [p, answer[p]?.results?.[c.id]]).filter(([, r]) => r));
}

// One result from a case's rounds: the median of the per-round medians (seconds and eventSeconds
// apart); the first note and the first error are kept.
function combineRounds(rounds) {
  if (rounds.length === 1) return rounds[0];
  const pick = (key) => rounds.map((r) => r[key]).filter((v) => v !== undefined);
  const [seconds, eventSeconds, [note], [error]] = ['seconds', 'eventSeconds', 'note', 'error'].map(pick);
  const out = {};
  if (seconds.length) out.seconds = median(seconds);
  if (eventSeconds.length) out.eventSeconds = median(eventSeconds);
  if (note !== undefined) out.note = note;
  if (error !== undefined) out.error = error;
  return out;
}

// Gives nodecuda's cached pool memory back to the driver (cuda.freeCachedMemory), so that each
// case, nodecuda's or a peer's, starts with the GPU's memory free.
function freeCached(cuda) {
  try {
    cuda.freeCachedMemory();
  } catch (e) {
    console.error(`bench: freeCachedMemory: ${errorText(e)}`);
  }
}

// Measures every case, round by round: nodecuda, then (when it has a peer op and the server
// serves) torch and CuPy in one request. Fills peers[p].results; returns nodecuda's results.
async function measureAll(cuda, cases, opts, server, peers) {
  const timeoutMs = envTimeoutMs('BENCH_PEER_TIMEOUT_S', 600);
  const results = [];
  for (const c of cases) {
    const ours = [];
    const theirs = Object.fromEntries(PEERS.map((p) => [p, []]));
    for (let round = 0; round < opts.rounds; round++) {
      ours.push(await measure(cuda, c, opts.reps));
      freeCached(cuda);
      if (!c.peer || !server || server.failure) continue;
      try {
        const answer = await measurePeers(server, c, opts.reps, timeoutMs);
        for (const [p, r] of Object.entries(answer)) if (peers[p]?.available) theirs[p].push(r);
      } catch (e) {
        console.error(`bench: peers stopped at ${c.op}, ${c.size}: ${errorText(e)}`);
      }
    }
    results.push(combineRounds(ours));
    for (const p of PEERS) {
      if (theirs[p].length) peers[p].results[c.id] = combineRounds(theirs[p]);
      else if (c.peer && server?.failure && peers[p].available) {
        peers[p].results[c.id] = { error: `skipped: ${server.failure}` };
      }
    }
  }
  return results;
}

// The row's figure: GB/s for 'GBs', TFLOP/s for 'TFLOPs', µs per op for 'us'.
const value = (c, seconds) =>
  c.unit === 'GBs' ? c.bytes / seconds / 1e9 : c.unit === 'TFLOPs' ? c.flops / seconds / 1e12 : (seconds * 1e6) / c.iters;

// > 1 means nodecuda is better: higher GB/s, or fewer µs per op.
const ratio = (c, ours, theirs) => (c.unit !== 'us' ? ours / theirs : theirs / ours);

const meetsTarget = (c, v) => (c.unit !== 'us' ? v >= c.target : v <= c.target);

const fmtValue = (c, v) =>
  c.unit === 'GBs' ? `${v.toFixed(1)} GB/s` : c.unit === 'TFLOPs' ? `${v.toFixed(1)} TFLOP/s` : `${v.toFixed(2)} µs/op`;

function fmtTime(s) {
  if (s >= 1) return `${s.toFixed(2)} s`;
  if (s >= 1e-3) return `${(s * 1e3).toFixed(2)} ms`;
  return `${(s * 1e6).toFixed(1)} µs`;
}

function buildRow(c, ours, peers) {
  const row = {
    op: c.op,
    size: c.size,
    unit: c.unit,
    bytes: c.bytes,
    iters: c.iters,
    repeat: c.repeat,
    target: c.target,
    ...ours,
  };
  if (ours.seconds !== undefined) row.value = value(c, ours.seconds);
  if (ours.eventSeconds !== undefined) row.eventValue = value(c, ours.eventSeconds);
  for (const p of PEERS) {
    const theirs = peers[p]?.results?.[c.id];
    if (!theirs) continue;
    row[p] = { ...theirs };
    if (theirs.seconds !== undefined) {
      row[p].value = value(c, theirs.seconds);
      if (row.value !== undefined) row[p].ratio = ratio(c, row.value, row[p].value);
    }
    if (theirs.eventSeconds !== undefined) {
      row[p].eventValue = value(c, theirs.eventSeconds);
      if (row.eventValue !== undefined) row[p].eventRatio = ratio(c, row.eventValue, row[p].eventValue);
    }
  }
  return row;
}

function printTable(cases, rows, peers, header) {
  const notes = [];
  const cells = rows.map((r, i) => {
    const c = cases[i];
    const label = `${r.op}, ${r.size}`;
    if (r.error) notes.push(`${label}: error: ${r.error}`);
    const target =
      c.target === undefined
        ? ''
        : `${c.unit !== 'us' ? '≥' : '≤'}${c.target}` +
          (r.value === undefined ? '' : meetsTarget(c, r.value) ? ' ok' : ' MISS');
    const line = [
      r.op,
      r.repeat > 1 ? `${r.size} (×${r.repeat})` : r.size,
      r.error ? 'error' : fmtTime(r.seconds),
      r.value === undefined ? '' : fmtValue(c, r.value),
      r.eventValue === undefined ? '' : fmtValue(c, r.eventValue),
      target,
    ];
    for (const p of PEERS) {
      const theirs = r[p];
      // Rows skipped after the server stopped: the peer's footer line says why, once.
      if (theirs?.error && !theirs.error.startsWith('skipped: ')) notes.push(`${label}: ${p} error: ${theirs.error}`);
      if (theirs?.note) notes.push(`${label}: ${p} runs ${theirs.note}`);
      line.push(theirs?.value === undefined ? '' : fmtValue(c, theirs.value));
      line.push(theirs?.ratio === undefined ? '' : `${theirs.ratio.toFixed(2)}×`);
      line.push(theirs?.eventRatio === undefined ? '' : `${theirs.eventRatio.toFixed(2)}×`);
    }
    return line;
  });
  const titles = ['op', 'size', 'median', 'nodecuda', 'events', 'target'];
  for (const p of PEERS) titles.push(p, `×${p}`, `ev×${p}`);
  const widths = titles.map((t, i) => Math.max(t.length, ...cells.map((l) => l[i].length)));
  const format = (l) =>
    l.map((s, i) => (i < 2 ? s.padEnd(widths[i]) : s.padStart(widths[i]))).join('  ').trimEnd();

  for (const line of header) console.log(line);
  console.log('median: wall time of one call (a batch of (×N) calls, sync included, divided by N); other columns: GB/s or µs/op');
  console.log(`events: CUDA events around ONE call (median of ${EVENT_REPS}, device idle before each, after up to ${EVENT_WARM_CALLS} calls or ${EVENT_WARM_S} s): the single-call view`);
  console.log('×torch, ×cupy: > 1 means nodecuda is better (higher GB/s or fewer µs/op); ev×: the same from events');
  console.log();
  console.log(format(titles));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of cells) console.log(format(l));
  console.log();
  for (const p of PEERS) {
    const { available, version, reason } = peers[p];
    if (!available) console.log(`${p}: skipped (${reason})`);
    else console.log(`${p} ${version}${reason ? `; stopped, the remaining cases skipped: ${reason}` : ''}`);
  }
  for (const n of notes) console.log(n);
}

function writeJson(report) {
  const text = JSON.stringify(report, (_, v) => (typeof v === 'bigint' ? v.toString() : v), 2);
  const targets = [path.join(__dirname, 'results', 'latest.json')];
  if (process.env.OUT) targets.push(path.join(process.env.OUT, 'bench.json'));
  for (const file of targets) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${text}\n`);
  }
  console.log(`\nwrote ${targets.join(', ')}`);
}

// Library facts for the report header; a failure here must not stop the benchmark.
function describe(cuda) {
  const attempt = (f) => {
    try {
      return f();
    } catch (e) {
      return `unknown (${errorText(e)})`;
    }
  };
  return {
    device: attempt(() => new cuda.driver.Device(0).name()),
    versions: attempt(() => cuda.version()),
  };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  let cuda;
  try {
    cuda = require('..');
  } catch (e) {
    fail(`cannot load nodecuda (${errorText(e)}); run \`npm run build\` first`);
  }
  if (!cuda.isAvailable()) {
    console.log('bench: no CUDA GPU available (cuda.isAvailable() is false); nothing to measure');
    return;
  }
  const cases = loadCases(opts.filter);
  if (cases.length === 0) fail(`no case matches --filter=${opts.filter}`);

  const { server, peers } = await startPeers(cases, opts);
  const results = await measureAll(cuda, cases, opts, server, peers);
  // The reason the server stopped, when it failed before the last case was answered.
  const stopped = server?.failure ?? undefined;
  await server?.close();
  const rows = cases.map((c, i) => buildRow(c, results[i], peers));

  const info = describe(cuda);
  const peerInfo = Object.fromEntries(
    PEERS.map((p) => {
      const { available = false, version, reason = 'no answer' } = peers[p] ?? {};
      return [p, { available, version, reason: available ? stopped : reason }];
    }),
  );
  const header = [`nodecuda bench on ${info.device}: median of ${opts.reps}, ${WARMUP} warm-up`];
  if (server) {
    header.push('peers: measured interleaved, each case in torch and CuPy right after nodecuda (one peers.py --serve)');
  }
  if (opts.rounds > 1) {
    header.push(`rounds: ${opts.rounds} per case, nodecuda and peers alternating; figures: median of the per-round medians`);
  }
  printTable(cases, rows, peerInfo, header);
  let cold;
  if (opts.cold && !opts.filter) {
    try {
      const { measureCold, printCold } = require('./coldstart');
      cold = measureCold();
      printCold(cold);
    } catch (e) {
      cold = { error: errorText(e) };
      console.log(`cold start: error: ${cold.error}`);
    }
  }
  writeJson({
    date: new Date().toISOString(),
    node: process.version,
    ...info,
    warmup: WARMUP,
    reps: opts.reps,
    rounds: opts.rounds,
    peers: peerInfo,
    rows,
    cold,
  });
}

main().catch((e) => fail(errorText(e)));
