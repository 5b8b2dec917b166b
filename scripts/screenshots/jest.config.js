/**
 * `npm run docs:screenshots`: the dashboard's main screens, rendered by the browser the end-to-end
 * tests drive, into docs/screenshots/. It runs on the test harness (a throwaway database, queue
 * prefix and SMTP sink), so it needs PostgreSQL, Redis and chromium, like `npm test`.
 */
const base = require('../../jest.config.js');

module.exports = {
  ...base,
  rootDir: '../..',
  roots: ['<rootDir>/scripts/screenshots'],
  testRegex: 'screenshots\\.ts$',
  reporters: ['default'],
  testTimeout: 120_000,
};
