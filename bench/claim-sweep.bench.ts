import { ClaimWindowSweep } from '../apps/api/src/claim-window/claim-window.service';
import { Product, Stack } from '../test/support/stack';
import { alternate, atMost, Measure, report, seconds, timed } from './support/harness';
import { seedEntries } from './support/scale';

const COUNT = Number(process.env.BENCH_EXPIRING ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The service's expiry batch (EXPIRY_BATCH in claim-window.service.ts), which the baseline uses too. */
const BATCH = 500;

/**
 * The maintenance round's claim-window sweep of 100,000 invitations whose window ended (back_in_line),
 * next to the same writes as bare SQL in batches of the same size. Rounds alternate; before each, the
 * same 100,000 entries are made invited again with their windows ended, outside the clock.
 */
describe('claim-window sweep of 100,000 expiring invitations', () => {
  let stack: Stack;
  let product: Product;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { MAINTENANCE_INTERVAL: '1h' } });
    product = await stack.createProduct();
    await stack.db.query(`UPDATE products SET claim_window_days = 7, claim_expiry = 'back_in_line' WHERE id = $1`, [product.id]);
    await seedEntries(stack.db, { productId: product.id, mode: 'live', count: COUNT, states: { pending: 0, confirmed: 0, invited: 1, redeemed: 0 }, prefix: 'exp' });
  });
  afterAll(() => stack?.stop());

  it(`expires ${COUNT.toLocaleString('en-US')} invitations within 2× the time of the same writes as bare SQL`, async () => {
    const result = await alternate(ROUNDS, baseline, service);
    report({
      work: 'claim-window sweep of 100,000 expired invitations (back in line, events, history)',
      baseline: 'the same writes as bare SQL, batches of 500',
      baselineValue: seconds(result.baseline),
      serviceValue: seconds(result.service),
      ...atMost(result.ratio, 2),
      note: COUNT === 100_000 ? undefined : `${COUNT} invitations (BENCH_EXPIRING)`,
    });
  });

  /** Every entry of the product invited again, its code's window ended a minute ago; no events, outbox rows or history of earlier rounds. */
  async function expiring(): Promise<void> {
    await stack.db.query(`DELETE FROM events WHERE product_id = $1`, [product.id]);
    await stack.db.query(`DELETE FROM outbox WHERE queue = 'webhooks'`);
    await stack.db.query(`DELETE FROM place_history WHERE entry_id IN (SELECT id FROM entries WHERE product_id = $1)`, [product.id]);
    await stack.db.query(`UPDATE entries SET state = 'invited' WHERE product_id = $1`, [product.id]);
    await stack.db.query(
      `UPDATE invite_codes SET claim_ends_at = now() - interval '1 minute', expires_at = now() - interval '1 minute'
       WHERE entry_id IN (SELECT id FROM entries WHERE product_id = $1)`,
      [product.id],
    );
    await stack.db.query('VACUUM (ANALYZE) entries, invite_codes');
  }

  async function expectAllBackInLine(): Promise<void> {
    const [counts]: { invited: number; events: number; ended: number }[] = await stack.db.query(
      `SELECT (SELECT count(*)::int FROM entries WHERE product_id = $1 AND state = 'invited') AS invited,
              (SELECT count(*)::int FROM events WHERE product_id = $1 AND type = 'entry.invitation_expired') AS events,
              (SELECT count(*)::int FROM invite_codes WHERE claim_ends_at IS NOT NULL) AS ended`,
      [product.id],
    );
    expect(counts).toEqual({ invited: 0, events: COUNT, ended: 0 });
  }

  async function service(): Promise<Measure> {
    await expiring();
    const measure = await timed(async () => expect((await stack.api.get(ClaimWindowSweep).sweep()).expired).toBe(COUNT));
    await expectAllBackInLine();
    return measure;
  }

  /**
   * What a hand-written sweep with nothing but its writes would do, one transaction per batch: the
   * entries back to confirmed at their key, their codes done with, and per entry an event (its body
   * built by PostgreSQL), a fan-out outbox row and a history row. No locks beyond the updates' own, no
   * check of another working code, no ORM, no day counts.
   */
  async function baseline(): Promise<Measure> {
    await expiring();
    const measure = await timed(async () => {
      for (let done = BATCH; done === BATCH; ) {
        done = await stack.db.transaction(async (manager) => {
          const [rows]: [{ id: string }[], number] = await manager.query(
            `WITH due AS (
               SELECT hash, entry_id FROM invite_codes WHERE claim_ends_at <= now() ORDER BY claim_ends_at LIMIT $1
             ), codes AS (
               UPDATE invite_codes c SET claim_ends_at = NULL, remind_at = NULL, sealed_code = NULL FROM due WHERE c.hash = due.hash
             )
             UPDATE entries e SET state = 'confirmed' FROM due WHERE e.id = due.entry_id AND e.state = 'invited'
             RETURNING e.id`,
            [BATCH],
          );
          const ids = rows.map((row) => row.id);
          await manager.query(
            `WITH made AS (
               INSERT INTO events (id, product_id, mode, type, created_at, body)
               SELECT 'evt_' || md5(random()::text || id), product_id, mode, 'entry.invitation_expired', now(),
                      jsonb_build_object('type', 'entry.invitation_expired', 'data', jsonb_build_object('entry', jsonb_build_object(
                        'id', id, 'email', email, 'state', state, 'createdAt', created_at, 'confirmedAt', confirmed_at, 'invitedAt', invited_at,
                        'redeemedAt', redeemed_at, 'referralCode', referral_code, 'referrals', referrals)))::text
               FROM entries WHERE id = ANY($1) RETURNING id
             ), history AS (
               INSERT INTO place_history (entry_id, at, cause, places) SELECT id, now(), 'invitation_expired', 0 FROM entries WHERE id = ANY($1)
             )
             INSERT INTO outbox (queue, name, data, created_at) SELECT 'webhooks', 'fan-out', jsonb_build_object('eventId', id), now() FROM made`,
            [ids],
          );
          return rows.length;
        });
      }
    });
    await expectAllBackInLine();
    return measure;
  }
});
