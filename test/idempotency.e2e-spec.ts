import { EntryRecord } from '@app/shared';
import { joinLine } from './support/flows';
import { api, codeIn, InvitationApi, invitationStack, invitationsTo } from './support/invitations';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

describe('Idempotency-Key', () => {
  let stack: Stack;
  let product: Product;
  let pk: string;
  let client: InvitationApi;

  beforeAll(async () => ({ stack, product, pk, client } = await invitationStack()));
  afterAll(() => stack.stop());

  const key = (value: string) => ({ 'idempotency-key': value });

  it('a repeated invite with the same key sends one mail and replays the first answer with Idempotent-Replayed: true', async () => {
    const entry = await joinLine(stack, pk, 'once@example.com');
    const first = await client.invite(entry.id, key('invite-once'));
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await client.invite(entry.id, key('invite-once'));
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(invitationsTo(stack, 'once@example.com')).toHaveLength(1);
    // Without the key the same call is a new request: 409 already_invited.
    expect((await client.invite(entry.id)).json().error.code).toBe('already_invited');
  });

  it('404 and 409 answers are kept and replayed too', async () => {
    const first = await client.invite('ent_missing', key('missing'));
    const again = await client.invite('ent_missing', key('missing'));
    expect([first.status, again.status, again.headers['idempotent-replayed']]).toEqual([404, 404, 'true']);
    expect(again.json()).toEqual(first.json());
  });

  it('the same key for a different request is 422 idempotency_key_reused', async () => {
    const other = await joinLine(stack, pk, 'other@example.com');
    const response = await client.invite(other.id, key('invite-once'));
    expect([response.status, response.json().error.code]).toEqual([422, 'idempotency_key_reused']);
    const nextWithKey = await client.inviteNext(1, key('next-1'));
    expect(nextWithKey.status).toBe(200);
    expect((await client.inviteNext(2, key('next-1'))).json().error.code).toBe('idempotency_key_reused');
    const replay = await client.inviteNext(1, key('next-1'));
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(nextWithKey.json());
    // Keys belong to the key's product and mode: the live key's same key is a new request.
    expect((await api(stack, product.keys.live.secret).inviteNext(1, key('next-1'))).headers['idempotent-replayed']).toBeUndefined();
  });

  it('a repeat is the same request when what the route reads is the same: fields it ignores, a body where it takes none, key order', async () => {
    const post = (url: string, body: string, idempotencyKey: string) =>
      stack.request({ method: 'POST', url, headers: { ...key(idempotencyKey), authorization: `Bearer ${product.keys.test.secret}`, 'content-type': 'application/json' }, payload: body });
    const first = await post('/api/v1/entries/invite-next', '{"count":1}', 'same-count');
    const withExtra = await post('/api/v1/entries/invite-next', '{"note":"again","count":1}', 'same-count');
    expect([first.status, withExtra.status, withExtra.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
    expect(withExtra.json()).toEqual(first.json());
    expect((await post('/api/v1/entries/invite-next', '{"count":2}', 'same-count')).json().error.code).toBe('idempotency_key_reused');

    const entry = await joinLine(stack, pk, 'stray-body@example.com');
    const invited = await client.invite(entry.id, key('no-body'));
    const withBody = await post(`/api/v1/entries/${entry.id}/invite`, '{"unused":true}', 'no-body');
    expect([invited.status, withBody.status, withBody.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
    expect(invitationsTo(stack, 'stray-body@example.com')).toHaveLength(1);
  });

  it('while the first request runs, a repeat is 409 idempotency_in_progress; then it is replayed', async () => {
    const entry = await joinLine(stack, pk, 'slow@example.com');
    await stack.stopApp('mailer');
    const first = client.invite(entry.id, key('slow'));
    await waitFor(async () => (await stack.db.query(`SELECT 1 FROM idempotency_keys WHERE key = 'slow'`)).length === 1, 'the first request to start');
    const during = await client.invite(entry.id, key('slow'));
    expect([during.status, during.json().error.code]).toEqual([409, 'idempotency_in_progress']);
    await stack.startApp('mailer');
    expect((await first).status).toBe(200);
    const after = await client.invite(entry.id, key('slow'));
    expect([after.status, after.headers['idempotent-replayed']]).toEqual([200, 'true']);
  });

  it('after mail_failed nothing is remembered: the same key retries and succeeds', async () => {
    const entry = await joinLine(stack, pk, 'bounce@example.com');
    stack.mail.refuse.add('bounce@example.com');
    const failed = await client.invite(entry.id, key('retry-me'));
    expect([failed.status, failed.json().error.code]).toEqual([502, 'mail_failed']);
    expect((await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: entry.id })).state).toBe('confirmed');
    stack.mail.refuse.clear();
    const retried = await client.invite(entry.id, key('retry-me'));
    expect([retried.status, retried.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect(invitationsTo(stack, 'bounce@example.com')).toHaveLength(1);
  });

  it('redeem with the same key and code replays the first answer; reinvite with a key sends once', async () => {
    const entry = await joinLine(stack, pk, 'redeem-key@example.com');
    await client.invite(entry.id);
    const reinvited = await client.reinvite(entry.id, key('re-1'));
    const replayed = await client.reinvite(entry.id, key('re-1'));
    expect([reinvited.status, replayed.headers['idempotent-replayed']]).toEqual([200, 'true']);
    expect(invitationsTo(stack, 'redeem-key@example.com')).toHaveLength(2);
    const code = codeIn(invitationsTo(stack, 'redeem-key@example.com')[1]);
    const first = await client.redeem(code, key('redeem-1'));
    const again = await client.redeem(code, key('redeem-1'));
    expect(first.json()).toEqual({ valid: true, email: 'redeem-key@example.com' });
    expect([again.json(), again.headers['idempotent-replayed']]).toEqual([{ valid: true, email: 'redeem-key@example.com' }, 'true']);
    expect((await client.redeem(code)).json()).toEqual({ valid: false });
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'a b'],
    ['non-ASCII', 'clé'],
    ['a control character', 'a\tb'],
  ])('a key with %s is 400 invalid_idempotency_key', async (_name, value) => {
    const entry = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'other@example.com' });
    const response = await stack.request({
      method: 'POST',
      url: `/api/v1/entries/${entry.id}/invite`,
      headers: { authorization: `Bearer ${product.keys.test.secret}`, 'idempotency-key': value },
    });
    expect([response.status, response.json().error.code]).toEqual([400, 'invalid_idempotency_key']);
  });

  it('a key of 255 visible characters is accepted', async () => {
    const response = await client.invite('ent_missing', key('~'.repeat(255)));
    expect(response.status).toBe(404);
  });
});

describe('Idempotency-Key memory and expiry of codes', () => {
  let stack: Stack;
  let pk: string;
  let client: InvitationApi;

  beforeAll(async () => ({ stack, pk, client } = await invitationStack({ env: { IDEMPOTENCY_TTL: '1s', INVITE_CODE_TTL: '1s' } })));
  afterAll(() => stack.stop());

  it('a key is forgotten after IDEMPOTENCY_TTL, and a code expires after INVITE_CODE_TTL', async () => {
    const entry = await joinLine(stack, pk, 'short@example.com');
    expect((await client.invite('ent_missing', { 'idempotency-key': 'k' })).status).toBe(404);
    await client.invite(entry.id);
    const code = codeIn(invitationsTo(stack, 'short@example.com')[0]);
    expect((await client.verify(code)).json().valid).toBe(true);
    await waitFor(async () => (await client.verify(code)).json().valid === false, 'the code to expire', { intervalMs: 100 });
    expect((await client.redeem(code)).json()).toEqual({ valid: false });
    const reused = await client.invite(entry.id, { 'idempotency-key': 'k' });
    expect([reused.status, reused.headers['idempotent-replayed']]).toEqual([409, undefined]);
  });
});
