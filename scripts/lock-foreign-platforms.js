#!/usr/bin/env node
// The npm registry mirror of our machines serves only the linux-x64 builds of packages that ship one
// package per platform (@swc/core-*, @msgpackr-extract/*, @unrs/resolver-binding-*), so `npm install`
// leaves the other platforms out of package-lock.json and `npm ci` then refuses the lock as out of
// sync. Run this after `npm install` changes the lock: it records the missing platform packages as
// optional entries with their os/cpu, which npm skips on every other platform without fetching them.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el'];

let added = 0;
for (const [where, meta] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = `${where ? `${where}/` : ''}node_modules/${name}`;
    if (lock.packages[nested] || lock.packages[`node_modules/${name}`]) continue;
    const parts = name.split('/').pop().split('-');
    const os = OS.find((candidate) => parts.includes(candidate));
    const cpu = CPU.find((candidate) => parts.includes(candidate));
    if (!os || !cpu || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[`node_modules/${name}`] = { version, cpu: [cpu], os: [os], optional: true };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`Recorded ${added} platform packages missing from package-lock.json.`);
