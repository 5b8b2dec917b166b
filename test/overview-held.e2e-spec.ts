import { WITHHOLDING_REASONS } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { HELD_BY_REASON } from '../apps/api/src/dashboard/overview/overview.service';
import { HeldByReason1795910800000 } from '../libs/shared/src/database/migrations/1795910800000-held-by-reason';
import { PASSWORD, signIn } from './support/dashboard';
import { Stack } from './support/stack';

/**
 * The overview's referrals held for review, by reason: each count stops at 1,000 and says "more than
 * 1,000" past it, so that the page reads the same few rows however many referrals wait (docs/decisions/bot-defence.md,
 * issue 35). The referrals are written in SQL: two thousand through the rules would take minutes.
 */
describe("the overview's referrals held for review", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'] });
  });
  afterAll(() => stack.stop());

  /** `count` withheld referrals of one referrer, each with these reasons; numbered from `from`. */
  async function withhold(productId: string, referrerId: string, from: number, count: number, reasons: string[]): Promise<void> {
    await stack.db.query(
      `WITH referred AS (
         INSERT INTO entries (id, product_id, mode, email, state, created_at)
         SELECT 'ent_held_' || i, $1, 'test', 'held-' || i || '@example.com', 'confirmed', now() FROM generate_series($3::int, $3::int + $4::int - 1) AS i
         RETURNING id, created_at)
       INSERT INTO referrals (id, product_id, mode, referrer_id, referred_id, state, reasons, created_at, confirmed_at, decided_at)
       SELECT 'rfl_' || id, $1, 'test', $2, id, 'withheld', $5::text[], created_at, created_at, created_at FROM referred`,
      [productId, referrerId, from, count, reasons],
    );
  }

  it('counts each reason exactly up to 1,000, says "more than 1,000" past it, and leaves out the revoked ones', async () => {
    const product = await stack.createProduct();
    await stack.db.query(`INSERT INTO entries (id, product_id, mode, email, state, created_at) VALUES ('ent_host', $1, 'test', 'host@example.com', 'confirmed', now())`, [
      product.id,
    ]);
    await withhold(product.id, 'ent_host', 1, 1001, ['network_velocity']);
    // A referral held for several reasons counts under each.
    await withhold(product.id, 'ent_host', 2001, 1000, ['too_fast', 'referral_burst']);
    await withhold(product.id, 'ent_host', 4001, 3, ['disposable_domain']);
    await withhold(product.id, 'ent_host', 5001, 2, ['disposable_domain', 'revoked_by_team']);
    await stack.db.query(`UPDATE referrals SET reasons = '{referral_burst}' WHERE id = 'rfl_ent_held_2001'`);

    await stack.api.get(DashboardAuthService).createUser('held-team@example.com', PASSWORD, product.id);
    const { cookie } = await signIn(stack, 'held-team@example.com');
    const page = (await stack.request({ method: 'GET', url: `/dashboard/${product.id}/test/overview`, headers: { cookie } })).text;
    const section = /<h2>Referrals held for review<\/h2>([\s\S]*?)<\/table>/.exec(page)?.[1] ?? '';
    const rows = [...section.matchAll(/<tr><td>([^<]*)<\/td><td[^>]*>([^<]*)<\/td><\/tr>/g)].map(([, words, count]) => [words, count]);
    expect(rows).toEqual([
      ['too many from one network', 'more than 1,000'],
      ['too many sign-ups through one link in an hour', '1,000'],
      ['confirmed faster than a person can', '999'],
      ['a disposable or blocked domain', '3'],
    ]);
  });

  it("reads each reason from its own index, which the migration's down drops and up makes again", async () => {
    const runner = stack.db.createQueryRunner();
    const indexesUsed = async (): Promise<string[]> => {
      await runner.startTransaction();
      try {
        // Without a scan of the whole table to fall back on, a predicate the planner cannot match shows as another index.
        await runner.query(`SET LOCAL enable_seqscan = off`);
        const plan: { 'QUERY PLAN': string }[] = await runner.query(`EXPLAIN ${HELD_BY_REASON}`, ['prod_none', 'test']);
        return [...plan.map((row) => row['QUERY PLAN']).join('\n').matchAll(/(?:using|Scan on) (\w+)/g)].map(([, index]) => index);
      } finally {
        await runner.rollbackTransaction();
      }
    };
    try {
      expect(await indexesUsed()).toEqual(WITHHOLDING_REASONS.map((reason) => `referrals_held_${reason}`));
      const migration = new HeldByReason1795910800000();
      await migration.down(runner);
      expect(await indexesUsed()).not.toContain('referrals_held_too_fast');
      await migration.up(runner);
      expect(await indexesUsed()).toEqual(WITHHOLDING_REASONS.map((reason) => `referrals_held_${reason}`));
    } finally {
      await runner.release();
    }
  });
});
