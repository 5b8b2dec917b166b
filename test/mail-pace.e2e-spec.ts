import { APP_CONFIG, AppConfig, Clock, DomainPace, parseDomainPace, RedisClient } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { ProductsService } from '../apps/api/src/products/products.service';
import { PASSWORD, signIn } from './support/dashboard';
import { bearer, signUp } from './support/flows';
import { invitationStack, seedLine } from './support/invitations';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

const PACE = 'a.example=1/1m,b.example=2/1m,*=3/1m';
const DOMAINS = ['a.example', 'b.example', 'c.example'];
const PACE_OF: Record<string, number> = { 'a.example': 1, 'b.example': 2, 'c.example': 3 };

/** MAIL_DOMAIN_PACE and a product's mail quota, on a clock the test moves (never a timed assertion). */
describe('mail pace and quota', () => {
  let stack: Stack;
  let product: Product;
  let now: Date;

  beforeAll(async () => {
    ({ stack, product } = await invitationStack({ env: { MAIL_DOMAIN_PACE: PACE } }));
    // The start of a minute, in the middle of an hour: every window the test uses begins here.
    now = new Date('2026-11-30T08:30:00.000Z');
    for (const clock of [stack.api.get(Clock), stack.worker('mailer').get(Clock)]) jest.spyOn(clock, 'now').mockImplementation(() => new Date(now));
  });
  afterAll(() => stack.stop());

  const domainOf = (address: string) => address.slice(address.indexOf('@') + 1);
  const sentSince = (from: number) => stack.mail.mails.slice(from).map((mail) => domainOf(mail.to));
  const perDomain = (domains: string[]) => Object.fromEntries(DOMAINS.map((domain) => [domain, domains.filter((one) => one === domain).length]));

  it('takes a place per mail in its domain window, across pacers, and says when the next window opens', async () => {
    // Two mailers' pacers on the same Redis share the window.
    const config = parseDomainPace(PACE);
    if (typeof config === 'string') throw new Error(config);
    const redis = stack.worker('mailer').get<RedisClient>(RedisClient);
    const prefix = `${stack.worker('mailer').get<AppConfig>(APP_CONFIG).QUEUE_PREFIX}-unit`;
    const [one, two] = [new DomainPace(redis, prefix, config), new DomainPace(redis, prefix, config)];
    const at = Date.parse('2026-11-30T09:00:10.000Z');
    expect(await one.take('b.example', at)).toBe(0);
    expect(await two.take('B.example', at + 1000)).toBe(0);
    expect(await one.take('b.example', at + 2000)).toBe(48_000);
    // The next window has room again; other domains have their own.
    expect(await two.take('b.example', at + 50_000)).toBe(0);
    expect(await one.take('c.example', at)).toBe(0);
    expect(await one.take('d.example', at)).toBe(0);
    // Without a pace for the domain (no `*`), nothing is counted.
    const unpaced = new DomainPace(redis, prefix, { domains: new Map() });
    for (let i = 0; i < 5; i++) expect(await unpaced.take('b.example', at)).toBe(0);
  });

  it("a release to 3 receiving domains keeps each domain's pace and the quota", async () => {
    const scope = { productId: product.id, mode: 'test' as const };
    const entries = await seedLine(stack, scope, 30, 'paced');
    // In line order a, b, c, a, b, c, …
    await stack.db.query(`UPDATE entries SET email = v.email FROM unnest($1::text[], $2::text[]) AS v (id, email) WHERE entries.id = v.id`, [
      entries.map((entry) => entry.id),
      entries.map((entry, i) => `${entry.email.split('@')[0]}@${DOMAINS[i % 3]}`),
    ]);
    await stack.api.get(ProductsService).update(product.id, { mailQuotaHourly: 12, mailQuotaDaily: 20 });
    const release = (
      await stack.request({ method: 'POST', url: '/api/v1/releases', body: { count: 20, pattern: '0 9 * * 1', timeZone: 'UTC', paused: true }, headers: bearer(product.keys.test.secret) })
    ).json();
    const run = async () => (await stack.request({ method: 'POST', url: `/api/v1/releases/${release.id}/run`, headers: bearer(product.keys.test.secret) })).json();
    const invitedCount = async () => (await stack.db.query(`SELECT count(*)::int AS n FROM entries WHERE product_id = $1 AND state = 'invited'`, [product.id]))[0].n;

    // 08:30: the hour's quota lets 12 of 20 through, 4 to each domain; each domain's pace lets 1, 2 and 3 of them out.
    let from = stack.mail.mails.length;
    const first = await run();
    expect(first).toMatchObject({ asked: 20, invited: 6, failed: 6, skippedForQuota: 8 });
    expect(perDomain(sentSince(from))).toEqual(PACE_OF);
    // A mail put off by its pace was never sent: its entry is still in line, with no code.
    expect(await invitedCount()).toBe(6);
    expect((await stack.db.query(`SELECT count(*)::int AS n FROM invite_codes c JOIN entries e ON e.id = c.entry_id WHERE e.product_id = $1`, [product.id]))[0].n).toBe(6);

    // Each minute after, the domains' windows open again and the hour has room for what its quota has left,
    // counting only the mails that went out, until the quota is used up.
    let invitedThisHour = first.invited;
    for (let minute = 31; invitedThisHour < 12; minute++) {
      expect(minute).toBeLessThan(45);
      now = new Date(`2026-11-30T08:${minute}:00.000Z`);
      from = stack.mail.mails.length;
      const next = await run();
      expect(next).toMatchObject({ asked: 20, skippedForQuota: 20 - (12 - invitedThisHour) });
      const sent = perDomain(sentSince(from));
      for (const domain of DOMAINS) expect(sent[domain]).toBeLessThanOrEqual(PACE_OF[domain]);
      expect(next.invited).toBe(sentSince(from).length);
      invitedThisHour += next.invited;
    }
    expect(invitedThisHour).toBe(12);

    // The hour's quota used up: the whole count waits for the next hour, and nothing is sent.
    now = new Date('2026-11-30T08:59:00.000Z');
    from = stack.mail.mails.length;
    expect(await run()).toMatchObject({ invited: 0, failed: 0, skippedForQuota: 20 });
    expect(sentSince(from)).toEqual([]);

    // 09:00: a new hour, and the day's quota (20) has 8 left.
    now = new Date('2026-11-30T09:00:00.000Z');
    from = stack.mail.mails.length;
    const fourth = await run();
    expect(fourth).toMatchObject({ asked: 20, skippedForQuota: 12 });
    expect(fourth.invited).toBeGreaterThan(0);
    for (const domain of DOMAINS) expect(perDomain(sentSince(from))[domain]).toBeLessThanOrEqual(PACE_OF[domain]);
    expect(await invitedCount()).toBeLessThanOrEqual(20);

    // The dashboard's runs page says what the quota left for later.
    await stack.api.get(DashboardAuthService).createUser('pacer@example.com', PASSWORD, product.id);
    const { cookie } = await signIn(stack, 'pacer@example.com');
    const page = (await stack.request({ method: 'GET', url: `/dashboard/${product.id}/test/releases/${release.id}`, headers: { cookie } })).text;
    expect(page).toContain('12 left for a later run by the mail quota');
    // And the question before a run now names the quota's room among its bounds.
    const ask = (await stack.request({ method: 'GET', url: `/dashboard/${product.id}/test/releases/${release.id}/run`, headers: { cookie } })).text;
    expect(ask).toMatch(/the mail quota leaves room for (\d+ mails?|0 mails) this hour and day/);
  });

  it('a confirmation mail over its pace waits in its outbox row, no attempt spent, until the window opens', async () => {
    const pk = product.keys.live.publishable;
    now = new Date('2026-11-30T10:00:00.000Z');
    await signUp(stack, pk, 'first@a.example');
    await waitFor(() => stack.mail.to('first@a.example').length === 1, 'the first confirmation mail');
    await signUp(stack, pk, 'second@a.example');
    const rowOf = async () =>
      (
        await stack.db.query(
          // Put off to the next minute's window, not claimed (a claim leases the row for 2 minutes).
          `SELECT o.attempts, o.leased_until BETWEEN now() + interval '30 seconds' AND now() + interval '60 seconds' AS waiting
           FROM outbox o JOIN entries e ON e.id = o.data->>'entryId' WHERE o.queue = 'mail' AND e.email = $1`,
          ['second@a.example'],
        )
      )[0];
    await waitFor(async () => (await rowOf())?.waiting === true, 'the second mail put off for its pace');
    expect(await rowOf()).toEqual({ attempts: 0, waiting: true });
    expect(stack.mail.to('second@a.example')).toEqual([]);

    // The next minute, its row due again: it goes out.
    now = new Date('2026-11-30T10:01:00.000Z');
    await stack.db.query(`UPDATE outbox SET leased_until = now() WHERE queue = 'mail'`);
    await waitFor(() => stack.mail.to('second@a.example').length === 1, 'the second confirmation mail');
  });
});
