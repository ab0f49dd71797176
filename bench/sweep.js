#!/usr/bin/env node
'use strict';
// Sweeps the launch-shape knobs (environment overrides read once per process) on this GPU, each
// value in a fresh `node bench/run.js --filter=… --no-peers --no-cold` process, and prints GB/s
// per value: the evidence for the device rules of docs/kernels.md ("Launch shapes"). Only the
// knobs whose default is a constant rather than a device attribute need it.
//   node bench/sweep.js [--reps=5] [--only=NODECUDA_RED_WAVES]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const KNOBS = [
  { env: 'NODECUDA_RED_WAVES', values: ['1', '2', '3', '4'], filter: ['sum f32', 'max f32', 'dot f32'] },
  { env: 'NODECUDA_RED_COLS_WAVES', values: ['1', '2', '4'], filter: ['sum axis 0 f32'] },
  { env: 'NODECUDA_EW_BLOCK', values: ['128', '256', '512'], filter: ['add float32', 'axpy'] },
  { env: 'NODECUDA_EK_WAVES', values: ['0', '4', '8', '32'], filter: ['ElementwiseKernel axpy'] },
  { env: 'NODECUDA_EW_VECTORS', values: ['1', '2'], filter: ['add float32', 'sin'] },
  { env: 'NODECUDA_RANDOM_WAVES', values: ['2', '4', '8', '16'], filter: ['normal f32', 'uniform f32'] },
  { env: 'NODECUDA_SCAN_SLEEP', values: ['0', '344', '688', '1376'], filter: ['cumsum float32'] },
];

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const reps = args.reps ?? '5';
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-sweep-'));
for (const k of KNOBS.filter((x) => !args.only || x.env === args.only)) {
  console.log(`\n${k.env}`);
  for (const filter of k.filter) {
    const cells = [];
    for (const v of k.values) {
      const r = spawnSync(process.execPath, [path.join(__dirname, 'run.js'), `--filter=${filter}`, `--reps=${reps}`, '--no-peers', '--no-cold'],
        { encoding: 'utf8', env: { ...process.env, [k.env]: v, OUT: out }, timeout: 600_000 });
      let cell;
      try {
        const rows = JSON.parse(fs.readFileSync(path.join(out, 'bench.json'), 'utf8')).rows;
        cell = rows.map((row) => `${row.value.toFixed(0)}${row.eventValue ? `/${row.eventValue.toFixed(0)}` : ''}`).join(' ');
        fs.rmSync(path.join(out, 'bench.json'));
      } catch {
        cell = `error ${(r.stderr || '').trim().split('\n').pop()}`;
      }
      cells.push(`${v}: ${cell}`);
    }
    console.log(`  ${filter.padEnd(16)} ${cells.join('   ')}   (batch/events, the row's unit)`);
  }
}
fs.rmSync(out, { recursive: true, force: true });
