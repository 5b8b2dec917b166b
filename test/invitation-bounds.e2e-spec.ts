import { hashToken, newToken } from '@app/shared';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, InvitationApi, invitationsTo, invitationStack, seedLine } from './support/invitations';
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

  it('mailer and waiting API both dead after handovers were marked: the next invite-next records them once and mails the entries after them', async () => {
    // A product of its own, so that the line holds only this test's entries.
    const own = await stack.createProduct();
    const client = api(stack, own.keys.live.secret);
    const rows = await seedLine(stack, { productId: own.id, mode: 'live' }, 5, 'bothdead');
    const [dead, next] = [rows.slice(0, 3), rows.slice(3)];
    // What the two dead processes left: the entries held by their request, its hold run out, each with a marked, unrecorded code.
    const requestId = randomUUID();
    const tokens = dead.map(() => newToken());
    const ago = new Date(Date.now() - 60_000);
    await stack.db.query(`UPDATE entries SET invite_request = $2, invite_held_until = $3 WHERE id = ANY($1)`, [dead.map((row) => row.id), requestId, ago]);
    await stack.db.query(
      `INSERT INTO invite_codes (hash, entry_id, request_id, recorded, handed_over, expires_at, created_at)
       SELECT hash, entry_id, $3, false, true, $4, $5 FROM unnest($1::bytea[], $2::text[]) AS c(hash, entry_id)`,
      [tokens.map(hashToken), dead.map((row) => row.id), requestId, new Date(Date.now() + 86_400_000), ago],
    );

    const answer = await client.inviteNext(2);
    expect(answer.json()).toEqual({ invited: next.map((row) => row.id), failed: [] });
    const after: { state: string; invited_at: Date | null }[] = await stack.db.query(`SELECT state, invited_at FROM entries WHERE id = ANY($1)`, [dead.map((row) => row.id)]);
    expect(after.filter((entry) => entry.state !== 'invited' || !entry.invited_at)).toEqual([]);
    expect(dead.filter((row) => invitationsTo(stack, row.email).length > 0)).toEqual([]);
    const events: { body: string }[] = await stack.db.query(
      `SELECT o.body FROM outbox o JOIN events e ON e.id = o.data->>'eventId' WHERE o.queue = 'webhooks' AND e.type = 'entry.invited' AND e.product_id = $1`,
      [own.id],
    );
    const invitedIds = events.map((event) => JSON.parse(event.body).data.entry.id as string);
    expect(invitedIds.sort()).toEqual(rows.map((row) => row.id).sort());
    for (const [i, row] of dead.entries()) expect((await client.verify(tokens[i])).json()).toEqual({ valid: true, email: row.email });
  });
});
