import { EntryRecord, EventRecord, MyDataLinks, OutboxMessage, QueueName, Referral } from '@app/shared';
import { suppressionHash } from '../apps/api/src/entries/suppressions';
import { IsNull, Not } from 'typeorm';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { bearer, joinLine } from './support/flows';
import { importText } from './support/imports';
import { Receiver } from './support/receiver';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe("a person's own data: the my-data page, the export and the deletion", () => {
  let stack: Stack;
  let product: Product;
  let pk: string;
  let receiver: Receiver;
  let ada: EntryRecord;
  let bob: EntryRecord;
  let zed: EntryRecord;

  beforeAll(async () => {
    stack = await Stack.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', RATE_LIMIT_SIGNUP: '1000/1m', RATE_LIMIT_SIGNUP_ADDRESS: '100/1h', LOG_LEVEL: 'info' } });
    product = await stack.createProduct({ name: 'Acme' });
    pk = product.keys.test.publishable;
    receiver = await new Receiver().start();
    await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: `${receiver.url}/hook` });
    zed = await joinLine(stack, pk, 'zed@example.com');
    ada = await joinLine(stack, pk, 'ada@example.com', zed.referralCode!);
    bob = await joinLine(stack, pk, 'bob@example.com', ada.referralCode!);
    await joinLine(stack, pk, 'carol@example.com', ada.referralCode!);
    ada = await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: ada.id });
  });
  afterAll(async () => {
    await receiver?.stop();
    await stack?.stop();
  });

  const ask = (email: string) => stack.request({ method: 'POST', url: `/w/${pk}/my-data`, headers: FORM, payload: new URLSearchParams({ email }).toString() });
  /** Asks for the link of `email` and returns its path, from the `count`th mail of that kind. */
  const myDataPath = async (email: string, count: number) => {
    expect((await ask(email)).status).toBe(303);
    await waitFor(() => stack.mail.to(email).filter((mail) => mail.subject.includes('your data')).length >= count, 'the my-data mail');
    const mail = stack.mail.to(email).filter((mail) => mail.subject.includes('your data')).at(-1)!;
    return new URL(linkIn(mail, `${stack.config.PUBLIC_BASE_URL}/my-data/`)).pathname;
  };

  it('every mail and the status page link to the product my-data page', async () => {
    const confirmation = stack.mail.to('ada@example.com')[0];
    expect(confirmation.text).toContain(`${stack.config.PUBLIC_BASE_URL}/w/${pk}/my-data`);
    expect(confirmation.html).toContain(`${stack.config.PUBLIC_BASE_URL}/w/${pk}/my-data`);
    const status = await stack.request({ method: 'GET', url: new URL(linkIn(confirmation, `${stack.config.PUBLIC_BASE_URL}/confirm/`)).pathname });
    expect(status.text).toContain(`/w/${pk}/my-data`);
  });

  it('the form asks for an address; the request mail arrives with a working link', async () => {
    const form = await stack.request({ method: 'GET', url: `/w/${pk}/my-data` });
    expect(form.status).toBe(200);
    expect(form.text).toContain('<form method="post"');
    const answer = await ask('ada@example.com');
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe(`/w/${pk}/my-data/sent`);
    const path = await myDataPath('ada@example.com', 2);
    const page = await stack.request({ method: 'GET', url: path });
    expect(page.status).toBe(200);
    expect(page.text).toContain('ada@example.com');
    expect(page.text).toContain('Download my data');
    expect(page.text).toContain('Delete my data');
  });

  it('an unknown address gets the same answer and no mail', async () => {
    const known = await ask('ada@example.com');
    const unknown = await ask('nobody@example.com');
    expect({ status: unknown.status, location: unknown.headers.location, text: unknown.text }).toEqual({ status: known.status, location: known.headers.location, text: known.text });
    // Asked after the unknown address: once its mail is here, the mailer has passed the unknown one.
    await myDataPath('ada@example.com', 4);
    expect(stack.mail.to('nobody@example.com')).toHaveLength(0);
  });

  it('an expired or tampered link is refused', async () => {
    const path = await myDataPath('ada@example.com', 5);
    const tampered = path.slice(0, -1) + (path.endsWith('A') ? 'B' : 'A');
    expect((await stack.request({ method: 'GET', url: tampered })).status).toBe(404);
    const expired = new MyDataLinks(stack.config.ENCRYPTION_KEY).sign(ada.id, new Date(Date.now() - 1000));
    expect((await stack.request({ method: 'GET', url: `/my-data/${expired}` })).status).toBe(404);
    expect((await stack.request({ method: 'GET', url: `/my-data/${expired}/export` })).status).toBe(404);
    expect((await stack.request({ method: 'POST', url: `/my-data/${expired}/delete` })).status).toBe(404);
    expect(await stack.db.getRepository(EntryRecord).existsBy({ id: ada.id })).toBe(true);
  });

  it('the export holds every kept field and no other entry data', async () => {
    const path = await myDataPath('ada@example.com', 6);
    const download = await stack.request({ method: 'GET', url: `${path}/export` });
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toContain('application/json');
    expect(download.headers['content-disposition']).toContain('attachment');
    const data = download.json();
    expect(data.entry).toEqual({
      id: ada.id, email: 'ada@example.com', state: 'confirmed', createdAt: ada.createdAt.toISOString(), confirmedAt: ada.confirmedAt!.toISOString(),
      invitedAt: null, redeemedAt: null, referralCode: ada.referralCode, referrals: 2,
    });
    expect(data.product).toEqual({ name: 'Acme' });
    expect([data.language, data.signUp]).toEqual(['en', { answers: {}, attribution: {} }]);
    expect(data.placeHistory.map((change: { cause: string }) => change.cause)).toEqual(expect.arrayContaining(['joined', 'referral_credited']));
    expect(data.mails).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'confirmation' })]));
    expect(data.referralsMade).toHaveLength(2);
    expect(data.referralsMade[0]).toMatchObject({ email: expect.stringContaining('•••'), state: 'credited' });
    expect(data.referralCredit).toMatchObject({ referredThroughALink: true, state: 'credited', credited: 2 });
    // The privacy trail's lines of the entry, this download included (written in the export's transaction): six mailed requests (none for the unknown address).
    expect(data.privacyRequests.map((line: { kind: string }) => line.kind)).toEqual([...Array(6).fill('request'), 'download']);
    expect(data.privacyRequests.at(-1).at).toBe(data.exportedAt);
    for (const other of ['bob@example.com', bob.id, 'carol', 'zed@example.com', zed.id, zed.referralCode!]) expect(download.text).not.toContain(other);
    const bobsPath = await myDataPath('bob@example.com', 1);
    const bobs = await stack.request({ method: 'GET', url: `${bobsPath}/export` });
    expect(bobs.json().referralCredit).toMatchObject({ referredThroughALink: true, state: 'credited' });
    expect(bobs.text).not.toContain('ada@example.com');
    expect(bobs.text).not.toContain(ada.id);
  });

  it("deleting asks first, then leaves only the suppression hash and the privacy trail's lines, sends entry.deleted and logs no address", async () => {
    const path = await myDataPath('ada@example.com', 7);
    // Traces elsewhere: an event not delivered yet, a stored idempotent answer, a mail still queued.
    await stack.stopApp('webhooks');
    const invited = await stack.request({ method: 'POST', url: `/api/v1/entries/${ada.id}/invite`, headers: { ...bearer(product.keys.test.secret), 'idempotency-key': 'invite-ada' } });
    expect(invited.status).toBe(200);
    await stack.stopApp('mailer');
    expect((await ask('ada@example.com')).status).toBe(303);
    const asked = await stack.request({ method: 'GET', url: `${path}/delete` });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain(`<form method="post" action="${path}/delete">`);
    expect(await stack.db.getRepository(EntryRecord).existsBy({ id: ada.id })).toBe(true);

    const deleted = await stack.request({ method: 'POST', url: `${path}/delete`, headers: FORM, payload: '' });
    expect(deleted.status).toBe(200);
    expect(deleted.text).toContain('deleted');
    expect((await stack.request({ method: 'GET', url: path })).status).toBe(404);
    await stack.startApp('webhooks');

    const deletedEvent = () =>
      receiver.received.map((received) => JSON.parse(received.body)).find((event) => event.type === 'entry.deleted' && event.data.entry.id === ada.id);
    await waitFor(() => deletedEvent() !== undefined, 'entry.deleted delivered');
    expect(deletedEvent().data.entry.email).toBe('ada@example.com');
    // Every event is delivered, the one from before the deletion too; each body goes with its last delivery.
    await waitFor(
      async () =>
        (await stack.db.getRepository(EventRecord).countBy({ productId: product.id, body: Not(IsNull()) })) === 0 &&
        (await stack.db.getRepository(OutboxMessage).countBy({ queue: QueueName.Webhooks })) === 0,
      'the delivered bodies deleted (from the outbox rows, and from the events of deliveries that were retried)',
    );

    const hash = suppressionHash('ada@example.com').toString('hex');
    const tables: { table_name: string }[] = await stack.db.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`);
    const holding: string[] = [];
    for (const { table_name: table } of tables) {
      const [{ count }] = await stack.db.query(
        `SELECT count(*)::int AS count FROM "${table}" AS row WHERE strpos(lower(row::text), 'ada@example.com') > 0 OR strpos(row::text, $1) > 0 OR strpos(row::text, $2) > 0 OR strpos(row::text, $3) > 0`,
        [ada.id, hash, ada.referralCode],
      );
      if (count > 0) holding.push(table);
    }
    // And the privacy trail's lines of the person's own requests: what, when and the entry's id, never the address.
    expect(holding.sort()).toEqual(['privacy_requests', 'suppressed_addresses']);
    const trail: { kind: string }[] = await stack.db.query(`SELECT kind FROM privacy_requests WHERE entry_id = $1 ORDER BY id`, [ada.id]);
    expect(trail.map((line) => line.kind)).toEqual([...Array(6).fill('request'), 'download', 'request', 'request', 'deletion']);
    const logged = stack.logs.filter((line) => line.includes(ada.id) && line.includes('deleted'));
    expect(logged.length).toBeGreaterThan(0);
    expect(stack.logs.filter((line) => line.includes('ada@example.com'))).toEqual([]);
  });

  it('unsubscribing erases the same traces as a deletion', async () => {
    await stack.startApp('mailer');
    const dan = await joinLine(stack, pk, 'dan@example.com', bob.referralCode!);
    const hash = suppressionHash('dan@example.com');
    expect(await stack.db.query(`SELECT 1 FROM referral_credits WHERE email_hash = $1`, [hash])).toHaveLength(1);
    const unsubscribe = new URL(linkIn(stack.mail.to('dan@example.com')[0], `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`)).pathname;
    expect((await stack.request({ method: 'POST', url: unsubscribe })).status).toBe(200);
    expect(await stack.db.query(`SELECT 1 FROM referral_credits WHERE email_hash = $1`, [hash])).toHaveLength(0);
    expect(await stack.db.query(`SELECT 1 FROM suppressed_addresses WHERE email_hash = $1`, [hash])).toHaveLength(1);
    expect(await stack.db.getRepository(EntryRecord).existsBy({ id: dan.id })).toBe(false);
  });

  it('a re-import does not bring the address back; a referral link neither, nor earns credit: only its own sign-up does', async () => {
    const scope = { productId: product.id, mode: 'test' as const };
    const report = await importText(stack, scope, 'email\nAda@example.com\n', { mapping: { email: 'email' } });
    expect(report).toMatchObject({ created: 0, suppressed: 1 });
    expect(await stack.db.getRepository(EntryRecord).countBy({ email: 'ada@example.com' })).toBe(0);
    // Through bob's link, the person's own sign-up: its referral is ignored, even once confirmed.
    const credited = (await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: bob.id })).referrals;
    await joinLine(stack, pk, 'ada+again@example.com', bob.referralCode!);
    const back = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'ada+again@example.com' });
    expect(back).toMatchObject({ state: 'confirmed', referredBy: null });
    expect(await stack.db.getRepository(Referral).countBy({ referredId: back.id })).toBe(0);
    expect((await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: bob.id })).referrals).toBe(credited);
  });
});

describe('the my-data form is rate limited like sign-ups', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { RATE_LIMIT_SIGNUP: '2/1m' } });
  });
  afterAll(() => stack?.stop());

  it('answers 429 with Retry-After past the per-IP limit, and 400 for a bad address', async () => {
    const pk = (await stack.createProduct()).keys.test.publishable;
    const ask = (email: string) => stack.request({ method: 'POST', url: `/w/${pk}/my-data`, headers: FORM, payload: new URLSearchParams({ email }).toString(), remoteAddress: '203.0.113.9' });
    expect((await ask('not an address')).status).toBe(400);
    expect((await ask('a@example.com')).status).toBe(303);
    expect((await ask('b@example.com')).status).toBe(303);
    const refused = await ask('c@example.com');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.headers['content-type']).toContain('text/html');
  });
});
