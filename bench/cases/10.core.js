'use strict';
// Core driver costs: launch latency, host<->device copies, allocation.
// Case format: see the header of bench/run.js.

const { driver, SourceModule } = require('../..');

const MiB = 1 << 20;
const COPY_BYTES = 256 * MiB;
const LAUNCHES = 10_000;
const ALLOCS = 10_000;
const ALLOC_BYTES = 4096;
const ONE_THREAD = { block: [1], grid: [1] };

// A host buffer of `bytes`, plain (pageable) or page-locked. Filled so that every page is
// mapped before timing: an untouched zeroed allocation may still be backed by the zero page.
function hostBuffer(bytes, pinned) {
  const n = bytes / Float32Array.BYTES_PER_ELEMENT;
  const a = pinned ? driver.pagelockedEmpty([n], 'float32') : new Float32Array(n);
  return a.fill(1);
}

function copyCase(direction, pinned) {
  const h2d = direction === 'h2d';
  return {
    op: `${h2d ? 'H2D' : 'D2H'} from ${pinned ? 'page-locked' : 'TypedArray'}`,
    size: '256 MiB',
    unit: 'GBs',
    bytes: COPY_BYTES,
    target: pinned ? 50 : 25,
    peer: { kind: direction, pinned },
    setup: () => ({ host: hostBuffer(COPY_BYTES, pinned), dev: driver.memAlloc(COPY_BYTES) }),
    run: h2d
      ? ({ host, dev }) => driver.memcpyHtod(dev, host)
      : ({ host, dev }) => driver.memcpyDtoh(host, dev),
    teardown: ({ dev }) => dev.free(),
  };
}

module.exports = [
  {
    op: 'launch empty kernel',
    size: 'grid 1, block 1',
    unit: 'us',
    iters: LAUNCHES,
    target: 3.5,
    peer: { kind: 'launch' },
    setup: () => new SourceModule('__global__ void empty() {}').getFunction('empty'),
    run: (empty) => {
      for (let i = 0; i < LAUNCHES; i++) empty(ONE_THREAD);
    },
  },
  copyCase('h2d', false),
  copyCase('d2h', false),
  copyCase('h2d', true),
  copyCase('d2h', true),
  {
    op: 'alloc+free',
    size: '4 KiB',
    unit: 'us',
    iters: ALLOCS,
    bytes: ALLOC_BYTES,
    target: 1.5,
    peer: { kind: 'alloc' },
    run: () => {
      for (let i = 0; i < ALLOCS; i++) driver.memAlloc(ALLOC_BYTES).free();
    },
  },
];
