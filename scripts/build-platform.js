#!/usr/bin/env node
// Builds the binary of a platform package (npm/<target>/nodecuda.node) for glibc >= 2.28 with
// Zig's clang (scripts/zig.js): libc++ and the unwinder are linked in statically, glibc symbols
// are taken at 2.28 whatever the build machine has, and arm64 is cross-compiled from x64.
// Then checks it with scripts/check-glibc.js. Usage: node scripts/build-platform.js [TARGET...]
// (default: this machine's target; `all` for every npm/*/ package).
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { ensureZig, cacheDir } = require('./zig');
const { check } = require('./check-glibc');

const ROOT = path.resolve(__dirname, '..');
const TARGETS = {
  'linux-x64-gnu': { zig: 'x86_64-linux-gnu.2.28', processor: 'x86_64', arch: 'x64' },
  'linux-arm64-gnu': { zig: 'aarch64-linux-gnu.2.28', processor: 'aarch64', arch: 'arm64' },
};

function run(cmd, args, env) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.error}`);
}

function build(name) {
  const t = TARGETS[name];
  if (!t) throw new Error(`unknown target ${name} (known: ${Object.keys(TARGETS).join(', ')})`);
  const pkgDir = path.join(ROOT, 'npm', name);
  const main = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  if (pkg.version !== main.version || main.optionalDependencies?.[pkg.name] !== main.version) {
    throw new Error(`${pkg.name}@${pkg.version} must have nodecuda's version ${main.version} and be its optional dependency at it`);
  }
  const zig = ensureZig();
  const out = path.join(ROOT, `build-${name}`);
  const tools = path.join(out, 'toolchain');
  fs.mkdirSync(tools, { recursive: true });
  const zigCache = path.join(cacheDir(), 'zig-cache');
  for (const [file, mode] of [['cc', 'cc'], ['c++', 'c++']]) {
    // CMake wants one executable per compiler; the target and cache travel in the wrapper.
    fs.writeFileSync(path.join(tools, file), `#!/bin/sh\nZIG_GLOBAL_CACHE_DIR='${zigCache}' ZIG_LOCAL_CACHE_DIR='${zigCache}' ` +
      `exec '${zig}' ${mode} -target ${t.zig} "$@"\n`, { mode: 0o755 });
  }
  const cross = t.arch !== process.arch;
  run(process.execPath, [require.resolve('cmake-js/bin/cmake-js'), 'compile', '-O', out,
    `--CDCMAKE_C_COMPILER=${path.join(tools, 'cc')}`, `--CDCMAKE_CXX_COMPILER=${path.join(tools, 'c++')}`,
    // -s: no symbol tables or debug info (libc++ would otherwise add ~6 MB).
    '--CDCMAKE_SHARED_LINKER_FLAGS=-s',
    ...(cross ? ['--CDCMAKE_SYSTEM_NAME=Linux', `--CDCMAKE_SYSTEM_PROCESSOR=${t.processor}`] : [])]);
  const file = path.join(pkgDir, 'nodecuda.node');
  fs.copyFileSync(path.join(out, 'Release', 'nodecuda.node'), file);
  const { lines, problems } = check(file, t.arch);
  console.log(`${path.relative(ROOT, file)} (${(fs.statSync(file).size / 1e6).toFixed(1)} MB):\n  ${lines.join('\n  ')}`);
  if (problems.length) throw new Error(`${name}: ${problems.join('; ')}`);
}

if (require.main === module) {
  let names = process.argv.slice(2);
  if (names.length === 0) names = [`${process.platform}-${process.arch}-gnu`];
  if (names.length === 1 && names[0] === 'all') names = Object.keys(TARGETS);
  try {
    for (const n of names) build(n);
  } catch (e) {
    console.error(`build-platform: ${e.message}`);
    process.exit(1);
  }
}
