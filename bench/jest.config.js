/** Benchmarks: `npm run bench`. Not part of `npm test`; each reports ratios against a baseline of the same run. */
const base = require('../jest.config.js');

module.exports = {
  ...base,
  rootDir: '..',
  roots: ['<rootDir>/bench'],
  testRegex: '\\.bench\\.ts$',
  globalSetup: '<rootDir>/bench/support/global-setup.ts',
  reporters: ['default', '<rootDir>/bench/support/table-reporter.js'],
  testSequencer: '<rootDir>/bench/support/scale-last.js',
  testTimeout: 1_800_000,
};
