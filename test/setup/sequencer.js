'use strict';
// Test order on the GPU machine: files that use OpenGL first, files that fault the GPU on
// purpose last. On an H100 with driver 580 an MMU fault in any process (Xid 31, e.g. the
// illegal-address test of test/60) leaves the GPU so that, in every later process until the GPU
// is reset, GL draws sample zeros from textures that were filled from a CUDA-registered pixel
// buffer (docs/gl.md, Known issues). A file says which group it belongs to with a marker
// comment: `@gpu-order gl-first` or `@gpu-order faults-last`. Within a group Jest's own order.
// NODECUDA_TEST_GROUP=before-faults | faults keeps only the files before, or of, the last group:
// scripts/test.js runs them as two Jest runs when JEST_WORKERS asks for parallel workers.
const fs = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;

function group(path) {
  const head = fs.readFileSync(path, 'utf8').slice(0, 4000);
  const m = /@gpu-order (gl-first|faults-last)/.exec(head);
  return m ? (m[1] === 'gl-first' ? 0 : 2) : 1;
}

const keep = {
  'before-faults': (g) => g < 2,
  faults: (g) => g === 2,
}[process.env.NODECUDA_TEST_GROUP] ?? (() => true);

class GpuOrderSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const rank = new Map(sorted.map((t, i) => [t.path, [group(t.path), i]]));
    return sorted.filter((t) => keep(rank.get(t.path)[0])).sort((a, b) => {
      const [ga, ia] = rank.get(a.path), [gb, ib] = rank.get(b.path);
      return ga - gb || ia - ib;
    });
  }
}

module.exports = GpuOrderSequencer;
module.exports.group = group;
