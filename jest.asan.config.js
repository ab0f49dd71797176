/**
 * npm run test:asan: the native layer under AddressSanitizer + UBSan against the CPU driver
 * double (test/fakecuda), no GPU needed. Scripts run in child processes (test/asan/fake.ts);
 * this Jest process itself is not instrumented.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/asan'],
  testMatch: ['**/*.asan.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  testTimeout: 180000,
};
