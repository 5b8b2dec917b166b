/** Benchmarks: `npm run bench`. Not part of `npm test`; each reports ratios against a baseline of the same run. */
const base = require('../jest.config.js');

module.exports = {
  ...base,
  rootDir: '..',
  roots: ['<rootDir>/bench'],
  testRegex: '\\.bench\\.ts$',
  reporters: ['default'],
  testTimeout: 600_000,
};
