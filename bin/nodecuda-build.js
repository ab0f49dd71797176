#!/usr/bin/env node
// `npx nodecuda-build`: builds the native addon from source into the installed package's
// build/Release/, which the loader tries after the platform package. Needed only where no
// prebuilt binary loads (another platform, glibc < 2.28). Checks the tools first and, when any is
// missing, says in one paragraph what and how to get it, instead of a compiler or CMake log.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const PKG = path.resolve(__dirname, '..');
const CMAKE_MIN = [3, 18];

function which(cmd, env = process.env) {
  for (const dir of (env.PATH || '').split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, cmd))) return path.join(dir, cmd);
  }
  return null;
}

function resolveFrom(spec) {
  try {
    return require.resolve(spec, { paths: [PKG] });
  } catch {
    return null;
  }
}

/** What is missing, as phrases; empty when the build can start. */
function missing(env = process.env) {
  const out = [];
  const cmake = which('cmake', env);
  if (!cmake) {
    out.push(`CMake >= ${CMAKE_MIN.join('.')} (not on PATH; "pip install cmake" or your distribution's cmake package)`);
  } else {
    const v = /cmake version (\d+)\.(\d+)/.exec(spawnSync(cmake, ['--version'], { encoding: 'utf8' }).stdout || '');
    if (!v || +v[1] < CMAKE_MIN[0] || (+v[1] === CMAKE_MIN[0] && +v[2] < CMAKE_MIN[1])) {
      out.push(`CMake >= ${CMAKE_MIN.join('.')} (found ${v ? `${v[1]}.${v[2]}` : 'an unreadable version'} at ${cmake}; "pip install cmake" gives a newer one)`);
    }
  }
  const cxx = env.CXX ? (path.isAbsolute(env.CXX) ? env.CXX : which(env.CXX, env)) : ['c++', 'g++', 'clang++'].map((c) => which(c, env)).find(Boolean);
  if (!cxx) out.push('a C++17 compiler (g++ >= 8 or clang++ >= 7: e.g. apt install g++, dnf install gcc-c++; or set CXX)');
  const roots = [env.CUDA_HOME, env.CUDA_PATH, '/usr/local/cuda'].filter(Boolean);
  const headers = ['cuda.h', 'nvrtc.h'];
  if (!roots.some((r) => headers.every((h) => fs.existsSync(path.join(r, 'include', h))))) {
    out.push(`the CUDA toolkit headers cuda.h and nvrtc.h (looked in ${roots.map((r) => path.join(r, 'include')).join(', ')}; ` +
      'install the CUDA toolkit, only its headers are needed, or set CUDA_HOME to its root)');
  }
  const tools = ['cmake-js/package.json', 'node-addon-api/package.json'].filter((s) => !resolveFrom(s)).map((s) => s.split('/')[0]);
  if (tools.length) out.push(`${tools.join(' and ')} (npm install --no-save cmake-js@~8.0.0 node-addon-api@^8.9.2)`);
  return out;
}

module.exports = { missing };

if (require.main === module) {
  const lacking = missing();
  if (lacking.length) {
    console.error(`nodecuda-build: cannot build the native addon in ${PKG}: missing ${lacking.join('; ')}. ` +
      'Install those and run "npx nodecuda-build" again. Prebuilt binaries exist for linux-x64 and linux-arm64 with ' +
      'glibc >= 2.28 (installed as an optional dependency), so a build is needed only elsewhere.');
    process.exit(1);
  }
  const cmakeJs = resolveFrom('cmake-js/bin/cmake-js');
  const r = spawnSync(process.execPath, [cmakeJs, 'compile', ...process.argv.slice(2)], { cwd: PKG, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`nodecuda-build: the build failed (exit ${r.status}); the CMake output above says why.`);
    process.exit(1);
  }
  const built = path.join(PKG, 'build', 'Release', 'nodecuda.node');
  try {
    require(built);
  } catch (e) {
    console.error(`nodecuda-build: built ${built}, but it does not load: ${String(e.message).split('\n')[0]}`);
    process.exit(1);
  }
  console.log(`nodecuda-build: built ${built}; require('nodecuda') uses it where no prebuilt binary loads.`);
}
