import { setTimeout as sleep } from 'node:timers/promises';
import { InvitationApi, invitationsTo, invitationStack, seedLine } from './support/invitations';
import { Product, Stack } from './support/stack';

/** The handover bound is one mail's: a slow SMTP server delays invitations but loses none. */
describe('invitation mails handed over slowly', () => {
  let stack: Stack;
  let product: Product;
  let client: InvitationApi;

  beforeAll(async () => ({ stack, product, client } = await invitationStack({ mode: 'live' })));
  afterEach(() => (stack.mail.beforeAccept = undefined));
  afterAll(() => stack.stop());

  it('an SMTP server taking 8 s a mail: invite-next of 14 over 5 connections invites all 14, one mail each', async () => {
    const rows = await seedLine(stack, { productId: product.id, mode: 'live' }, 14, 'slow');
    stack.mail.beforeAccept = () => sleep(8_000);
    const answer = await client.inviteNext(14);
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ invited: rows.map((row) => row.id), failed: [] });
    expect(rows.filter((row) => invitationsTo(stack, row.email).length !== 1)).toEqual([]);
  }, 90_000);

  it('a server taking 20 ms a mail, handovers ending one by one over a chunk of 20: all recorded in one transaction, at the chunk\'s end', async () => {
    const rows = await seedLine(stack, { productId: product.id, mode: 'live' }, 20, 'onechunk');
    stack.mail.beforeAccept = () => sleep(20);
    const answer = await client.inviteNext(20);
    expect(answer.json()).toEqual({ invited: rows.map((row) => row.id), failed: [] });
    // Marked one by one (a statement per group commit), recorded once: one transaction's `now` is every invitedAt.
    const ids = rows.map((row) => row.id);
    const [{ moments }]: { moments: number }[] = await stack.db.query(`SELECT count(DISTINCT invited_at)::int AS moments FROM entries WHERE id = ANY($1)`, [ids]);
    expect(moments).toBe(1);
    const codes: { handed_over: boolean; recorded: boolean }[] = await stack.db.query(`SELECT handed_over, recorded FROM invite_codes WHERE entry_id = ANY($1)`, [ids]);
    expect(codes).toEqual(rows.map(() => ({ handed_over: true, recorded: true })));
  });
});
