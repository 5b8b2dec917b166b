import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import testSetup from '../../test/support/global-setup';

/** The test suite's template database, and an empty results file for the table. */
export default async function globalSetup(): Promise<void> {
  const file = join(tmpdir(), `waitlist-bench-${process.pid}.jsonl`);
  rmSync(file, { force: true });
  process.env.BENCH_RESULTS = file;
  await testSetup();
}
