#!/usr/bin/env node
'use strict';
// `npx nodecuda doctor`: what this machine offers nodecuda (driver, GPUs, NVRTC, cuRAND, the kernel
// cache, the binary loaded) and which features work. `--json` prints cuda.diagnose() as JSON.
const args = process.argv.slice(2);
const command = args.find((a) => !a.startsWith('-')) ?? 'doctor';
if (command !== 'doctor' || args.includes('--help') || args.includes('-h')) {
  console.log('usage: nodecuda doctor [--json]\n  prints the driver, GPUs, NVRTC, cuRAND, the kernel cache and which features work');
  process.exit(command === 'doctor' || command === 'help' ? 0 : 2);
}
let cuda;
try {
  cuda = require('..');
} catch (e) {
  // The native binary did not load: that message already lists every candidate and why.
  console.error(String(e && e.message ? e.message : e));
  process.exit(1);
}
const d = cuda.diagnose();
console.log(args.includes('--json') ? JSON.stringify(d, null, 2) : cuda.formatDiagnosis(d));
