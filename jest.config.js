/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  testTimeout: 60000,
  // Kernels compiled by the suite go to a temporary cache directory, not ~/.cache/nodecuda.
  globalSetup: '<rootDir>/test/setup/cache-dir.ts',
  globalTeardown: '<rootDir>/test/setup/cache-dir-teardown.ts',
};
