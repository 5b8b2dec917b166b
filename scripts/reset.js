#!/usr/bin/env node
// npm run reset: forgets what npm start kept (the embedded PostgreSQL and Redis, the demo product's keys).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const dataDir = path.resolve(__dirname, '..', process.env.EMBEDDED_DATA_DIR || '.data');
const pidFiles = [path.join(dataDir, 'postgres', 'postmaster.pid'), path.join(dataDir, 'redis', 'redis.pid')];
const running = pidFiles.some((file) => {
  try {
    process.kill(Number.parseInt(fs.readFileSync(file, 'utf8'), 10), 0);
    return true;
  } catch {
    return false;
  }
});
if (running) {
  console.error(`npm start is still running on ${path.relative(process.cwd(), dataDir)}: stop it (Ctrl-C) first, then run npm run reset again.`);
  process.exit(1);
}
fs.rmSync(dataDir, { recursive: true, force: true });
console.log(`Removed ${path.relative(process.cwd(), dataDir)}: the next npm start begins afresh.`);
