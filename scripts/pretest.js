#!/usr/bin/env node
// npm's pretest hook: rebuilds the native addon so `npm test` never runs one older than src/.
// `cmake-js compile` is incremental (about a second when nothing changed). Where CMake is
// missing (a GPU machine that got a built tree), an existing build/Release is used if no file
// of src/ or CMakeLists.txt is newer than it; a newer one fails unless NODECUDA_SKIP_NATIVE_BUILD=1.
// NODECUDA_BINARY set: the tests load that file, so nothing is built.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'build', 'Release', 'nodecuda.node');

function newestSource() {
  const files = fs.readdirSync(path.join(ROOT, 'src')).map((f) => path.join(ROOT, 'src', f));
  files.push(path.join(ROOT, 'CMakeLists.txt'));
  return files.reduce((best, f) => {
    const t = fs.statSync(f).mtimeMs;
    return t > best.t ? { f, t } : best;
  }, { f: '', t: 0 });
}

if (process.env.NODECUDA_BINARY || process.env.NODECUDA_ADDON) process.exit(0);
const hasCmake = spawnSync('cmake', ['--version'], { stdio: 'ignore' }).status === 0;
if (hasCmake) {
  const r = spawnSync(process.execPath, [require.resolve('cmake-js/bin/cmake-js'), 'compile', '--log-level', 'warn'],
    { cwd: ROOT, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
if (!fs.existsSync(BIN)) {
  console.error('pretest: no build/Release/nodecuda.node and no cmake on PATH to build it (npm run build needs CMake >= 3.18).');
  process.exit(1);
}
const newest = newestSource();
if (newest.t > fs.statSync(BIN).mtimeMs) {
  const msg = `pretest: ${path.relative(ROOT, newest.f)} is newer than build/Release/nodecuda.node and cmake is not on PATH to rebuild it`;
  if (process.env.NODECUDA_SKIP_NATIVE_BUILD === '1') {
    console.log(`${msg}; NODECUDA_SKIP_NATIVE_BUILD=1: testing the existing binary.`);
  } else {
    console.error(`${msg}. Rebuild where CMake is, or set NODECUDA_SKIP_NATIVE_BUILD=1 to test the existing binary.`);
    process.exit(1);
  }
}
