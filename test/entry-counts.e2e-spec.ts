import { IN_LINE_ORDER } from '@app/shared';
import { OverviewService } from '../apps/api/src/dashboard/overview/overview.service';
import { MaintenanceService } from '../apps/api/src/maintenance/maintenance.service';
import { ProductsService } from '../apps/api/src/products/products.service';
import { bearer, joinLine, signUp } from './support/flows';
import { api, invitationStack, InvitationApi, seedLine } from './support/invitations';
import { Product, Stack } from './support/stack';

/**
 * entry_counts and line_buckets (migration EntryCounts1763870400000) are what the overview, the line's
 * length and every place in line read: after any mix of concurrent changes they must equal a count of
 * the entries themselves.
 */
describe('kept entry counts and line buckets', () => {
  let stack: Stack;
  let product: Product;
  let client: InvitationApi;

  beforeAll(async () => {
    ({ stack, product, client } = await invitationStack({ mode: 'live' }));
  });
  afterAll(() => stack.stop());

  async function expectCountsExact(): Promise<void> {
    const [kept, counted, keptBuckets, countedBuckets] = await Promise.all([
      stack.db.query(
        `SELECT product_id, mode, sum(pending)::int AS pending, sum(confirmed)::int AS confirmed, sum(invited)::int AS invited, sum(redeemed)::int AS redeemed
         FROM entry_counts GROUP BY 1, 2 HAVING sum(pending + confirmed + invited + redeemed) > 0 ORDER BY 1, 2`,
      ),
      stack.db.query(
        `SELECT product_id, mode, count(*) FILTER (WHERE state = 'pending')::int AS pending, count(*) FILTER (WHERE state = 'confirmed')::int AS confirmed,
                count(*) FILTER (WHERE state = 'invited')::int AS invited, count(*) FILTER (WHERE state = 'redeemed')::int AS redeemed
         FROM entries GROUP BY 1, 2 ORDER BY 1, 2`,
      ),
      stack.db.query(`SELECT product_id, mode, bucket::int, waiting::int FROM line_buckets ORDER BY 1, 2, 3`),
      stack.db.query(
        `SELECT product_id, mode, line_bucket(line_key)::int AS bucket, count(*)::int AS waiting FROM entries
         WHERE state = 'confirmed' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      ),
    ]);
    expect(kept).toEqual(counted);
    expect(keptBuckets).toEqual(countedBuckets);
  }

  /** Every waiting entry's place as the API answers it, against a count of the entries ahead of it. */
  async function expectPlacesExact(productId: string, secret: string): Promise<void> {
    const waiting: { id: string; place: number }[] = await stack.db.query(
      `SELECT id, (row_number() OVER (ORDER BY ${IN_LINE_ORDER}))::int AS place FROM entries
       WHERE product_id = $1 AND mode = 'live' AND state = 'confirmed' ORDER BY ${IN_LINE_ORDER}`,
      [productId],
    );
    const sample = waiting.filter((_, i) => i % 7 === 0 || i === waiting.length - 1);
    for (const { id, place } of sample) {
      const answer = await stack.request({ method: 'GET', url: `/api/v1/entries/${id}/place`, headers: bearer(secret) });
      expect({ id, ...answer.json() }).toEqual({ id, place, lineLength: waiting.length, estimatedWaitDays: expect.anything() });
    }
  }

  it('equal a count of the entries after concurrent sign-ups, confirmations, referrals, invitations, redemptions, moves, deletions, purges and a new number of referral places', async () => {
    const scope = { productId: product.id, mode: 'live' as const };
    const secret = product.keys.live.secret;
    const pk = product.keys.live.publishable;
    // A line that spans stretches of line keys: confirmation numbers from 1,001 on cross 1,024.
    await stack.db.query(`INSERT INTO line_counters (product_id, mode, last_seq) VALUES ($1, 'live', 1000)`, [product.id]);
    const seeded = await seedLine(stack, scope, 120, 'seed');
    // Some invited with a code we know, some pending and old enough to be purged.
    const invited = seeded.slice(0, 10);
    await stack.db.query(`UPDATE entries SET state = 'invited', invited_at = now() WHERE id = ANY($1)`, [invited.map((entry) => entry.id)]);
    await stack.db.query(
      `INSERT INTO invite_codes (hash, entry_id, expires_at, created_at, recorded)
       SELECT sha256(convert_to('code-' || id, 'UTF8')), id, now() + interval '1 day', now(), true FROM unnest($1::text[]) AS id`,
      [invited.map((entry) => entry.id)],
    );
    for (let i = 0; i < 15; i++) await signUp(stack, pk, `old-${i}@example.com`);
    await stack.db.query(`UPDATE entries SET created_at = now() - interval '400 days' WHERE email LIKE 'old-%'`);
    // A second product's counts stay its own.
    const other = await stack.createProduct({ name: 'Other' });
    await seedLine(stack, { productId: other.id, mode: 'live' }, 30, 'other');
    await expectCountsExact();

    const ok = (statuses: number[]) => async (work: Promise<{ status: number; text: string }>) => {
      const answer = await work;
      if (!statuses.includes(answer.status)) throw new Error(`answered ${answer.status}: ${answer.text}`);
    };
    const remove = (id: string) => stack.request({ method: 'DELETE', url: `/api/v1/entries/${id}`, headers: bearer(secret) });
    const otherClient = api(stack, other.keys.live.secret);
    const waiting = seeded.slice(10);
    await Promise.all([
      // Sign-ups that confirm, half of them through the referral links of entries near 1,024.
      ...Array.from({ length: 16 }, (_, i) => joinLine(stack, pk, `new-${i}@example.com`, i % 2 ? waiting[10 + i].referralCode! : undefined)),
      ...Array.from({ length: 8 }, (_, i) => signUp(stack, pk, `pending-${i}@example.com`)),
      ok([200])(client.inviteNext(5)),
      ok([200])(client.inviteNext(5)),
      ok([200])(otherClient.inviteNext(4)),
      ...waiting.slice(30, 34).map((entry) => ok([200, 409])(client.invite(entry.id))),
      ...invited.slice(0, 6).map((entry) => ok([200])(client.redeem(`code-${entry.id}`))),
      ...waiting.slice(40, 46).map((entry, i) => ok([200, 409])(client.moveUp(entry.id, i % 2 ? 40 : 3000))),
      ...[...waiting.slice(50, 56), ...invited.slice(6, 8)].map((entry) => ok([204, 404])(remove(entry.id))),
      stack.api.get(MaintenanceService).runOnce(),
      stack.api.get(ProductsService).update(product.id, { name: 'Acme', senderName: null, inviteUrl: null, signupUrl: null, referralPlaces: 7 }),
    ]);
    await expectCountsExact();
    await expectPlacesExact(product.id, secret);
    await expectPlacesExact(other.id, other.keys.live.secret);
    expect(await stack.db.query(`SELECT count(*)::int AS old FROM entries WHERE email LIKE 'old-%'`)).toEqual([{ old: 0 }]);
  });

  it("a sign-up counts its own pending entry in its statement, exactly, beside concurrent sign-ups (some through referral links) and confirmations", async () => {
    const pk = product.keys.live.publishable;
    // What the sign-ups leave for the commit: a note that adds a pending entry comes only from a sign-up here.
    await stack.db.query(`CREATE TABLE pending_noted (delta bigint NOT NULL)`);
    await stack.db.query(`CREATE FUNCTION note_pending_noted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.state = 'pending' AND NEW.delta > 0 THEN INSERT INTO pending_noted VALUES (NEW.delta); END IF; RETURN NULL; END $$`);
    await stack.db.query(`CREATE TRIGGER pending_noted AFTER INSERT ON entry_count_changes FOR EACH ROW EXECUTE FUNCTION note_pending_noted()`);
    try {
      const [referrer] = await stack.db.query(`SELECT referral_code FROM entries WHERE product_id = $1 AND state = 'confirmed' LIMIT 1`, [product.id]);
      await Promise.all([
        ...Array.from({ length: 12 }, (_, i) => joinLine(stack, pk, `own-${i}@example.com`, i % 3 ? undefined : referrer.referral_code)),
        ...Array.from({ length: 24 }, (_, i) => signUp(stack, pk, `own-pending-${i}@example.com`, i % 4 ? undefined : referrer.referral_code)),
        // Again: a pending address written again is no new entry.
        ...Array.from({ length: 6 }, (_, i) => signUp(stack, pk, `own-pending-${i}@example.com`)),
      ]);
      expect(await stack.db.query(`SELECT count(*)::int AS notes FROM pending_noted`)).toEqual([{ notes: 0 }]);
      await expectCountsExact();
    } finally {
      await stack.db.query(`DROP TRIGGER pending_noted ON entry_count_changes; DROP TABLE pending_noted; DROP FUNCTION note_pending_noted()`);
    }
  });

  it('go with their product when it is deleted', async () => {
    const doomed = await stack.createProduct({ name: 'Doomed' });
    await seedLine(stack, { productId: doomed.id, mode: 'test' }, 20, 'doomed');
    await stack.db.query('DELETE FROM products WHERE id = $1', [doomed.id]);
    expect(await stack.db.query('SELECT * FROM entry_counts WHERE product_id = $1', [doomed.id])).toEqual([]);
    expect(await stack.db.query('SELECT * FROM line_buckets WHERE product_id = $1', [doomed.id])).toEqual([]);
    await expectCountsExact();
  });

  it('the overview shows them', async () => {
    const [counted] = await stack.db.query(
      `SELECT count(*) FILTER (WHERE state = 'pending')::int AS pending, count(*) FILTER (WHERE state = 'confirmed')::int AS confirmed,
              count(*) FILTER (WHERE state = 'invited')::int AS invited, count(*) FILTER (WHERE state = 'redeemed')::int AS redeemed
       FROM entries WHERE product_id = $1 AND mode = 'live'`,
      [product.id],
    );
    expect((await stack.api.get(OverviewService).load({ productId: product.id, mode: 'live' })).states).toEqual(counted);
  });
});
