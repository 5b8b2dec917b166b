const { availableParallelism } = require('node:os');

/** Unit tests beside the code (*.spec.ts), end-to-end tests under test/ (*.e2e-spec.ts). */
module.exports = {
  // The suites mostly wait on PostgreSQL, Redis, child processes and timers: on 2 cores two files at a
  // time take half as long as jest's default of one worker fewer than cores (150 s against 320 s).
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // Each e2e file loads the apps afresh in its own module registry. The environment closes what they
  // open process-wide, which kept every finished file's registry alive (a worker's heap grew until V8's
  // limit). No workerIdleMemoryLimit: a worker it replaces after the last file is started again, never
  // told to end, and killed ("A worker process has failed to exit gracefully").
  testEnvironment: '<rootDir>/test/support/node-environment.ts',
  // A worker that ends with a heap of 1–2 GB (each e2e file loads three apps) takes a few hundred ms to
  // free it as it exits, more while the other worker and jest still work beside it: past jest's 500 ms
  // it was killed and reported as "failed to exit gracefully", with nothing left open. A worker that
  // really hangs is still killed, later.
  workerGracefulExitTimeout: 10_000,
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test'],
  modulePathIgnorePatterns: ['<rootDir>/libs/client/dist'],
  testRegex: '\\.(e2e-)?spec\\.ts$',
  // Nest 12 and better-auth ship ESM only (better-auth as .mjs); swc turns them (and our TypeScript)
  // into CommonJS for jest on Node 20.
  transform: { '^.+\\.(t|m?j)s$': ['@swc/jest'] },
  transformIgnorePatterns: [],
  moduleNameMapper: {
    '^@app/shared$': '<rootDir>/libs/shared/src',
    '^@app/shared/(.*)$': '<rootDir>/libs/shared/src/$1',
    '^@waitlist/client$': '<rootDir>/libs/client/src',
    // libs/client is an ES module package: its relative imports name the .js files tsc emits.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30_000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
