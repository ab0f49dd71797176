'use strict';
// Philox random generation (issue 5 targets): bytes written per second into a preallocated array.
// Case format: see the header of bench/run.js.

const cuda = require('../..');
const { gpuarray, random } = cuda;

const N = 2 ** 28;

function fillCase(dist, target) {
  return {
    op: `${dist} float32`,
    size: '2^28',
    unit: 'GBs',
    bytes: N * 4,
    target,
    peer: { kind: 'random', dist, dtype: 'float32', n: N },
    setup: () => ({ g: new random.Generator({ seed: 1 }), out: gpuarray.empty([N], 'float32') }),
    run: ({ g, out }) => (dist === 'uniform' ? g.fillUniform(out) : g.fillNormal(out)),
    teardown: ({ out }) => out.dispose(),
  };
}

module.exports = [fillCase('uniform', 4000), fillCase('normal', 3000)];
