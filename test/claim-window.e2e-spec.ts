import { suppressionHash } from '../apps/api/src/entries/suppressions';
import { Clock, EntryRecord, InviteCode } from '@app/shared';
import { ClaimWindowSweep } from '../apps/api/src/claim-window/claim-window.service';
import { MaintenanceService } from '../apps/api/src/maintenance/maintenance.service';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { ProductSettings, ProductsService } from '../apps/api/src/products/products.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { bearer, productWith } from './support/flows';
import { api, codeIn, InvitationApi, invitationsTo, line } from './support/invitations';
import { Receiver, verify } from './support/receiver';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WINDOW: Partial<ProductSettings> = { claimWindowDays: 2, claimReminderHours: 24, claimExpiry: 'back_in_line' };

describe('claim window', () => {
  let stack: Stack;
  /** How far the api's and the mailer's clocks are ahead of this machine's; null: fixed at `fixedNow`. */
  let offset = 0;
  let fixedNow: Date | null = null;

  beforeAll(async () => {
    stack = await Stack.start({
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', RATE_LIMIT_SIGNUP: '10000/1m', RATE_LIMIT_SIGNUP_ADDRESS: '100/1h', RATE_LIMIT_API: '10000/1s', MAINTENANCE_INTERVAL: '1h' },
    });
    const now = () => fixedNow ?? new Date(Date.now() + offset);
    jest.spyOn(stack.api.get(Clock), 'now').mockImplementation(now);
    jest.spyOn(stack.worker('mailer').get(Clock), 'now').mockImplementation(now);
  });
  beforeEach(() => {
    offset = 0;
    fixedNow = null;
  });
  afterAll(() => stack.stop());

  const round = () => stack.api.get(MaintenanceService).runOnce();
  const setUp = async (settings: Partial<ProductSettings>, emails: string[]) => {
    const product = await productWith(stack, settings);
    const entries = await line(stack, product.keys.test.publishable, emails);
    return { product, entries, client: api(stack, product.keys.test.secret) };
  };
  const invited = async (client: InvitationApi, entry: EntryRecord, count = 1) => {
    expect((await client.invite(entry.id)).status).toBe(200);
    await stack.mail.waitFor(entry.email, count + 1);
    return codeIn(invitationsTo(stack, entry.email).at(-1)!);
  };
  const reminders = (email: string) => stack.mail.to(email).filter((mail) => mail.subject.startsWith('Reminder'));
  const remindersQueued = async () => Number((await stack.db.query(`SELECT count(*) AS n FROM outbox WHERE queue = 'reminders'`))[0].n);
  const placeOf = async (product: Product, id: string) =>
    (await stack.request({ method: 'GET', url: `/api/v1/entries/${id}/place`, headers: bearer(product.keys.test.secret) })).json().place;
  const stateOf = async (id: string) => (await stack.db.getRepository(EntryRecord).findOneBy({ id }))?.state;
  /** entry.invitation_expired events of a product (their bodies go once delivered, or at once with no endpoint). */
  const expiredEvents = async (product: Product) =>
    Number((await stack.db.query(`SELECT count(*) AS n FROM events WHERE product_id = $1 AND type = 'entry.invitation_expired'`, [product.id]))[0].n);

  it('sends one reminder with the same code, then the invitation expires: the code is dead, entry.invitation_expired is signed and delivered once, and the entry is back at its old place', async () => {
    const { product, entries, client } = await setUp(WINDOW, ['cw-a@example.com', 'cw-b@example.com', 'cw-c@example.com']);
    const receiver = await new Receiver().start();
    try {
      const hook = await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: receiver.url, events: ['entry.invitation_expired'] });
      const [a] = entries;
      const code = await invited(client, a);
      expect(invitationsTo(stack, a.email)[0].text).toContain('works for 2 days');

      offset = DAY - HOUR / 2;
      await round();
      expect(await remindersQueued()).toBe(0);
      offset = DAY + 60_000;
      await round();
      await stack.mail.waitFor(a.email, 3);
      const [reminder] = reminders(a.email);
      expect(codeIn(reminder)).toBe(code);
      expect(reminder.text).toContain('ends in 1 day');
      // Later rounds send nothing more, and the code is no longer kept.
      await round();
      await waitFor(async () => (await remindersQueued()) === 0, 'the reminders queued to be taken');
      expect(reminders(a.email)).toHaveLength(1);
      expect((await stack.db.getRepository(InviteCode).findOneByOrFail({ entryId: a.id })).sealedCode).toBeNull();
      expect((await client.verify(code)).json()).toEqual({ valid: true, email: a.email });

      offset = 2 * DAY + 60_000;
      // Dead at the window's end, before any round.
      expect((await client.verify(code)).json()).toEqual({ valid: false });
      expect(await stateOf(a.id)).toBe('invited');
      await round();
      expect(await stateOf(a.id)).toBe('confirmed');
      expect(await placeOf(product, a.id)).toBe(1);
      expect(await placeOf(product, entries[1].id)).toBe(2);
      expect((await client.redeem(code)).json()).toEqual({ valid: false });
      expect((await client.get(a.id)).json()).toMatchObject({ state: 'confirmed' });

      const [delivery] = await receiver.waitFor(1);
      expect(verify(String(delivery.headers['service-signature']), delivery.body, hook.secret)).toBe(true);
      expect(JSON.parse(delivery.body)).toMatchObject({ type: 'entry.invitation_expired', mode: 'test', productId: product.id, data: { entry: { id: a.id, state: 'confirmed' } } });
      await round();
      await waitFor(async () => (await stack.db.query(`SELECT 1 FROM deliveries WHERE status = 'pending'`)).length === 0, 'no delivery pending');
      expect(receiver.received).toHaveLength(1);
      expect(await expiredEvents(product)).toBe(1);
      const history = (await stack.request({ method: 'GET', url: `/api/v1/entries/${a.id}/history`, headers: bearer(product.keys.test.secret) })).json().data;
      expect(history[0]).toMatchObject({ cause: 'invitation_expired', places: 0 });
    } finally {
      await receiver.stop();
    }
  });

  it('end_of_line: the expired entry gets a new confirmation number behind everyone', async () => {
    const { product, entries, client } = await setUp({ claimWindowDays: 1, claimExpiry: 'end_of_line' }, ['eol-a@example.com', 'eol-b@example.com', 'eol-c@example.com']);
    const [a, b, c] = entries;
    const code = await invited(client, a);
    offset = DAY + 60_000;
    await round();
    expect(await stateOf(a.id)).toBe('confirmed');
    // The hosted invitation page says how long the code worked.
    const hosted = await stack.request({ method: 'GET', url: `/invitation?invite=${code}` });
    expect([hosted.status, hosted.text]).toEqual([410, expect.stringContaining('Invitations to Acme work for 1 day.')]);
    expect([await placeOf(product, b.id), await placeOf(product, c.id), await placeOf(product, a.id)]).toEqual([1, 2, 3]);
    expect(await expiredEvents(product)).toBe(1);
    // Invited again later, it is invited as anyone in line.
    expect((await client.inviteNext(3)).json().invited).toEqual([b.id, c.id, a.id]);
  });

  it('delete: the expired entry is deleted, with entry.invitation_expired and then entry.deleted', async () => {
    const { product, client, entries } = await setUp({ claimWindowDays: 1, claimReminderHours: 0, claimExpiry: 'delete' }, ['del-a@example.com']);
    const receiver = await new Receiver().start();
    const [a] = entries;
    try {
      await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: receiver.url, events: ['entry.invitation_expired', 'entry.deleted'] });
      const code = await invited(client, a);
      offset = DAY + 60_000;
      await round();
      expect(await stateOf(a.id)).toBeUndefined();
      expect((await client.get(a.id)).status).toBe(404);
      expect((await client.verify(code)).json()).toEqual({ valid: false });
      await receiver.waitFor(2);
    } finally {
      await receiver.stop();
    }
    const received = receiver.received.map(({ body }) => JSON.parse(body)).map((event) => [event.type, event.data.entry.id, event.data.entry.state]);
    expect(received.sort()).toEqual([
      ['entry.deleted', a.id, 'invited'],
      ['entry.invitation_expired', a.id, 'invited'],
    ]);
    expect(reminders(a.email)).toHaveLength(0);
    // Deleted like any deletion: an import does not bring the address back.
    const suppressed = await stack.db.query(`SELECT 1 FROM suppressed_addresses WHERE product_id = $1 AND mode = 'test' AND email_hash = $2`, [product.id, suppressionHash(a.email)]);
    expect(suppressed).toHaveLength(1);
  });

  it("the rollover: the cap's place that an expired invitation frees goes to the next in line at the release's next run", async () => {
    const { product, entries } = await setUp({ claimWindowDays: 1, claimReminderHours: 0, claimExpiry: 'end_of_line', capacity: 1 }, ['roll-a@example.com', 'roll-b@example.com']);
    const [a, b] = entries;
    const releases = (method: 'POST', url: string, body?: unknown) => stack.request({ method, url: `/api/v1/releases${url}`, body, headers: bearer(product.keys.test.secret) });
    const release = (await releases('POST', '', { count: 1, pattern: '0 9 * * 1', timeZone: 'UTC', paused: true })).json();
    const run = async () => (await releases('POST', `/${release.id}/run`)).json();
    expect(await run()).toMatchObject({ invited: 1, skippedForCapacity: 0 });
    expect([await stateOf(a.id), await stateOf(b.id)]).toEqual(['invited', 'confirmed']);
    expect(await run()).toMatchObject({ invited: 0, skippedForCapacity: 1 });

    // The window has ended: the dead code no longer takes a place, even before the sweep moves its entry.
    offset = DAY + 60_000;
    expect(await run()).toMatchObject({ invited: 1, skippedForCapacity: 0 });
    expect([await stateOf(a.id), await stateOf(b.id)]).toEqual(['invited', 'invited']);
    await round();
    expect([await stateOf(a.id), await stateOf(b.id)]).toEqual(['confirmed', 'invited']);
    expect(await run()).toMatchObject({ invited: 0, skippedForCapacity: 1 });
  });

  it('reinvite restarts the window and the reminder', async () => {
    const { product, client, entries } = await setUp(WINDOW, ['again@example.com']);
    const [a] = entries;
    const first = await invited(client, a);
    offset = DAY + 60_000;
    await round();
    await waitFor(() => reminders(a.email).length === 1, 'the first reminder');
    offset = 1.5 * DAY;
    expect((await client.reinvite(a.id)).status).toBe(200);
    await waitFor(() => invitationsTo(stack, a.email).length === 3, 'the new invitation');
    const second = codeIn(invitationsTo(stack, a.email).filter((mail) => !mail.subject.startsWith('Reminder')).at(-1)!);
    expect(second).not.toBe(first);

    offset = 2 * DAY + 60_000;
    await round();
    expect(await stateOf(a.id)).toBe('invited');
    expect((await client.verify(second)).json()).toMatchObject({ valid: true });
    expect(reminders(a.email)).toHaveLength(1);
    offset = 2.5 * DAY + 60_000;
    await round();
    await waitFor(() => reminders(a.email).length === 2, 'the reminder of the new invitation');
    expect(codeIn(reminders(a.email)[1])).toBe(second);
    offset = 3.5 * DAY + 60_000;
    await round();
    expect(await stateOf(a.id)).toBe('confirmed');
    expect(await expiredEvents(product)).toBe(1);
  });

  it('sends exactly one reminder with two sweeps at once, and none again for a repeated outbox row', async () => {
    const { client, entries } = await setUp(WINDOW, ['once@example.com']);
    const [a] = entries;
    await invited(client, a);
    offset = DAY + 60_000;
    const sweep = stack.api.get(ClaimWindowSweep);
    const results = await Promise.all([sweep.sweep(), sweep.sweep()]);
    expect(results.map((result) => result.reminded).sort()).toEqual([0, 1]);
    // A second row for the same entry, as a retry or a repeated queueing would leave.
    await stack.db.query(`INSERT INTO outbox (queue, name, data, created_at) VALUES ('reminders', 'reminder', $1, now())`, [{ entryId: a.id }]);
    await waitFor(() => reminders(a.email).length === 1, 'the reminder');
    await waitFor(async () => (await remindersQueued()) === 0, 'the reminders queued to be taken');
    expect(reminders(a.email)).toHaveLength(1);
  });

  it('a redeem racing the expiry: exactly one of them wins for each entry', async () => {
    const emails = Array.from({ length: 8 }, (_, i) => `race-${i}@example.com`);
    const { product, client, entries } = await setUp({ claimWindowDays: 1, claimExpiry: 'back_in_line' }, emails);
    expect((await client.inviteNext(entries.length)).json().invited).toHaveLength(entries.length);
    const codes = await Promise.all(entries.map(async (entry) => (await stack.mail.waitFor(entry.email, 2), codeIn(invitationsTo(stack, entry.email)[0]))));
    const [{ ends }]: { ends: Date }[] = await stack.db.query(`SELECT max(claim_ends_at) AS ends FROM invite_codes WHERE entry_id = ANY($1)`, [entries.map((entry) => entry.id)]);
    // The redeems read the clock just before the end, the sweep just after it.
    fixedNow = new Date(ends.getTime() - 1);
    const [answers] = await Promise.all([Promise.all(codes.map((code) => client.redeem(code))), stack.api.get(ClaimWindowSweep).sweep(new Date(ends.getTime() + 1))]);
    const valid = answers.map((answer) => answer.json().valid as boolean);
    for (const [i, entry] of entries.entries()) expect([valid[i], await stateOf(entry.id)]).toEqual(valid[i] ? [true, 'redeemed'] : [false, 'confirmed']);
    expect(await expiredEvents(product)).toBe(valid.filter((one) => !one).length);
  });

  it('a product without a claim window behaves as before: no reminder, and no expiry before the code’s own', async () => {
    const { product, client, entries } = await setUp({}, ['plain@example.com']);
    const [a] = entries;
    const code = await invited(client, a);
    expect(invitationsTo(stack, a.email)[0].text).toContain('works for 30 days');
    const row = await stack.db.getRepository(InviteCode).findOneByOrFail({ entryId: a.id });
    expect([row.claimEndsAt, row.remindAt, row.sealedCode]).toEqual([null, null, null]);
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(30 * DAY);
    offset = 29 * DAY;
    await round();
    expect((await client.verify(code)).json()).toMatchObject({ valid: true });
    offset = 31 * DAY;
    await round();
    expect((await client.verify(code)).json()).toEqual({ valid: false });
    expect(await stateOf(a.id)).toBe('invited');
    expect((await client.get(a.id)).json()).toMatchObject({ state: 'invited' });
    expect(await remindersQueued()).toBe(0);
    expect(stack.mail.to(a.email)).toHaveLength(2);
    expect(await expiredEvents(product)).toBe(0);
  });

  it('the settings page saves the claim window and refuses a reminder outside it, changing nothing', async () => {
    const product = await stack.createProduct();
    await stack.api.get(DashboardAuthService).createUser('window-team@example.com', PASSWORD, product.id);
    const { cookie, csrf } = await signIn(stack, 'window-team@example.com');
    const settings = `/dashboard/${product.id}/test/settings/claim-window`;
    const fields = { _csrf: csrf, claimWindowDays: '7', claimReminderHours: '24', claimExpiry: 'delete' };
    const post = (body: Record<string, string>) => stack.request({ method: 'POST', url: settings, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form(body) });
    expect((await post(fields)).status).toBe(303);
    expect(await stack.api.get(ProductsService).find(product.id)).toMatchObject({ claimWindowDays: 7, claimReminderHours: 24, claimExpiry: 'delete' });
    const page = (await stack.request({ method: 'GET', url: settings, headers: { cookie } })).text;
    expect(page).toContain('id="claimWindowDays" name="claimWindowDays" type="number" value="7"');
    expect(page).toContain('<option value="delete" selected>');

    const refused = await post({ ...fields, claimWindowDays: '1', claimReminderHours: '30' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('The reminder must come within the claim window: fewer than 24 hours before its end.');
    expect((await post({ ...fields, claimWindowDays: '45' })).text).toContain('The claim window must be a whole number from 1 to 30');
    expect(await stack.api.get(ProductsService).find(product.id)).toMatchObject({ claimWindowDays: 7, claimReminderHours: 24 });
  });
});
