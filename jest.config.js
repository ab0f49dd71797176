/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  // A hang guard, not a speed check: the suite compiles every generated kernel with NVRTC into a
  // fresh temporary cache, and on a 2-core machine the first test of a codegen file waits for
  // hundreds of concurrent compiles.
  testTimeout: 300000,
  // GL files first, files that fault the GPU on purpose last (why: test/setup/sequencer.js).
  testSequencer: '<rootDir>/test/setup/sequencer.js',
  // Kernels compiled by the suite go to a temporary cache directory, not ~/.cache/nodecuda.
  globalSetup: '<rootDir>/test/setup/cache-dir.ts',
  globalTeardown: '<rootDir>/test/setup/cache-dir-teardown.ts',
};
