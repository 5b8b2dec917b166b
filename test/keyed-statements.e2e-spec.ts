import { markHandedOver, newId, removeOutboxRows } from '@app/shared';
import { createHash } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import { PENDING_MAILS } from '../apps/mailer/src/mail-sender';
import { seedLine } from './support/invitations';
import { nodes } from './support/plans';
import { Stack } from './support/stack';

const BURST = 3000;
const hashOf = (id: string) => createHash('sha256').update(id).digest();

/**
 * The statements that find rows by key read them by key whatever the table's statistics said when a
 * connection first ran them: a release grows invite_codes, and a backlog of mails the outbox, from a
 * few rows to thousands faster than autovacuum analyses them (docs/decisions/invitations.md, "Marks
 * and deletions planned for their keys"). The mark and the deletion run several times on one
 * connection while their table is small and analysed; the table grows, and the next call's scans are
 * counted from the connection's own counters of its transaction. The batch of confirmation mails,
 * planned at each call, is checked by its plan after entries grew past its statistics.
 */
describe('statements on rows by key, after a burst', () => {
  let stack: Stack;
  let runner: QueryRunner;
  let entryIds: string[];
  let productId: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'] });
    const product = await stack.createProduct();
    productId = product.id;
    entryIds = (await seedLine(stack, { productId: product.id, mode: 'live' }, BURST, 'keyed')).map((entry) => entry.id);
    runner = stack.db.createQueryRunner();
  });
  afterAll(async () => {
    await runner?.release();
    await stack?.stop();
  });

  /**
   * The sequential and index scans of `table` that `work` makes on the runner's connection: the
   * connection's counters not yet reported, read before and after it in one transaction (a connection
   * reports them only between transactions).
   */
  async function scansOf(table: string, work: () => Promise<unknown>): Promise<{ sequential: number; index: number }> {
    const counts = async () => {
      const [row]: { seq_scan: string; idx_scan: string }[] = await runner.query(`SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables WHERE relname = $1`, [table]);
      return { sequential: Number(row.seq_scan), index: Number(row.idx_scan) };
    };
    await runner.startTransaction();
    try {
      const before = await counts();
      await work();
      const after = await counts();
      return { sequential: after.sequential - before.sequential, index: after.index - before.index };
    } finally {
      await runner.rollbackTransaction();
    }
  }

  it('marking handed over reads invite_codes by their hashes', async () => {
    const codes = (ids: string[]) =>
      stack.db.query(
        `INSERT INTO invite_codes (hash, entry_id, recorded, expires_at, created_at) SELECT sha256(id::bytea), id, false, now() + interval '1 day', now() FROM unnest($1::text[]) AS e(id)`,
        [ids],
      );
    await codes(entryIds.slice(0, 100));
    await stack.db.query('ANALYZE invite_codes');
    for (const id of entryIds.slice(0, 8)) await markHandedOver(runner, [hashOf(id)]);
    await codes(entryIds.slice(100));

    const scans = await scansOf('invite_codes', () => markHandedOver(runner, [hashOf(entryIds[2000]), hashOf(entryIds[2001])]));

    expect(scans.sequential).toBe(0);
    expect(scans.index).toBeGreaterThan(0);
  });

  it('deleting done rows reads the outbox by their ids', async () => {
    const rows = async (count: number): Promise<string[]> =>
      (
        await stack.db.query(`INSERT INTO outbox (queue, name, data, created_at) SELECT 'mail', 'confirmation', '{}', now() FROM generate_series(1, $1) RETURNING id`, [count])
      ).map((row: { id: string }) => row.id);
    const first = await rows(100);
    await stack.db.query('ANALYZE outbox');
    for (const id of first.slice(0, 8)) await removeOutboxRows(runner, [id]);
    const burst = await rows(BURST);

    const scans = await scansOf('outbox', () => removeOutboxRows(runner, burst.slice(2000, 2002)));

    expect(scans.sequential).toBe(0);
    expect(scans.index).toBeGreaterThan(0);
  });

  it('a batch of confirmation mails reads its entries by id, not every pending entry', async () => {
    const pending = async (count: number): Promise<string[]> => {
      const ids = Array.from({ length: count }, () => newId('ent'));
      await stack.db.query(
        `INSERT INTO entries (id, product_id, mode, email, state, created_at) SELECT id, $2, 'live', id || '@example.com', 'pending', now() FROM unnest($1::text[]) AS e(id)`,
        [ids, productId],
      );
      return ids;
    };
    await pending(20);
    await stack.db.query('ANALYZE entries');
    const batch = (await pending(BURST)).slice(1000, 1030);

    const [{ 'QUERY PLAN': plan }] = await stack.db.query(`EXPLAIN (FORMAT JSON) ${PENDING_MAILS}`, [batch, [], [], [], new Date()]);
    // How entries is read: an index's name (a bitmap scan names it on its child), else the scan.
    const reads = nodes(plan[0].Plan)
      .filter((node) => node['Index Name']?.startsWith('entries') || (node['Relation Name'] === 'entries' && node['Node Type'] !== 'Bitmap Heap Scan'))
      .map((node) => node['Index Name'] ?? node['Node Type']);

    expect(reads).toEqual(['entries_pkey']);
  });
});
