'use strict';
// `npm test [-- jest args]`: Jest in band by default (CI). JEST_WORKERS=n runs the files on n
// workers, then the files that fault the GPU on purpose (`@gpu-order faults-last`) in band after
// all others have finished: the driver's GL breaks after a GPU fault (test/setup/sequencer.js), so
// no GL file may run beside one. Exit status: the first failing run's.
const { spawnSync } = require('node:child_process');
const { group } = require('../test/setup/sequencer.js');

const args = process.argv.slice(2);
const jest = ['--expose-gc', require('node:path').join(__dirname, '..', 'node_modules', 'jest', 'bin', 'jest.js')];
const env = { ...process.env, UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE || '8' };

function jestRun(extra, testGroup, stdio = 'inherit') {
  const r = spawnSync(process.execPath, [...jest, ...extra, ...args], {
    stdio, encoding: 'utf8', env: testGroup ? { ...env, NODECUDA_TEST_GROUP: testGroup } : env,
  });
  if (r.error) throw r.error;
  return r;
}

const workers = process.env.JEST_WORKERS;
if (workers !== undefined && !/^[1-9][0-9]*%?$/.test(workers)) {
  console.error(`JEST_WORKERS must be a positive integer or a percentage (Jest's --maxWorkers), got "${workers}"`);
  process.exit(2);
}
if (!workers || workers === '1') process.exit(jestRun(['--runInBand']).status ?? 1);

// Which files this run selects, so that a filter matching one group runs that group only (the
// listing without the caller's output options: --json/--outputFile would take its output).
const listArgs = args.filter((a, i) => !/^--(?:json|outputFile)(?:=|$)/.test(a) && args[i - 1] !== '--outputFile');
const listed = spawnSync(process.execPath, [...jest, '--listTests', '--json', ...listArgs],
  { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', env });
let files = null;
try {
  files = JSON.parse(listed.stdout.trim().split('\n').pop());
} catch {
  // not listed: both runs, each allowed to find nothing
}
const faults = files && files.filter((f) => group(f) === 2).length;
if (files && (faults === 0 || faults === files.length)) process.exit(jestRun([`--maxWorkers=${workers}`]).status ?? 1);
const lenient = files ? [] : ['--passWithNoTests'];
const first = jestRun([`--maxWorkers=${workers}`, ...lenient], 'before-faults').status ?? 1;
console.log(`\n${faults ?? 'The'} file(s) that fault the GPU on purpose, in band after the others` +
  ' (a second Jest run: its --outputFile or coverage replaces the first run\'s):');
const last = jestRun(['--runInBand', ...lenient], 'faults').status ?? 1;
process.exit(first || last);
