import { EntryRecord, EventRecord, InviteCode } from '@app/shared';
import { events, joinLine } from './support/flows';
import { api, codeIn, InvitationApi, invitationStack, invitationsTo, line } from './support/invitations';
import { Product, Stack } from './support/stack';

describe('invitations', () => {
  let stack: Stack;
  let product: Product;
  let pk: string;
  let client: InvitationApi;

  beforeAll(async () => {
    ({ stack, product, pk, client } = await invitationStack());
    await stack.db.query(`UPDATE products SET invite_url = 'https://acme.example/join?from=mail' WHERE id = $1`, [product.id]);
  });
  afterAll(() => stack.stop());

  const entry = (id: string) => stack.db.getRepository(EntryRecord).findOneByOrFail({ id });

  it('invite hands the mail over, marks the entry invited and emits entry.invited without the code', async () => {
    const waiting = await joinLine(stack, pk, 'ada@example.com');
    const response = await client.invite(waiting.id);
    expect(response.status).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ id: waiting.id, state: 'invited', redeemedAt: null });
    expect(body.invitedAt).toMatch(/Z$/);
    const mail = invitationsTo(stack, 'ada@example.com')[0];
    expect(mail).toBeDefined();
    const code = codeIn(mail);
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const link = mail.text.split(/\s+/).find((word) => word.includes('invite='))!;
    expect(link.startsWith('https://acme.example/join?from=mail&invite=')).toBe(true);
    expect(mail.html).toContain('invite=');
    expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(mail.text).toContain(`${stack.config.PUBLIC_BASE_URL}/unsubscribe/`);
    const invited = (await events(stack)).filter((event) => event.type === 'entry.invited');
    expect(invited).toHaveLength(1);
    expect(invited[0].data.entry).toMatchObject({ id: waiting.id, state: 'invited' });
    const stored = await stack.db.query('SELECT body FROM events UNION ALL SELECT body FROM outbox');
    expect(JSON.stringify(stored)).not.toContain(code);
    // Codes are stored as hashes only.
    expect(JSON.stringify(await stack.db.getRepository(InviteCode).find())).not.toContain(code);
  });

  it('verify does not use the code; redeem works once and keeps the person invited', async () => {
    const code = codeIn(invitationsTo(stack, 'ada@example.com')[0]);
    for (let i = 0; i < 2; i++) expect((await client.verify(code)).json()).toEqual({ valid: true, email: 'ada@example.com' });
    expect((await client.redeem(code)).json()).toEqual({ valid: true, email: 'ada@example.com' });
    expect((await client.redeem(code)).json()).toEqual({ valid: false });
    expect((await client.verify(code)).json()).toEqual({ valid: false });
    const record = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'ada@example.com' });
    expect(record.state).toBe('redeemed');
    expect(record.redeemedAt).toBeInstanceOf(Date);
    expect((await stack.request({ method: 'POST', url: '/api/v1/invited', headers: { authorization: `Bearer ${product.keys.test.secret}` }, body: { email: 'ada@example.com' } })).json()).toEqual({ invited: true });
    expect(await stack.db.getRepository(EventRecord).countBy({ type: 'entry.redeemed' })).toBe(1);
  });

  it('invite answers 404, not_confirmed and already_invited as the spec says', async () => {
    const redeemed = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'ada@example.com' });
    await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: pk, email: 'pending@example.com' } });
    await stack.mail.waitFor('pending@example.com');
    const pending = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'pending@example.com' });
    const cases: [string, number, string][] = [
      ['ent_nothing', 404, 'not_found'],
      [pending.id, 409, 'not_confirmed'],
      [redeemed.id, 409, 'already_invited'],
    ];
    for (const [id, status, code] of cases) {
      const response = await client.invite(id);
      expect([response.status, response.json().error.code]).toEqual([status, code]);
    }
    // Another product's or mode's key does not see the entry.
    const live = api(stack, product.keys.live.secret);
    expect((await live.invite(pending.id)).status).toBe(404);
  });

  it('reinvite sends a new code, the old one stops working, invitedAt stays, and no webhook', async () => {
    const waiting = await joinLine(stack, pk, 'again@example.com');
    const first = (await client.invite(waiting.id)).json();
    const oldCode = codeIn(invitationsTo(stack, 'again@example.com')[0]);
    const eventsBefore = await stack.db.getRepository(EventRecord).count();
    const response = await client.reinvite(waiting.id);
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ state: 'invited', invitedAt: first.invitedAt });
    const mails = invitationsTo(stack, 'again@example.com');
    expect(mails).toHaveLength(2);
    const newCode = codeIn(mails[1]);
    expect(newCode).not.toBe(oldCode);
    expect((await client.verify(oldCode)).json()).toEqual({ valid: false });
    expect((await client.verify(newCode)).json()).toEqual({ valid: true, email: 'again@example.com' });
    expect(await stack.db.getRepository(EventRecord).count()).toBe(eventsBefore);
  });

  it('reinvite answers not_invited and already_redeemed', async () => {
    const confirmed = await joinLine(stack, pk, 'not-yet@example.com');
    const redeemed = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'ada@example.com' });
    expect((await client.reinvite(confirmed.id)).json().error.code).toBe('not_invited');
    expect((await client.reinvite(redeemed.id)).json().error.code).toBe('already_redeemed');
    expect((await client.reinvite('ent_nothing')).status).toBe(404);
  });

  it('a deleted entry’s code, another product’s key and a made-up code all verify false, indistinguishably', async () => {
    const waiting = await joinLine(stack, pk, 'deleted@example.com');
    await client.invite(waiting.id);
    const code = codeIn(invitationsTo(stack, 'deleted@example.com')[0]);
    const other = await stack.createProduct({ name: 'Other' });
    const answers = [
      await api(stack, other.keys.test.secret).verify(code),
      await api(stack, product.keys.live.secret).verify(code),
      await client.verify('made-up'),
    ];
    await stack.request({ method: 'DELETE', url: `/api/v1/entries/${waiting.id}`, headers: { authorization: `Bearer ${product.keys.test.secret}` } });
    answers.push(await client.verify(code), await client.redeem(code));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('{"valid":false}');
    }
  });

  it('move-up adds up and answers not_confirmed and already_invited', async () => {
    const [a, b] = await line(stack, pk, ['mover-a@example.com', 'mover-b@example.com']);
    const first = await client.moveUp(b.id, 2);
    expect(first.status).toBe(200);
    expect(first.json()).toMatchObject({ id: b.id, state: 'confirmed' });
    await client.moveUp(b.id, 3);
    expect(await entry(b.id)).toMatchObject({ movedUp: 5, lineKey: b.confirmationSeq! - 5 });
    const invited = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'again@example.com' });
    expect((await client.moveUp(invited.id, 1)).json().error.code).toBe('already_invited');
    const pending = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'pending@example.com' });
    expect((await client.moveUp(pending.id, 1)).json().error.code).toBe('not_confirmed');
    expect((await client.moveUp('ent_nothing', 1)).status).toBe(404);
    for (const places of [0, -1, 1.5, 1_000_001, '3']) {
      const response = await stack.request({ method: 'POST', url: `/api/v1/entries/${a.id}/move-up`, headers: { authorization: `Bearer ${product.keys.test.secret}` }, body: { places } });
      expect([places, response.status, response.json().error.code]).toEqual([places, 400, 'invalid_request']);
    }
  });
});
