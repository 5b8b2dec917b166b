import { TAKE_MY_DATA_MAILS } from '../apps/mailer/src/my-data-mails';
import { TAKE_REMINDERS } from '../apps/mailer/src/reminder-mails';
import { nodes } from './support/plans';
import { Stack } from './support/stack';

/**
 * The mailer polls the outbox for its rarer queues every quarter of a second while they are empty. On
 * launch day the outbox holds tens of thousands of rows of other queues (the events waiting for their
 * webhooks, the confirmation mails), and a poll that read them all cost 35 ms of PostgreSQL each
 * (docs/decisions/mail.md, "Each rarer queue the mailer polls has an index of its own").
 */
describe('the outbox polls of the mailer', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: [] });
    await stack.db.query(
      `INSERT INTO outbox (queue, name, data, created_at) SELECT 'webhooks', 'fan-out', jsonb_build_object('eventId', 'evt_' || i), now() FROM generate_series(1, 20000) i`,
    );
    await stack.db.query(`INSERT INTO outbox (queue, name, data, created_at) SELECT 'mail', 'confirmation', jsonb_build_object('entryId', 'ent_' || i), now() FROM generate_series(1, 5000) i`);
    await stack.db.query('ANALYZE outbox');
  });
  afterAll(() => stack?.stop());

  const outboxReads = async (statement: string): Promise<(string | undefined)[]> => {
    const [{ 'QUERY PLAN': plan }] = await stack.db.query(`EXPLAIN (FORMAT JSON) ${statement}`, [20]);
    return nodes(plan[0].Plan)
      .filter((node) => node['Relation Name'] === 'outbox' && node['Node Type'] !== 'ModifyTable')
      .map((node) => node['Index Name'] ?? node['Node Type']);
  };

  it.each([
    ['my-data mails', TAKE_MY_DATA_MAILS, 'outbox_personal_data'],
    ['reminders', TAKE_REMINDERS, 'outbox_reminders'],
  ])('%s: a scan of its own index, never of the outbox', async (_, statement, index) => {
    const reads = await outboxReads(statement);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.filter((read) => read !== index && read !== 'outbox_pkey')).toEqual([]);
  });
});
