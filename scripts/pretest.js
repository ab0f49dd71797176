#!/usr/bin/env node
// npm's pretest hook: rebuilds the native addon so `npm test` never runs one older than src/.
// `cmake-js compile` is incremental (about a second when nothing changed). Where CMake is
// missing (a GPU machine that got a built tree, whose copied files' times say nothing), the
// existing build/Release is tested as it is, with one line saying so. NODECUDA_BINARY set: the
// tests load that file, so nothing is built.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'build', 'Release', 'nodecuda.node');

if (process.env.NODECUDA_BINARY || process.env.NODECUDA_ADDON) process.exit(0);
if (spawnSync('cmake', ['--version'], { stdio: 'ignore' }).status === 0) {
  const r = spawnSync(process.execPath, [require.resolve('cmake-js/bin/cmake-js'), 'compile', '--log-level', 'warn'],
    { cwd: ROOT, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
if (!fs.existsSync(BIN)) {
  console.error('pretest: no build/Release/nodecuda.node and no cmake on PATH to build it (npm run build needs CMake >= 3.18).');
  process.exit(1);
}
console.log('pretest: cmake is not on PATH: testing the existing build/Release/nodecuda.node without rebuilding it.');
