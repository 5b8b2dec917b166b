import { EntryRecord, EventRecord, Referral } from '@app/shared';
import { ImportsService } from '../apps/api/src/imports/imports.service';
import { bearer, joinLine, signUp } from './support/flows';
import { fixture, importText } from './support/imports';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';

describe(ImportsService.name, () => {
  let stack: Stack;
  let product: Product;
  const scope = () => ({ productId: product.id, mode: 'test' as const });
  const entries = () => stack.db.getRepository(EntryRecord).find({ where: { productId: product.id, mode: 'test' }, order: { email: 'ASC' } });
  /** The waiting entries' addresses in line order. */
  const line = async () =>
    (await stack.db.query(`SELECT email FROM entries WHERE product_id = $1 AND mode = 'test' AND state = 'confirmed' ORDER BY line_key, (line_key = confirmation_seq), confirmation_seq`, [product.id])).map(
      (row: { email: string }) => row.email,
    );

  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(() => stack.stop());
  beforeEach(async () => {
    product = await stack.createProduct({ referralPlaces: 1 });
  });

  it('a dry run reports every row and each bad row with its line and reason, and writes nothing', async () => {
    const report = await importText(stack, scope(), fixture('getwaitlist.csv'), { dryRun: true });
    expect(report).toMatchObject({ dryRun: true, format: 'getwaitlist', rows: 4, created: 3, confirmed: 2, pending: 1, invalid: 1, existing: 0, suppressed: 0 });
    expect(report.problems).toEqual([{ line: 4, reason: 'invalid_email', message: expect.any(String) }]);
    expect(report.lines.map((row) => [row.line, row.outcome])).toEqual([[2, 'create'], [3, 'create'], [4, 'invalid'], [5, 'create']]);
    expect(await entries()).toEqual([]);
    expect(await stack.db.getRepository(EventRecord).countBy({ productId: product.id })).toBe(0);
  });

  it('imports a file once: a second import of it changes nothing', async () => {
    const first = await importText(stack, scope(), fixture('getwaitlist.csv'));
    expect(first).toMatchObject({ dryRun: false, created: 3 });
    const before = await entries();
    const second = await importText(stack, scope(), fixture('getwaitlist.csv'));
    expect(second).toMatchObject({ created: 0, existing: 3, invalid: 1 });
    expect(await entries()).toEqual(before);
  });

  it('imported entries keep their sign-up time and order among each other, behind everyone already waiting', async () => {
    await joinLine(stack, product.keys.test.publishable, 'early@example.com');
    const file = ['email,created_at,referral_token,amount_referred', 'c@example.com,2024-03-03T00:00:00Z,,0', 'a@example.com,2024-01-01T00:00:00Z,,0', 'b@example.com,2024-02-02T00:00:00Z,,0'].join('\n');
    await importText(stack, scope(), file);
    expect(await line()).toEqual(['early@example.com', 'a@example.com', 'b@example.com', 'c@example.com']);
    const a = (await entries()).find((entry) => entry.email === 'a@example.com')!;
    expect(a.createdAt).toEqual(new Date('2024-01-01T00:00:00Z'));
    const counts = await stack.request({ method: 'GET', url: `/api/v1/entries/${a.id}/place`, headers: bearer(product.keys.test.secret) });
    expect(counts.json()).toMatchObject({ place: 2, lineLength: 4 });
  });

  it('keeps the referral codes of the file, links referrers and credits the counts it gives', async () => {
    await importText(stack, scope(), fixture('getwaitlist.csv'));
    const [ada, grace, linus] = await entries();
    expect(ada).toMatchObject({ email: 'ada@example.com', state: 'confirmed', referralCode: 'ADA1ref', referrals: 2 });
    expect(grace).toMatchObject({ referralCode: 'GRACEref', referredBy: ada.id, referrals: 0 });
    // Pending: no code until it confirms, and its referral waits for that.
    expect(linus).toMatchObject({ email: 'linus@example.com', state: 'pending', referralCode: null, referredBy: ada.id });
    expect(await stack.db.getRepository(Referral).findBy({ referrerId: ada.id })).toEqual(
      expect.arrayContaining([expect.objectContaining({ referredId: grace.id, state: 'credited' }), expect.objectContaining({ referredId: linus.id, state: 'pending' })]),
    );
    // Ada's old link still works: a sign-up through it is her referral.
    await signUp(stack, product.keys.test.publishable, 'friend@example.com', 'ADA1ref');
    expect((await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'friend@example.com' })).referredBy).toBe(ada.id);
    // Two referrals ahead of the one after her in line (one place each).
    expect(ada.lineKey).toBe(ada.confirmationSeq! - 2);
  });

  it('sends no mail and emits no event unless asked, then confirmation mails to pending entries and both events', async () => {
    await importText(stack, scope(), fixture('getwaitlist.csv'));
    const [{ mails }] = await stack.db.query(
      `SELECT count(*)::int AS mails FROM outbox o JOIN entries e ON e.id = o.data->>'entryId' WHERE o.name = 'confirmation' AND e.product_id = $1`,
      [product.id],
    );
    expect(mails).toBe(0);
    expect(await stack.db.getRepository(EventRecord).countBy({ productId: product.id })).toBe(0);
    const other = await stack.createProduct();
    const report = await importText(stack, { productId: other.id, mode: 'test' }, fixture('getwaitlist.csv'), { confirmationMails: true, events: true });
    expect(report.pending).toBe(1);
    await stack.mail.waitFor('linus@example.com');
    // One mail: the import that asked for none wrote none.
    expect(stack.mail.to('linus@example.com')).toHaveLength(1);
    const types = (await stack.db.getRepository(EventRecord).findBy({ productId: other.id })).map((event) => event.type).sort();
    expect(types).toEqual(['entry.confirmed', 'entry.confirmed', 'entry.created', 'entry.created', 'entry.created']);
  });

  it('never brings back an address that was deleted, though the person may sign up again on their own', async () => {
    await importText(stack, scope(), fixture('prefinery.csv'));
    const grace = (await entries()).find((entry) => entry.email === 'grace@example.com')!;
    const deleted = await stack.request({ method: 'DELETE', url: `/api/v1/entries/${grace.id}`, headers: bearer(product.keys.test.secret) });
    expect(deleted.status).toBe(204);
    const again = await importText(stack, scope(), fixture('prefinery.csv').replace('grace@example.com', 'Grace+old@Example.com'));
    expect(again).toMatchObject({ created: 0, existing: 1, suppressed: 1 });
    expect(again.lines.find((row) => row.line === 3)).toMatchObject({ outcome: 'suppressed' });
    await signUp(stack, product.keys.test.publishable, 'grace@example.com');
    expect(await stack.db.getRepository(EntryRecord).countBy({ email: 'grace@example.com', productId: product.id })).toBe(1);
  });

  it('never brings back an address that unsubscribed, in any of its variants', async () => {
    await signUp(stack, product.keys.test.publishable, 'ada@example.com');
    const mail = await stack.mail.waitFor('ada@example.com');
    const unsubscribe = new URL(linkIn(mail, `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`)).pathname;
    expect((await stack.request({ method: 'POST', url: unsubscribe })).status).toBe(200);
    const report = await importText(stack, scope(), 'email\nada+waitlist@example.com\nADA@example.com\n', { mapping: { email: 'email' } });
    expect(report).toMatchObject({ created: 0, suppressed: 2 });
    expect(await entries()).toEqual([]);
  });

  it.each([
    ['viral-loops.csv', 'viral-loops'],
    ['prefinery.csv', 'prefinery'],
    ['waitlister.csv', 'waitlister'],
    ['launchlist.csv', 'launchlist'],
  ])('imports %s with the mapping of %s: codes kept, referrer linked', async (file, format) => {
    const report = await importText(stack, scope(), fixture(file));
    expect(report.format).toBe(format);
    const byEmail = new Map((await entries()).map((entry) => [entry.email, entry]));
    const ada = byEmail.get('ada@example.com')!;
    expect(ada.referralCode).not.toBeNull();
    expect(byEmail.get('grace@example.com')!.referredBy).toBe(ada.id);
  });

  it('reports a Viral Loops row whose time is not a time, and imports the others', async () => {
    const report = await importText(stack, scope(), fixture('viral-loops.csv'));
    expect(report).toMatchObject({ created: 2, invalid: 1, referralCodesKept: 2, referralsLinked: 1 });
    expect(report.problems).toEqual([expect.objectContaining({ line: 4, reason: 'invalid_time' })]);
  });

  describe('POST /api/v1/entries/import', () => {
    const post = (query: string, headers: Record<string, string>, payload = 'email\nada@example.com\n') =>
      stack.request({ method: 'POST', url: `/api/v1/entries/import${query}`, headers, payload });

    it('asks for the secret key first, whatever the body', async () => {
      expect((await post('', { 'content-type': 'application/json' })).status).toBe(401);
    });

    it('refuses a body that is not text/csv, and bad options, with 400 invalid_request naming the option; nothing is written', async () => {
      const key = bearer(product.keys.test.secret);
      const answers = await Promise.all([
        post('', { ...key, 'content-type': 'application/json' }, '{"email":"ada@example.com"}'),
        post('?dryRun=yes', { ...key, 'content-type': 'text/csv' }),
        post('?state=invited', { ...key, 'content-type': 'text/csv' }),
        post(`?mapping=${encodeURIComponent('{"Mail":"address"}')}`, { ...key, 'content-type': 'text/csv' }),
        post(`?mapping=${encodeURIComponent('{"Joined":"createdAt"}')}`, { ...key, 'content-type': 'text/csv' }),
        post(`?mapping=${encodeURIComponent('{"E-Mail Address":"email","Joined On":"birthday"}')}`, { ...key, 'content-type': 'text/csv' }),
        post(`?mapping=${encodeURIComponent('{"Mail":"email"}')}`, { ...key, 'content-type': 'text/csv' }, 'Address\nada@example.com\n'),
      ]);
      expect(answers.map((answer) => [answer.status, answer.json().error.code, answer.json().error.param ?? null])).toEqual([
        [400, 'invalid_request', null],
        [400, 'invalid_request', 'dryRun'],
        [400, 'invalid_request', 'state'],
        [400, 'invalid_request', 'mapping.Mail'],
        [400, 'invalid_request', 'mapping'],
        [400, 'invalid_request', 'mapping.Joined On'],
        [400, 'invalid_request', 'mapping'],
      ]);
      expect(await entries()).toEqual([]);
    });
  });
});
