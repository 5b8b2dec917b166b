import { nodeTooOld } from './node-version';

// Imported first by every entry point: an older Node.js fails on Nest's ES modules with a stack trace.
const tooOld = nodeTooOld(process.versions.node);
if (tooOld) {
  console.error(tooOld);
  process.exit(1);
}
