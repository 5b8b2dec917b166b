import { EntryRecord, EventRecord, InviteCode, hashToken } from '@app/shared';
import { joinLine } from './support/flows';
import { codeIn, InvitationApi, invitationStack, invitationsTo } from './support/invitations';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';

/** The hosted invitation page: where the mail of a product without an invite URL links to. */
describe('invitation page', () => {
  let stack: Stack;
  let product: Product;
  let pk: string;
  let client: InvitationApi;

  beforeAll(async () => {
    // The harness makes products without an invite URL, as the demo product of npm start is.
    ({ stack, product, pk, client } = await invitationStack());
    await stack.db.query(`UPDATE products SET name = 'Acme Beta' WHERE id = $1`, [product.id]);
  });
  afterAll(() => stack.stop());

  /** Invites a new confirmed entry and answers the link of its invitation mail. */
  const invited = async (email: string) => {
    const entry = await joinLine(stack, pk, email);
    expect((await client.invite(entry.id)).status).toBe(200);
    return { entry, link: linkIn(invitationsTo(stack, email).at(-1)!, `${stack.config.PUBLIC_BASE_URL}/`) };
  };
  const open = (link: string) => {
    const url = new URL(link, stack.config.PUBLIC_BASE_URL);
    return stack.request({ method: 'GET', url: url.pathname + url.search });
  };
  const expectPage = (answer: Awaited<ReturnType<typeof open>>, status: number) => {
    expect([answer.status, answer.headers['content-type']]).toEqual([status, 'text/html; charset=utf-8']);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(answer.headers['referrer-policy']).toBe('no-referrer');
    expect(answer.text).toMatch(/^<!doctype html>/);
  };
  const stateOf = async (entryId: string) => ({
    entry: await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: entryId }),
    codes: await stack.db.getRepository(InviteCode).find({ where: { entryId }, order: { createdAt: 'ASC' } }),
    events: await stack.db.getRepository(EventRecord).count(),
  });
  const validUntil = (code: InviteCode) => `${code.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

  it("the mail links to the service's invitation page, which shows the address, the product, until when the code works and what the product's sign-up does with it", async () => {
    const { entry, link } = await invited('ada@example.com');
    expect(link.startsWith(`${stack.config.PUBLIC_BASE_URL}/invitation?invite=`)).toBe(true);
    const code = codeIn(invitationsTo(stack, 'ada@example.com')[0]);
    const before = await stateOf(entry.id);

    const page = await open(link);
    expectPage(page, 200);
    expect(page.text).toContain('ada@example.com');
    expect(page.text).toContain('Acme Beta');
    expect(page.text).toContain(validUntil(before.codes[0]));
    expect(page.text).toContain('POST /api/v1/invites/verify');
    expect(page.text).toContain('POST /api/v1/invites/redeem');

    // Opening it again, as a mail scanner and then the person would, changes nothing.
    expect((await open(link)).text).toBe(page.text);
    expect(await stateOf(entry.id)).toEqual(before);
    expect((await client.verify(code)).json()).toEqual({ valid: true, email: 'ada@example.com' });
  });

  it('a used or an expired code shows why with 410, without the address', async () => {
    const cases: [string, (entryId: string, code: string) => Promise<unknown>, string][] = [
      ['used@example.com', (_, code) => client.redeem(code), 'already used'],
      ['late@example.com', (entryId) => stack.db.query(`UPDATE invite_codes SET expires_at = now() - interval '1 minute' WHERE entry_id = $1`, [entryId]), 'expired'],
    ];
    for (const [email, spend, says] of cases) {
      const { entry, link } = await invited(email);
      await spend(entry.id, new URL(link).searchParams.get('invite')!);
      const page = await open(link);
      expectPage(page, 410);
      expect(page.text).toContain(says);
      expect(page.text).not.toContain(email);
    }
  });

  it('an unknown, replaced, missing or malformed code shows the friendly not-found page, never the address', async () => {
    const { entry, link } = await invited('twice@example.com');
    expect((await client.reinvite(entry.id)).status).toBe(200);
    const links = [
      link,
      '/invitation?invite=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      '/invitation',
      '/invitation?invite=',
      `/invitation?invite=${encodeURIComponent(new URL(link).searchParams.get('invite')!)}&invite=x`,
      `/invitation?invite=${encodeURIComponent('é😀\u0000')}`,
      `/invitation?invite=${'x'.repeat(5000)}`,
      '/invitation?invite=%E0%A4%A',
    ];
    for (const each of links) {
      const page = await open(each);
      expectPage(page, 404);
      expect(page.text).toContain('not valid');
      expect(page.text).not.toContain('@example.com');
    }
    // The new mail's link works.
    expectPage(await open(linkIn(invitationsTo(stack, 'twice@example.com').at(-1)!, `${stack.config.PUBLIC_BASE_URL}/`)), 200);
  });

  it('a code whose handover was never recorded is shown as valid and stays unrecorded until verify records it', async () => {
    const { entry, link } = await invited('crash@example.com');
    // What a mailer that died between the SMTP handover and its record leaves behind.
    await stack.db.query(`UPDATE invite_codes SET recorded = false WHERE entry_id = $1`, [entry.id]);
    await stack.db.query(`UPDATE entries SET state = 'confirmed', invited_at = NULL WHERE id = $1`, [entry.id]);
    const before = await stateOf(entry.id);

    const page = await open(link);
    expectPage(page, 200);
    expect(page.text).toContain('crash@example.com');
    expect(await stateOf(entry.id)).toEqual(before);

    const code = new URL(link).searchParams.get('invite')!;
    expect((await client.verify(code)).json()).toEqual({ valid: true, email: 'crash@example.com' });
    expect((await stack.db.getRepository(InviteCode).findOneByOrFail({ hash: hashToken(code) })).recorded).toBe(true);
  });
});
