import { WaitlistClient, WaitlistClientOptions, WaitlistNetworkError, WaitlistTimeoutError } from '@waitlist/client';
import { closedPort } from './support/closed-port';
import { joinLine } from './support/flows';
import { codeIn, invitationsTo, invitationStack, line } from './support/invitations';
import { Receiver } from './support/receiver';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';
import { apiError, checkedFetch, clientOf, clientStack, Fetch, recording, rejection, undocumented } from './support/client';

/** The first answer is read to its end, so the service has handled the request, and then lost, as a broken connection loses it. */
function losingFirstAnswer(inner: Fetch): Fetch {
  let lost = false;
  return async (input, init) => {
    const response = await inner(input, init);
    if (lost) return response;
    lost = true;
    await response.arrayBuffer();
    throw new TypeError('fetch failed');
  };
}

/** The first request goes to a port where nothing listens (connection refused), the others where they were meant to. */
function refusingFirst(inner: Fetch, base: string, refusingBase: string): Fetch {
  let refused = false;
  return (input, init) => {
    if (refused) return inner(input, init);
    refused = true;
    return inner(String(input).replace(base, refusingBase), init);
  };
}

describe(WaitlistClient.name, () => {
  afterEach(() => expect(undocumented.splice(0)).toEqual([]));

  describe('against the service', () => {
    let stack: Stack;
    let base: string;

    beforeAll(async () => {
      ({ stack, base } = await clientStack());
    });
    afterAll(() => stack?.stop());

    const setUp = (options?: Partial<WaitlistClientOptions>) => clientOf(stack, base, options);

    it('gives 502 mail_failed to the caller at once, even with a key; the same key then invites', async () => {
      const { pk, secretKey } = await setUp();
      const { fetch: recorded, sent } = recording();
      const client = new WaitlistClient({ baseUrl: base, secretKey, fetch: recorded });
      const entry = await joinLine(stack, pk, 'bounce@example.com');
      stack.mail.refuse.add('bounce@example.com');

      const failed = await apiError(client.inviteEntry(entry.id, { idempotencyKey: 'invite-bounce' }), [secretKey]);
      expect([failed.status, failed.code, sent.length]).toEqual([502, 'mail_failed', 1]);
      expect(await client.getEntry(entry.id)).toMatchObject({ state: 'confirmed' });

      stack.mail.refuse.delete('bounce@example.com');
      expect(await client.inviteEntry(entry.id, { idempotencyKey: 'invite-bounce' })).toMatchObject({ state: 'invited' });
      expect(invitationsTo(stack, 'bounce@example.com')).toHaveLength(1);
    });

    it('with safeRetry, a call whose answer was lost is sent again with the same key and gets the first answer: one mail, one redemption', async () => {
      const { pk, secretKey } = await setUp();
      const [una, vic, wes] = await line(stack, pk, ['una@example.com', 'vic@example.com', 'wes@example.com']);
      const client = (inner: Fetch) => new WaitlistClient({ baseUrl: base, secretKey, fetch: losingFirstAnswer(inner) });

      const invite = recording();
      expect(await client(invite.fetch).inviteEntry(una.id, { safeRetry: true })).toMatchObject({ id: una.id, state: 'invited' });
      expect(invite.sent.map((row) => [row.status, row.replayed])).toEqual([[200, false], [200, true]]);
      const key = invite.sent[0].headers.get('idempotency-key');
      expect(key).toMatch(/^[0-9a-f-]{36}$/);
      expect(invite.sent[1].headers.get('idempotency-key')).toBe(key);
      expect(invitationsTo(stack, 'una@example.com')).toHaveLength(1);

      const reinvite = recording();
      expect(await client(reinvite.fetch).reinviteEntry(una.id, { idempotencyKey: 'reinvite-una' })).toMatchObject({ state: 'invited' });
      expect(reinvite.sent.map((row) => [row.status, row.replayed, row.headers.get('idempotency-key')])).toEqual([
        [200, false, 'reinvite-una'],
        [200, true, 'reinvite-una'],
      ]);
      expect(invitationsTo(stack, 'una@example.com')).toHaveLength(2);

      const next = recording();
      expect(await client(next.fetch).inviteNext(1, { safeRetry: true })).toEqual({ invited: [vic.id], failed: [] });
      expect(next.sent.map((row) => row.replayed)).toEqual([false, true]);
      expect(invitationsTo(stack, 'vic@example.com')).toHaveLength(1);
      expect(await client(checkedFetch).placeInLine(wes.id)).toMatchObject({ place: 1 });

      const redeem = recording();
      const code = codeIn(invitationsTo(stack, 'una@example.com')[1]);
      expect(await client(redeem.fetch).redeemInvite(code, { safeRetry: true })).toEqual({ valid: true, email: 'una@example.com' });
      expect(redeem.sent.map((row) => row.replayed)).toEqual([false, true]);

      // Each call makes its own key.
      const keys = [invite, next, redeem].map(({ sent }) => sent[0].headers.get('idempotency-key'));
      expect(new Set(keys).size).toBe(3);
    });

    it('never repeats a call that carries no key after its answer was lost: the caller gets WaitlistNetworkError', async () => {
      const { pk, secretKey } = await setUp();
      const [xia, yan] = await line(stack, pk, ['xia@example.com', 'yan@example.com']);
      const client = (inner: Fetch) => new WaitlistClient({ baseUrl: base, secretKey, fetch: losingFirstAnswer(inner) });

      for (const call of [(c: WaitlistClient) => c.inviteEntry(xia.id), (c: WaitlistClient) => c.moveUp(yan.id, 1), (c: WaitlistClient) => c.deleteEntry(yan.id)]) {
        const { fetch: recorded, sent } = recording();
        const error = await rejection(call(client(recorded)));
        expect(error).toBeInstanceOf(WaitlistNetworkError);
        expect((error as Error).message).not.toContain(secretKey);
        expect((error as Error).cause).toBeInstanceOf(TypeError);
        expect(sent).toHaveLength(1);
      }
      // Each was handled once.
      expect(invitationsTo(stack, 'xia@example.com')).toHaveLength(1);
      expect((await client(checkedFetch).listEntries()).data.map((entry) => [entry.email, entry.state])).toEqual([['xia@example.com', 'invited']]);
    });

    it('repeats a refused connection for reads, verify, the invited check and keyed calls; never for a write without a key', async () => {
      const { pk, secretKey, client: plain } = await setUp();
      const refusing = await closedPort();
      const [zed, amy] = await line(stack, pk, ['zed@example.com', 'amy@example.com']);
      await plain.inviteEntry(amy.id);
      const code = codeIn(invitationsTo(stack, 'amy@example.com')[0]);
      const client = (options: Partial<WaitlistClientOptions> = {}) => {
        const { fetch: recorded, sent } = recording();
        return { client: new WaitlistClient({ baseUrl: base, secretKey, fetch: refusingFirst(recorded, base, refusing), ...options }), sent };
      };

      const safe: [string, (c: WaitlistClient) => Promise<unknown>, unknown][] = [
        ['getEntry', (c) => c.getEntry(zed.id), expect.objectContaining({ id: zed.id })],
        ['listEntries', (c) => c.listEntries({ email: 'zed@example.com' }), expect.objectContaining({ data: [expect.objectContaining({ id: zed.id })] })],
        ['placeInLine', (c) => c.placeInLine(zed.id), expect.objectContaining({ place: 1 })],
        ['isInvited', (c) => c.isInvited('amy@example.com'), true],
        ['verifyInvite', (c) => c.verifyInvite(code), { valid: true, email: 'amy@example.com' }],
        ['redeemInvite with safeRetry', (c) => c.redeemInvite(code, { safeRetry: true }), { valid: true, email: 'amy@example.com' }],
      ];
      for (const [name, call, answer] of safe) {
        const { client: c, sent } = client();
        expect([name, await call(c), sent.length]).toEqual([name, answer, 2]);
      }

      const { client: once, sent: onceSent } = client({ maxRetries: 0 });
      expect(await rejection(once.getEntry(zed.id))).toBeInstanceOf(WaitlistNetworkError);
      expect(onceSent).toHaveLength(1);

      const { client: unkeyed, sent: unkeyedSent } = client();
      expect(await rejection(unkeyed.inviteEntry(zed.id))).toBeInstanceOf(WaitlistNetworkError);
      expect(unkeyedSent).toHaveLength(1);
      expect(await plain.getEntry(zed.id)).toMatchObject({ state: 'confirmed' });

      const { client: keyed, sent: keyedSent } = client();
      expect(await keyed.inviteEntry(zed.id, { safeRetry: true })).toMatchObject({ state: 'invited' });
      expect(keyedSent.map((row) => row.status)).toEqual([undefined, 200]);
      expect(invitationsTo(stack, 'zed@example.com')).toHaveLength(1);
    });

    it('asks again a little later while the first request with the same key is still running', async () => {
      const { pk, secretKey } = await setUp();
      const entry = await joinLine(stack, pk, 'slow@example.com');
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let arrived = false;
      stack.mail.beforeAccept = async (mail) => {
        if (mail.to !== 'slow@example.com') return;
        arrived = true;
        await released;
      };
      try {
        const first = new WaitlistClient({ baseUrl: base, secretKey, fetch: checkedFetch }).inviteEntry(entry.id, { idempotencyKey: 'slow-invite' });
        await waitFor(() => arrived, 'the invitation mail to reach the SMTP server');
        // The second client sees its 409 only once the first request has finished, so its retry finds the answer.
        const { fetch: recorded, sent } = recording(async (input, init) => {
          const response = await checkedFetch(input, init);
          if (response.status === 409) {
            release();
            await first;
          }
          return response;
        });
        const second = new WaitlistClient({ baseUrl: base, secretKey, fetch: recorded });
        const [a, b] = await Promise.all([first, second.inviteEntry(entry.id, { idempotencyKey: 'slow-invite' })]);
        expect(b).toEqual(a);
        expect(sent.map((row) => [row.status, row.replayed])).toEqual([[409, false], [200, true]]);
        expect(invitationsTo(stack, 'slow@example.com')).toHaveLength(1);
      } finally {
        release();
        stack.mail.beforeAccept = undefined;
      }
    });

    it('gives up an attempt after timeoutMs: WaitlistTimeoutError, repeated only for calls safe to repeat', async () => {
      const silent = await new Receiver().start();
      silent.answer = () => 'hang';
      try {
        const { secretKey } = await setUp();
        const client = new WaitlistClient({ baseUrl: silent.url, secretKey, timeoutMs: 100 });

        const read = await rejection(client.getEntry('ent_1'));
        expect(read).toBeInstanceOf(WaitlistTimeoutError);
        expect((read as Error).message).toBe('GET /api/v1/entries/ent_1 got no answer within 100 ms.');
        expect(silent.received).toHaveLength(3);

        expect(await rejection(client.moveUp('ent_1', 1))).toBeInstanceOf(WaitlistTimeoutError);
        expect(await rejection(client.verifyInvite('a-code', { timeoutMs: 50 }))).toBeInstanceOf(WaitlistTimeoutError);
        expect(silent.received).toHaveLength(7);
        expect(silent.received.slice(3).map((request) => JSON.parse(request.body))).toEqual([{ places: 1 }, { token: 'a-code' }, { token: 'a-code' }, { token: 'a-code' }]);
        expect(silent.received.every((request) => request.headers.authorization === `Bearer ${secretKey}`)).toBe(true);

        // An invitation waits for its mail longer than the client's timeoutMs: a move-up that began after it and timed out did not end it.
        const controller = new AbortController();
        let settled = false;
        const invite = rejection(client.inviteEntry('ent_2', { signal: controller.signal })).finally(() => (settled = true));
        await silent.waitFor(8);
        expect(await rejection(client.moveUp('ent_1', 1, { timeoutMs: 300 }))).toBeInstanceOf(WaitlistTimeoutError);
        expect(settled).toBe(false);
        // The caller's signal ends the call at once, retries and all, with its own reason.
        const reason = new Error('the hook ran out of time');
        controller.abort(reason);
        expect(await invite).toBe(reason);
        expect(silent.received).toHaveLength(9);
      } finally {
        await silent.stop();
      }
    });
  });

  describe('and the rate limit', () => {
    let stack: Stack;
    let base: string;

    beforeAll(async () => {
      ({ stack } = await invitationStack({ env: { RATE_LIMIT_API: '3/2s' } }));
      base = await stack.url();
    });
    afterAll(() => stack?.stop());

    async function product(): Promise<Product> {
      return stack.createProduct();
    }

    it('waits out Retry-After on 429 and sends again, a write without a key too', async () => {
      const { keys } = await product();
      const [entry] = await line(stack, keys.test.publishable, ['patient@example.com']);
      const { fetch: recorded, sent } = recording();
      const client = new WaitlistClient({ baseUrl: base, secretKey: keys.test.secret, fetch: recorded });

      for (let i = 0; i < 3; i++) await client.getEntry(entry.id);
      expect(await client.inviteEntry(entry.id)).toMatchObject({ state: 'invited' });
      expect(sent.map((row) => row.status)).toEqual([200, 200, 200, 429, 200]);
      expect(invitationsTo(stack, 'patient@example.com')).toHaveLength(1);
      const [limited, retried] = sent.slice(3);
      expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(retried.sentAt - limited.answeredAt!).toBeGreaterThanOrEqual(Number(limited.retryAfter) * 1000);
    });

    it('gives the 429 to the caller once its retries are used up, with retryAfterSeconds', async () => {
      const { keys } = await product();
      const { fetch: recorded, sent } = recording();
      const client = new WaitlistClient({ baseUrl: base, secretKey: keys.test.secret, fetch: recorded, maxRetries: 0 });
      for (let i = 0; i < 3; i++) await client.isInvited('someone@example.com');
      const error = await apiError(client.isInvited('someone@example.com'), [keys.test.secret]);
      expect({ status: error.status, code: error.code, sent: sent.length }).toEqual({ status: 429, code: 'rate_limited', sent: 4 });
      expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(error.retryAfterSeconds).toBeLessThanOrEqual(2);
    });
  });
});
