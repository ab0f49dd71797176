#!/usr/bin/env node
// Fails when a built nodecuda.node needs more of the C and C++ runtimes than the platform
// packages promise: glibc symbol versions above GLIBC_2.28 (RHEL 8, Debian 10, Ubuntu 20.04) or
// libstdc++ ones above GLIBCXX_3.4.25 (or CXXABI_1.3.11), or a machine other than the one asked.
// Usage: node scripts/check-glibc.js FILE [--arch x64|arm64]. Reads `readelf --dyn-syms -W`
// (binutils reads foreign architectures too) and prints the highest version of each.
'use strict';
const { spawnSync } = require('child_process');

const LIMITS = { GLIBC: '2.28', GLIBCXX: '3.4.25', CXXABI: '1.3.11' };
const MACHINES = { x64: 'Advanced Micro Devices X86-64', arm64: 'AArch64' };

function cmp(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) - (y[i] || 0);
  }
  return 0;
}

/** The highest version of each of GLIBC/GLIBCXX/CXXABI in `readelf --dyn-syms` output, with its symbols. */
function highest(text) {
  const top = {};
  for (const m of text.matchAll(/\s(\S+)@(GLIBC|GLIBCXX|CXXABI)_([0-9.]+)/g)) {
    const [, sym, lib, ver] = m;
    if (!top[lib] || cmp(ver, top[lib].version) > 0) top[lib] = { version: ver, symbols: [sym] };
    else if (cmp(ver, top[lib].version) === 0 && !top[lib].symbols.includes(sym)) top[lib].symbols.push(sym);
  }
  return top;
}

function check(file, arch) {
  const readelf = (args) => {
    const r = spawnSync('readelf', [...args, file], { encoding: 'utf8' });
    if (r.error || r.status !== 0) throw new Error(`readelf ${args.join(' ')} ${file}: ${r.error ? r.error.message : r.stderr}`);
    return r.stdout;
  };
  const problems = [];
  if (arch) {
    const machine = /Machine:\s+(.+)/.exec(readelf(['-h']))?.[1].trim();
    if (machine !== MACHINES[arch]) problems.push(`machine is ${machine}, not ${MACHINES[arch]} (${arch})`);
  }
  const top = highest(readelf(['--dyn-syms', '-W']));
  const lines = [];
  for (const [lib, limit] of Object.entries(LIMITS)) {
    const t = top[lib];
    lines.push(`${lib}: ${t ? `${t.version} (${t.symbols.slice(0, 4).join(', ')})` : 'none'}, limit ${limit}`);
    if (t && cmp(t.version, limit) > 0) problems.push(`needs ${lib}_${t.version} (${t.symbols.join(', ')}); the limit is ${limit}`);
  }
  return { lines, problems };
}

module.exports = { check, highest, LIMITS };

if (require.main === module) {
  const args = process.argv.slice(2);
  const ai = args.indexOf('--arch');
  const arch = ai >= 0 ? args.splice(ai, 2)[1] : undefined;
  if (args.length !== 1) {
    console.error('usage: node scripts/check-glibc.js FILE [--arch x64|arm64]');
    process.exit(2);
  }
  const { lines, problems } = check(args[0], arch);
  console.log(`check-glibc ${args[0]}:\n  ${lines.join('\n  ')}`);
  if (problems.length) {
    console.error(`check-glibc: FAILED: ${problems.join('; ')}`);
    process.exit(1);
  }
}
