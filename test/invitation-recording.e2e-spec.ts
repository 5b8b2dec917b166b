import { setTimeout as sleep } from 'node:timers/promises';
import { InvitationApi, invitationStack, seedLine } from './support/invitations';
import { Product, Stack } from './support/stack';

/**
 * What a chunk of invite-next costs the database: its handovers are marked one statement per group
 * commit while the mails go, and recorded (entries invited, entry.invited) in one transaction at its end.
 */
describe('the recording of a chunk of invitations', () => {
  let stack: Stack;
  let product: Product;
  let client: InvitationApi;

  beforeAll(async () => ({ stack, product, client } = await invitationStack({ mode: 'live' })));
  afterEach(() => (stack.mail.beforeAccept = undefined));
  afterAll(() => stack.stop());

  it('handovers ending one by one over a chunk of 20: every entry invited by one transaction, at the chunk\'s end', async () => {
    const rows = await seedLine(stack, { productId: product.id, mode: 'live' }, 20, 'onechunk');
    // A server taking 20 ms a mail: the handovers of the 5 connections end at different moments.
    stack.mail.beforeAccept = () => sleep(20);
    const answer = await client.inviteNext(20);
    expect(answer.json()).toEqual({ invited: rows.map((row) => row.id), failed: [] });
    // One transaction's `now` is every entry's invitedAt and every entry.invited's time.
    const [{ moments }]: { moments: number }[] = await stack.db.query(`SELECT count(DISTINCT invited_at)::int AS moments FROM entries WHERE id = ANY($1)`, [rows.map((row) => row.id)]);
    expect(moments).toBe(1);
    const codes: { handed_over: boolean; recorded: boolean }[] = await stack.db.query(`SELECT handed_over, recorded FROM invite_codes WHERE entry_id = ANY($1)`, [rows.map((row) => row.id)]);
    expect(codes).toEqual(rows.map(() => ({ handed_over: true, recorded: true })));
  });
});
