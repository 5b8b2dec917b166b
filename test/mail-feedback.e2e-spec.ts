import { EntryRecord, MailFeedback } from '@app/shared';
import { randomUUID } from 'node:crypto';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { MailFeedbackService } from '../apps/api/src/mail-feedback/mail-feedback.service';
import { EXPORT_SECTIONS } from '../apps/api/src/personal-data/export';
import { ProductsService } from '../apps/api/src/products/products.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { events, joinLine, signUp } from './support/flows';
import { api, invitationStack, invitationsTo, seedLine } from './support/invitations';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

describe(MailFeedbackService.name, () => {
  let stack: Stack;

  beforeAll(async () => {
    ({ stack } = await invitationStack({ env: { MAIL_BOUNCE_ON_REFUSAL: 'true' } }));
  });
  afterAll(() => stack.stop());

  const feedback = (kind: MailFeedback['kind'], address: string, eventId = randomUUID()): MailFeedback => ({ provider: 'ses', eventId, kind, address, at: new Date() });
  const apply = (...items: MailFeedback[]) => stack.api.get(MailFeedbackService).apply(items);
  const entry = (id: string) => stack.db.getRepository(EntryRecord).findOneBy({ id });
  const bouncedEvents = async (id: string) => (await events(stack)).filter((event) => event.type === 'entry.bounced' && event.data.entry.id === id);
  const product = async (capacity: number | null = null): Promise<Product> => {
    const made = await stack.createProduct();
    if (capacity !== null) await stack.api.get(ProductsService).update(made.id, { capacity });
    return made;
  };

  it('marks every entry of a hard-bounced address undeliverable once, each with its own entry.bounced; a replay changes nothing', async () => {
    const [one, two] = [await product(), await product()];
    const [first] = await seedLine(stack, { productId: one.id, mode: 'test' }, 1, `hard-${one.id}`);
    const [twin] = await seedLine(stack, { productId: two.id, mode: 'test' }, 1, `hard-${one.id}`);
    const bounce = feedback('hard_bounce', ` ${first.email.toUpperCase()} `);
    await apply(bounce);
    const marked = await entry(first.id);
    expect(marked!.undeliverableAt).toBeInstanceOf(Date);
    expect((await entry(twin.id))!.undeliverableAt).toBeInstanceOf(Date);
    const [event] = await bouncedEvents(first.id);
    expect(event).toMatchObject({ productId: one.id, mode: 'test', data: { entry: { id: first.id, state: 'confirmed' }, bounce: { kind: 'hard_bounce' } } });
    expect(await bouncedEvents(twin.id)).toHaveLength(1);
    await apply(bounce);
    await apply(feedback('hard_bounce', first.email));
    expect(await bouncedEvents(first.id)).toHaveLength(1);
    expect((await entry(first.id))!.undeliverableAt).toEqual(marked!.undeliverableAt);
  });

  it('counts each mail handed over as sent, for the rates: confirmations and invitations, on their day', async () => {
    const made = await product();
    const sent = async () =>
      Number((await stack.db.query(`SELECT coalesce(sum(count), 0) AS n FROM daily_mail_counts WHERE product_id = $1 AND mode = 'live' AND kind = 'sent'`, [made.id]))[0].n);
    const emails = [1, 2, 3].map((n) => `counted-${n}-${made.id}@example.com`);
    await Promise.all(emails.map((email) => signUp(stack, made.keys.live.publishable, email)));
    await waitFor(async () => (await sent()) === 3, 'three confirmation mails counted');
    const joined = await joinLine(stack, made.keys.live.publishable, `counted-4-${made.id}@example.com`);
    expect(await sent()).toBe(4);
    expect((await api(stack, made.keys.live.secret).invite(joined.id)).status).toBe(200);
    await waitFor(() => invitationsTo(stack, joined.email).length === 1, 'the invitation');
    expect(await sent()).toBe(5);
  });

  it("puts the address's bounces in the person's export", async () => {
    const made = await product();
    const [soft] = await seedLine(stack, { productId: made.id, mode: 'test' }, 1, `export-${made.id}`);
    await apply(feedback('soft_bounce', soft.email));
    const section = EXPORT_SECTIONS.find((candidate) => candidate.name === 'mailDelivery');
    const record = (await entry(soft.id))!;
    expect(await section?.read(stack.db.manager, record, (await stack.api.get(ProductsService).findMany([made.id]))[0])).toEqual({ undeliverableSince: null, softBounces: 1 });
  });

  it('has invite-next skip an undeliverable entry, which stays in line', async () => {
    const made = await product();
    const [bounced, next] = await seedLine(stack, { productId: made.id, mode: 'test' }, 2, `skip-${made.id}`);
    await apply(feedback('hard_bounce', bounced.email));
    const answer = await api(stack, made.keys.test.secret).inviteNext(2);
    expect(answer.json()).toEqual({ invited: [next.id], failed: [] });
    expect((await entry(bounced.id))!.state).toBe('confirmed');
  });

  it('frees the capacity place of an invited entry whose invitation hard-bounced', async () => {
    const made = await product(1);
    const client = api(stack, made.keys.test.secret);
    const [first, second] = await seedLine(stack, { productId: made.id, mode: 'test' }, 2, `cap-${made.id}`);
    expect((await client.invite(first.id)).status).toBe(200);
    expect((await client.inviteNext(1)).json().error.code).toBe('capacity_reached');
    await apply(feedback('hard_bounce', first.email));
    expect((await client.inviteNext(1)).json()).toEqual({ invited: [second.id], failed: [] });
  });

  it('counts soft bounces and marks the address undeliverable at the third', async () => {
    const made = await product();
    const [soft] = await seedLine(stack, { productId: made.id, mode: 'test' }, 1, `soft-${made.id}`);
    const first = feedback('soft_bounce', soft.email);
    await apply(first, first, feedback('soft_bounce', soft.email));
    expect(await entry(soft.id)).toMatchObject({ softBounces: 2, undeliverableAt: null });
    expect(await bouncedEvents(soft.id)).toHaveLength(0);
    await apply(feedback('soft_bounce', soft.email));
    expect((await entry(soft.id))!.undeliverableAt).toBeInstanceOf(Date);
    expect(await bouncedEvents(soft.id)).toMatchObject([{ data: { bounce: { kind: 'soft_bounce' } } }]);
  });

  it('unsubscribes a complaining address as its unsubscribe link would, and suppresses it', async () => {
    const made = await product();
    const [complained] = await seedLine(stack, { productId: made.id, mode: 'test' }, 1, `complaint-${made.id}`);
    const complaint = feedback('complaint', complained.email);
    await apply(complaint);
    await apply(complaint);
    expect(await entry(complained.id)).toBeNull();
    expect((await events(stack)).filter((event) => event.type === 'entry.unsubscribed' && event.data.entry.id === complained.id)).toHaveLength(1);
    const suppressed = await stack.db.query(`SELECT 1 FROM suppressed_addresses WHERE product_id = $1 AND mode = 'test'`, [made.id]);
    expect(suppressed).toHaveLength(1);
  });

  it('counts a mail refused at handover (5xx) as a hard bounce', async () => {
    const made = await product();
    const [refused] = await seedLine(stack, { productId: made.id, mode: 'test' }, 1, `refused-${made.id}`);
    stack.mail.refuse.add(refused.email);
    const answer = await api(stack, made.keys.test.secret).invite(refused.id);
    expect(answer.json().error.code).toBe('mail_failed');
    expect(invitationsTo(stack, refused.email)).toEqual([]);
    expect((await entry(refused.id))!.undeliverableAt).toBeInstanceOf(Date);
    expect(await bouncedEvents(refused.id)).toMatchObject([{ data: { entry: { state: 'confirmed' }, bounce: { kind: 'hard_bounce' } } }]);
  });

  it('lists the undeliverable entries on the dashboard, and clears one after asking', async () => {
    const made = await product();
    const [listed] = await seedLine(stack, { productId: made.id, mode: 'test' }, 1, `listed-${made.id}`);
    await apply(feedback('hard_bounce', listed.email));
    await stack.api.get(DashboardAuthService).createUser(`team-${made.id}@example.com`, PASSWORD, made.id);
    const { cookie, csrf } = await signIn(stack, `team-${made.id}@example.com`);
    const base = `/dashboard/${made.id}/test`;
    const overview = (await stack.request({ method: 'GET', url: `${base}/overview`, headers: { cookie } })).text;
    expect(overview).toContain('1 hard bounces');
    expect(overview).toContain(`<a href="${base}/undeliverable">Undeliverable addresses: 1</a>`);
    const list = await stack.request({ method: 'GET', url: `${base}/undeliverable`, headers: { cookie } });
    expect(list.status).toBe(200);
    expect(list.text).toContain(listed.email);
    expect((await stack.request({ method: 'GET', url: `${base}/entries/${listed.id}`, headers: { cookie } })).text).toContain('Undeliverable since');
    const ask = await stack.request({ method: 'GET', url: `${base}/undeliverable/${listed.id}/clear`, headers: { cookie } });
    expect(ask.text).toContain(`action="${base}/undeliverable/${listed.id}/clear"`);
    expect((await entry(listed.id))!.undeliverableAt).toBeInstanceOf(Date);
    const cleared = await stack.request({
      method: 'POST',
      url: `${base}/undeliverable/${listed.id}/clear`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ _csrf: csrf }),
    });
    expect(cleared.status).toBe(303);
    expect(await entry(listed.id)).toMatchObject({ undeliverableAt: null, softBounces: 0 });
    expect((await stack.request({ method: 'GET', url: `${base}/undeliverable`, headers: { cookie } })).text).not.toContain(listed.email);
  });
});

describe('bounces while nothing reports them', () => {
  let stack: Stack;

  beforeAll(async () => {
    ({ stack } = await invitationStack());
  });
  afterAll(() => stack.stop());

  it('leaves a mail refused at handover as SPEC.md has it: 502, the entry in line and taken again', async () => {
    const made = await stack.createProduct();
    const client = api(stack, made.keys.test.secret);
    const [refused] = await seedLine(stack, { productId: made.id, mode: 'test' }, 1, `off-${made.id}`);
    stack.mail.refuse.add(refused.email);
    expect((await client.invite(refused.id)).json().error.code).toBe('mail_failed');
    expect(await stack.db.getRepository(EntryRecord).findOneBy({ id: refused.id })).toMatchObject({ state: 'confirmed', undeliverableAt: null, softBounces: 0 });
    expect((await events(stack)).filter((event) => event.type === 'entry.bounced')).toEqual([]);
    expect((await client.inviteNext(1)).json()).toEqual({ invited: [], failed: [refused.id] });
  });
});
