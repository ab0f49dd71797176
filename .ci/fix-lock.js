// Run after `npm install` changes package-lock.json: node .ci/fix-lock.js
// Adds lock entries for optional platform bindings the registry here does not serve (npm ci
// refuses a lock without them), and for nodecuda's own platform packages;
// the entries carry os/cpu so npm skips them on other platforms.
const fs = require('fs');
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
const plat = {
  'android-arm-eabi': ['android', 'arm'], 'android-arm64': ['android', 'arm64'],
  'darwin-arm64': ['darwin', 'arm64'], 'darwin-x64': ['darwin', 'x64'], 'freebsd-x64': ['freebsd', 'x64'],
  'linux-arm-gnueabihf': ['linux', 'arm'], 'linux-arm-musleabihf': ['linux', 'arm'],
  'linux-arm64-gnu': ['linux', 'arm64'], 'linux-arm64-musl': ['linux', 'arm64'],
  'linux-loong64-gnu': ['linux', 'loong64'], 'linux-loong64-musl': ['linux', 'loong64'],
  'linux-ppc64-gnu': ['linux', 'ppc64'], 'linux-riscv64-gnu': ['linux', 'riscv64'],
  'linux-riscv64-musl': ['linux', 'riscv64'], 'linux-s390x-gnu': ['linux', 's390x'],
  'openharmony-arm64': ['openharmony', 'arm64'], 'win32-arm64-msvc': ['win32', 'arm64'],
  'win32-ia32-msvc': ['win32', 'ia32'], 'win32-x64-msvc': ['win32', 'x64'],
};
let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [dep, ver] of Object.entries(entry.optionalDependencies || {})) {
    const p = `node_modules/${dep}`;
    if (lock.packages[p] || dep.startsWith('@nodecuda/')) continue;
    const m = /resolver-binding-(.+)$/.exec(dep);
    const e = { version: ver, dev: true, optional: true };
    if (m && plat[m[1]]) { e.os = [plat[m[1]][0]]; e.cpu = [plat[m[1]][1]]; }
    else { console.log('no platform known for', dep, 'from', key); continue; }
    lock.packages[p] = e;
    added++;
  }
}
// nodecuda's own platform packages (npm/<name>/): published with each release, so a lock made
// before they exist lacks them; their os/cpu/libc come from their package.json.
for (const [dep, ver] of Object.entries(lock.packages[''].optionalDependencies || {})) {
  const p = `node_modules/${dep}`;
  if (lock.packages[p] || !dep.startsWith('@nodecuda/')) continue;
  const meta = JSON.parse(fs.readFileSync(`npm/${dep.slice('@nodecuda/'.length)}/package.json`, 'utf8'));
  lock.packages[p] = { version: ver, optional: true, os: meta.os, cpu: meta.cpu, libc: meta.libc };
  added++;
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
lock.packages = sorted;
fs.writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n');
console.log('added', added);
