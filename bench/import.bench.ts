import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import type { CsvRecord } from '../apps/api/src/imports/csv-records';
import { ImportsService } from '../apps/api/src/imports/imports.service';
import { Stack } from '../test/support/stack';
import { alternate, Measure, report, reportMegabytes, seconds, withinSeconds } from './support/harness';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
/** Set: the rows go as CSV bytes through the CSV reader (csv-parse), as the API's body does. */
const AS_CSV = process.env.BENCH_IMPORT_CSV === '1';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The mark: 100,000 rows in under a minute. */
const MARK_SECONDS = 60;
/** What the import may add to the process's resident memory at its peak, whatever the file's length. */
const MEMORY_MARK_MB = 100;
const HEADER = ['email', 'created_at', 'referral_token', 'referred_by', 'amount_referred', 'verified'];
const DAY_MS = 86_400_000;

/**
 * A GetWaitlist export of `count` rows, made as it is read (never held whole): a year of sign-ups,
 * every tenth referred by the row seven before it, referral counts 0–4, a pending address every 20th.
 */
async function* exportOf(prefix: string, count: number): AsyncGenerator<CsvRecord> {
  yield { line: 1, fields: HEADER };
  const start = Date.UTC(2025, 0, 1);
  for (let i = 0; i < count; i++) {
    const referrer = i % 10 === 9 ? `${prefix}c${i - 7}` : '';
    const fields = [`${prefix}${i}@example.com`, new Date(start + Math.floor((i * 365 * DAY_MS) / count)).toISOString(), `${prefix}c${i}`, referrer, String(i % 5), i % 20 === 0 ? 'false' : 'true'];
    yield { line: i + 2, fields };
  }
}

/** The same export as CSV bytes, a line at a time. */
async function* bytesOf(records: AsyncIterable<CsvRecord>): AsyncGenerator<Buffer> {
  for await (const record of records) yield Buffer.from(`${record.fields.join(',')}\n`);
}

/** The process's resident memory now and at its peak since the last reset, in MB (/proc/self/status). */
function memory(): { rss: number; peak: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const mb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)![1]) / 1024;
  return { rss: mb('VmRSS'), peak: mb('VmHWM') };
}

/** Starts a new peak-memory window (Linux: writing 5 to clear_refs resets VmHWM to the current RSS). */
function resetPeak(): void {
  writeFileSync('/proc/self/clear_refs', '5');
}

/**
 * An import of 100,000 rows of a GetWaitlist export through ImportsService (what the API, the CLI and
 * the dashboard call), next to the bare floor of writing the same rows: batched INSERT … SELECT FROM
 * unnest into entries. The rows are handed over as records (csv-parse, the CSV reader, is not a
 * dependency yet); with BENCH_IMPORT_CSV=1 they go as CSV bytes through it.
 */
describe('import of a waitlist', () => {
  let stack: Stack;
  let round = 0;
  const peaks: number[] = [];

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'] });
  });
  afterAll(() => stack?.stop());

  async function service(): Promise<Measure> {
    const product = await stack.createProduct();
    const prefix = `r${round++}-`;
    global.gc?.();
    const before = memory();
    resetPeak();
    const start = performance.now();
    const imports = stack.api.get(ImportsService);
    const scope = { productId: product.id, mode: 'test' as const };
    const options = { dryRun: false, state: 'confirmed' as const, confirmationMails: false, events: false, requestId: 'bench' };
    const result = AS_CSV
      ? await imports.importCsv(scope, Readable.from(bytesOf(exportOf(prefix, ROWS))), options)
      : await imports.importRecords(scope, exportOf(prefix, ROWS), options);
    const ms = performance.now() - start;
    peaks.push(memory().peak - before.rss);
    expect(result).toMatchObject({ rows: ROWS, created: ROWS, invalid: 0 });
    const [{ waiting }] = await stack.db.query(`SELECT count(*)::int AS waiting FROM entries WHERE product_id = $1 AND state = 'confirmed'`, [product.id]);
    expect(waiting).toBe(ROWS - ROWS / 20);
    process.stdout.write(`service  ${ROWS} rows imported in ${seconds(ms)}, peak ${Math.round(peaks.at(-1)!)} MB over the RSS before\n`);
    return { kind: 'time', ms };
  }

  async function bare(): Promise<Measure> {
    const product = await stack.createProduct();
    const prefix = `b${round++}-`;
    const start = performance.now();
    let batch: string[][] = [];
    const flush = async () => {
      await stack.db.query(
        `INSERT INTO entries (id, product_id, mode, email, state, created_at, referral_code, referrals, moved_up)
         SELECT 'ent_' || md5(email), $1, 'test', email, 'confirmed', created_at, code, 0, 0
         FROM unnest($2::text[], $3::timestamptz[], $4::text[]) AS r (email, created_at, code)`,
        [product.id, batch.map((fields) => fields[0]), batch.map((fields) => fields[1]), batch.map((fields) => fields[2])],
      );
      batch = [];
    };
    for await (const record of exportOf(prefix, ROWS)) {
      if (record.line === 1) continue;
      batch.push(record.fields);
      if (batch.length === 2000) await flush();
    }
    if (batch.length) await flush();
    const ms = performance.now() - start;
    process.stdout.write(`baseline ${ROWS} rows inserted in ${seconds(ms)}\n`);
    return { kind: 'time', ms };
  }

  it(`imports ${ROWS.toLocaleString('en-US')} rows within ${MARK_SECONDS} s, its memory flat`, async () => {
    const result = await alternate(ROUNDS, bare, service);
    report({
      work: `import of a ${ROWS.toLocaleString('en-US')}-row GetWaitlist export (${AS_CSV ? 'CSV bytes through csv-parse' : 'records'}; referrals linked, codes kept, line numbers and keys), one transaction`,
      baseline: 'bare batched INSERT … SELECT FROM unnest of the same rows',
      baselineValue: seconds(result.baseline),
      serviceValue: seconds(result.service),
      ...withinSeconds(result.service, result.baseline, MARK_SECONDS),
    });
    reportMegabytes(
      `peak RSS added by an import of ${ROWS.toLocaleString('en-US')} rows`,
      Math.max(...peaks),
      MEMORY_MARK_MB,
      'the jest process\'s peak resident memory during an import, over its resident memory before (largest of the rounds)',
    );
  });
});
