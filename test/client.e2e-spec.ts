import type { ENTRY, EVENT_ENVELOPE } from '@app/shared';
import {
  CodeCheck,
  Entry,
  EntryPage,
  InviteNextResult,
  PlaceHistory,
  PlaceInLine,
  Referral,
  ReferralPage,
  verifyWebhook,
  WaitlistApiError,
  WaitlistClient,
  WaitlistClientOptions,
  WaitlistErrorCode,
  WaitlistNetworkError,
  WaitlistTimeoutError,
  WebhookEvent,
  WebhookVerificationError,
} from '@waitlist/client';
import type { z } from 'zod';
import type { ErrorCode } from '../apps/api/src/common/api-error';
import type { ENTRY_PAGE } from '../apps/api/src/entries/entries.dto';
import type { CODE_CHECK, INVITE_NEXT_RESULT, INVITED_ANSWER } from '../apps/api/src/invitations/invitations.dto';
import type { PLACE_HISTORY, STANDING } from '../apps/api/src/line/line.dto';
import type { REFERRAL, REFERRAL_PAGE } from '../apps/api/src/referrals/referrals.dto';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { closedPort } from './support/closed-port';
import { joinLine, signUp } from './support/flows';
import { codeIn, invitationsTo, invitationStack, line } from './support/invitations';
import { validatingFetch } from './support/openapi';
import { Receiver } from './support/receiver';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

/** True when each type is assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/** The literal codes of a union that also takes any string. */
type Named<T> = T extends string ? (string extends T ? never : T) : never;
/** Codes only the dashboard and the CLI meet, and the mail providers at their hooks. */
type DashboardOnly = 'forbidden' | 'delivery_not_waiting' | 'queue_unavailable' | 'provider_unavailable';

/**
 * The client's hand-written types are the service's, as the zod schemas its answers are typed from
 * say: tsc refuses this file when either side changes alone. The client names every code the API
 * answers with, and none it does not (but its own unexpected_response).
 */
export type ClientMatchesService = [
  Holds<Same<Entry, z.infer<typeof ENTRY>>>,
  Holds<Same<EntryPage, z.infer<typeof ENTRY_PAGE>>>,
  Holds<Same<InviteNextResult, z.infer<typeof INVITE_NEXT_RESULT>>>,
  Holds<Same<PlaceInLine, z.infer<typeof STANDING>>>,
  Holds<Same<PlaceHistory, z.infer<typeof PLACE_HISTORY>>>,
  Holds<Same<Referral, z.infer<typeof REFERRAL>>>,
  Holds<Same<ReferralPage, z.infer<typeof REFERRAL_PAGE>>>,
  Holds<Same<CodeCheck, z.infer<typeof CODE_CHECK>>>,
  Holds<Same<{ invited: boolean }, z.infer<typeof INVITED_ANSWER>>>,
  Holds<Same<WebhookEvent, z.infer<typeof EVENT_ENVELOPE>>>,
  Holds<Same<Named<WaitlistErrorCode>, Exclude<ErrorCode, DashboardOnly> | 'unexpected_response'>>,
];

/**
 * Every answer the client gets from the service is checked against the OpenAPI document. The client
 * would take the check's error for a broken connection (and might try again), so each one is also
 * kept here, and every test ends with none.
 */
const undocumented: string[] = [];
const validating = validatingFetch();
const checkedFetch: typeof fetch = async (input, init) => {
  try {
    return await validating(input, init);
  } catch (error) {
    // fetch's own failures are TypeErrors (of Node's realm, not jest's: so by name); anything else is the document's check.
    if ((error as Error).name !== 'TypeError') undocumented.push(String(error));
    throw error;
  }
};

/** What the client sent and what it got, one row per HTTP request. */
interface Sent {
  method: string;
  url: string;
  headers: Headers;
  status?: number;
  replayed?: boolean;
  retryAfter?: string | null;
  sentAt: number;
  answeredAt?: number;
}

type Fetch = typeof fetch;

/** A fetch (by default the checked one) that records every request the client makes and its answer. */
function recording(inner: Fetch = checkedFetch): { fetch: Fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const wrapped: Fetch = async (input, init) => {
    const row: Sent = { method: init?.method ?? 'GET', url: String(input), headers: new Headers(init?.headers), sentAt: Date.now() };
    sent.push(row);
    const response = await inner(input, init);
    row.answeredAt = Date.now();
    row.status = response.status;
    row.replayed = response.headers.get('idempotent-replayed') === 'true';
    row.retryAfter = response.headers.get('retry-after');
    return response;
  };
  return { fetch: wrapped, sent };
}

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


/** The error a promise rejects with (fails when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`Expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/** The WaitlistApiError a call rejects with, checked to carry neither the key nor a code. */
async function apiError(promise: Promise<unknown>, secrets: string[]): Promise<WaitlistApiError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(WaitlistApiError);
  for (const secret of secrets) expect(`${String(error)} ${JSON.stringify(error)}`).not.toContain(secret);
  return error as WaitlistApiError;
}

/** A body read as it goes, as a Node.js stream gives it. */
async function* bytes(text: string): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode(text);
}

/** Matches null or any string, as the nullable fields of an entry hold. */
const stringOrNull = { asymmetricMatch: (value: unknown) => value === null || typeof value === 'string', toString: () => 'string or null' };

const ENTRY_SHAPE = {
  id: expect.stringMatching(/^ent_/),
  email: expect.any(String),
  state: expect.stringMatching(/^(pending|confirmed|invited|redeemed)$/),
  createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  confirmedAt: stringOrNull,
  invitedAt: stringOrNull,
  redeemedAt: stringOrNull,
  referralCode: stringOrNull,
  referrals: expect.any(Number),
};

describe(WaitlistClient.name, () => {
  afterEach(() => expect(undocumented.splice(0)).toEqual([]));

  describe('against the service', () => {
    let stack: Stack;
    let base: string;

    beforeAll(async () => {
      ({ stack } = await invitationStack({ apps: ['api', 'mailer', 'webhooks'], env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } }));
      base = await stack.url();
    });
    afterAll(() => stack?.stop());

    /** A product of its own for each test, and a client of its test secret key. */
    async function setUp(options: Partial<WaitlistClientOptions> = {}) {
      const product = await stack.createProduct();
      const secretKey = product.keys.test.secret;
      const client = new WaitlistClient({ baseUrl: base, secretKey, fetch: checkedFetch, ...options });
      return { product, pk: product.keys.test.publishable, secretKey, client };
    }

    it('lists entries newest first, page by page, filtered by state and by address, and reads one', async () => {
      const { pk, client } = await setUp();
      const [ada, bob, cy] = await line(stack, pk, ['ada@example.com', 'bob@example.com', 'cy@example.com']);
      await signUp(stack, pk, 'dee@example.com');

      const all = await client.listEntries({ limit: 100 });
      expect(all.data.map((entry) => entry.email)).toEqual(['dee@example.com', 'cy@example.com', 'bob@example.com', 'ada@example.com']);
      expect(all.nextCursor).toBeNull();
      for (const entry of all.data) expect(entry).toEqual(ENTRY_SHAPE);

      const first = await client.listEntries({ limit: 3 });
      expect(first.data).toEqual(all.data.slice(0, 3));
      const second = await client.listEntries({ limit: 3, cursor: first.nextCursor! });
      expect(second).toEqual({ data: all.data.slice(3), nextCursor: null });

      const paged: Entry[] = [];
      for await (const entry of client.entries({ limit: 1 })) paged.push(entry);
      expect(paged).toEqual(all.data);
      const confirmed: Entry[] = [];
      for await (const entry of client.entries({ state: 'confirmed', limit: 2 })) confirmed.push(entry);
      expect(confirmed.map((entry) => entry.id)).toEqual([cy.id, bob.id, ada.id]);

      expect((await client.listEntries({ state: 'pending' })).data.map((entry) => entry.email)).toEqual(['dee@example.com']);
      expect(await client.listEntries({ email: ' Ada@Example.com ' })).toEqual({ data: [all.data[3]], nextCursor: null });
      expect(await client.getEntry(ada.id)).toEqual(all.data[3]);
      expect(await client.getEntryProfile(ada.id)).toEqual({ id: ada.id, locale: 'en', answers: {}, attribution: {} });
    });

    it('invites and invites again by mail; the code verifies, redeems once, and the address is invited', async () => {
      const { pk, client } = await setUp();
      const entry = await joinLine(stack, pk, 'grace@example.com');

      const invited = await client.inviteEntry(entry.id);
      expect(invited).toEqual({ ...ENTRY_SHAPE, id: entry.id, email: 'grace@example.com', state: 'invited', invitedAt: expect.any(String) });
      const firstCode = codeIn(invitationsTo(stack, 'grace@example.com')[0]);
      expect(await client.isInvited(' GRACE@example.com')).toBe(true);
      expect(await client.isInvited('nobody@example.com')).toBe(false);
      expect(await client.verifyInvite(firstCode)).toEqual({ valid: true, email: 'grace@example.com' });

      const again = await client.reinviteEntry(entry.id);
      expect(again).toEqual({ ...invited, state: 'invited' });
      const codes = invitationsTo(stack, 'grace@example.com').map(codeIn);
      expect(codes).toHaveLength(2);
      expect(await client.verifyInvite(firstCode)).toEqual({ valid: false });

      const redeemed: CodeCheck = await client.redeemInvite(codes[1]);
      expect(redeemed).toEqual({ valid: true, email: 'grace@example.com' });
      if (redeemed.valid) expect(redeemed.email).toBe('grace@example.com');
      expect(await client.redeemInvite(codes[1])).toEqual({ valid: false });
      expect(await client.getEntry(entry.id)).toMatchObject({ state: 'redeemed', redeemedAt: expect.any(String) });
      expect(await client.isInvited('grace@example.com')).toBe(true);
    });

    it('moves up, answers the place in line, invites the next in line and deletes', async () => {
      const { pk, client } = await setUp();
      const [hal, ida, jo] = await line(stack, pk, ['hal@example.com', 'ida@example.com', 'jo@example.com']);

      expect(await client.placeInLine(jo.id)).toEqual({ place: 3, lineLength: 3, estimatedWaitDays: null });
      expect(await client.moveUp(jo.id, 2)).toMatchObject({ id: jo.id, state: 'confirmed' });
      expect(await client.placeInLine(jo.id)).toEqual({ place: 1, lineLength: 3, estimatedWaitDays: null });

      expect(await client.inviteNext(2)).toEqual({ invited: [jo.id, hal.id], failed: [] });
      expect(invitationsTo(stack, 'jo@example.com')).toHaveLength(1);
      expect(invitationsTo(stack, 'hal@example.com')).toHaveLength(1);
      // Two invitations in the last 30 days: 2/30 a day, one place is 15 days.
      expect(await client.placeInLine(ida.id)).toEqual({ place: 1, lineLength: 1, estimatedWaitDays: 15 });

      await expect(client.deleteEntry(ida.id)).resolves.toBeUndefined();
      expect((await apiError(client.getEntry(ida.id), [])).code).toBe('not_found');
      expect(await client.inviteNext(5)).toEqual({ invited: [], failed: [] });
    });

    it('schedules, lists, changes, pauses, runs and deletes a release, and reads its runs', async () => {
      const { pk, client } = await setUp();
      const [kai] = await line(stack, pk, ['kai@example.com', 'lev@example.com']);
      const release = await client.createRelease({ count: 1, pattern: '0 9 * * 1', timeZone: 'Europe/Berlin' });
      expect(release).toMatchObject({ count: 1, pattern: '0 9 * * 1', timeZone: 'Europe/Berlin', paused: false, mode: 'test' });
      expect(await client.listReleases()).toEqual([release]);
      expect(await client.getRelease(release.id)).toEqual(release);
      expect(await client.updateRelease(release.id, { count: 2 })).toMatchObject({ count: 2 });
      expect(await client.pauseRelease(release.id)).toMatchObject({ paused: true, nextRunAt: null });
      expect(await client.resumeRelease(release.id)).toMatchObject({ paused: false });
      const run = await client.runRelease(release.id);
      expect(run).toMatchObject({ asked: 2, invited: 2, failed: 0, skippedForCapacity: 0, tickAt: null });
      expect(await client.releaseRuns(release.id)).toEqual([run]);
      expect(invitationsTo(stack, kai.email)).toHaveLength(1);
      await expect(client.deleteRelease(release.id)).resolves.toBeUndefined();
      expect((await apiError(client.getRelease(release.id), [])).code).toBe('not_found');
    });

    it('turns every refusal into a WaitlistApiError with the status, code, message and param of the answer, sent once', async () => {
      const { pk, secretKey, client: plain } = await setUp();
      const { fetch: recorded, sent } = recording();
      const client = new WaitlistClient({ baseUrl: base, secretKey, fetch: recorded });
      const [waiting, invited, redeemed] = await line(stack, pk, ['kim@example.com', 'lee@example.com', 'max@example.com']);
      await signUp(stack, pk, 'ned@example.com');
      const pending = (await plain.listEntries({ state: 'pending' })).data[0];
      await plain.inviteEntry(invited.id);
      await plain.inviteEntry(redeemed.id);
      const inviteCode = codeIn(invitationsTo(stack, 'max@example.com')[0]);
      await plain.redeemInvite(inviteCode);
      await plain.redeemInvite('made-up-code', { idempotencyKey: 'key-used-once' });
      const wrongKey = new WaitlistClient({ baseUrl: base, secretKey: 'sk_test_not_a_key', fetch: recorded });

      const cases: [string, () => Promise<unknown>, number, string, string?][] = [
        ['an unknown key', () => wrongKey.listEntries(), 401, 'unauthorized'],
        ['a read of an unknown entry', () => client.getEntry('ent_missing'), 404, 'not_found'],
        ['a delete of an unknown entry', () => client.deleteEntry('ent_missing'), 404, 'not_found'],
        ['an invitation of an unknown entry', () => client.inviteEntry('ent_missing', { safeRetry: true }), 404, 'not_found'],
        ['an invitation of a pending entry', () => client.inviteEntry(pending.id), 409, 'not_confirmed'],
        ['the place of a pending entry', () => client.placeInLine(pending.id), 409, 'not_confirmed'],
        ['an invitation of an invited entry', () => client.inviteEntry(invited.id), 409, 'already_invited'],
        ['a move-up of an invited entry', () => client.moveUp(invited.id, 1), 409, 'already_invited'],
        ['a reinvite of a waiting entry', () => client.reinviteEntry(waiting.id), 409, 'not_invited'],
        ['a reinvite of a redeemed entry', () => client.reinviteEntry(redeemed.id), 409, 'already_redeemed'],
        ['a list by a malformed address', () => client.listEntries({ email: 'not-an-address' }), 400, 'invalid_email', 'email'],
        ['the invited check of a malformed address', () => client.isInvited('not-an-address'), 400, 'invalid_email', 'email'],
        ['a cursor the API did not issue', () => client.listEntries({ cursor: 'made-up' }), 400, 'invalid_cursor'],
        ['a page of 101', () => client.listEntries({ limit: 101 }), 400, 'invalid_request', 'limit'],
        ['a move-up by 0', () => client.moveUp(waiting.id, 0), 400, 'invalid_request', 'places'],
        ['invite-next of 0', () => client.inviteNext(0), 400, 'invalid_request', 'count'],
        ['an import whose mapping names no email column', () => client.importEntries('Mail\nada@example.com\n', { dryRun: true, mapping: { Mail: 'createdAt' } }), 400, 'invalid_request', 'mapping'],
        ['a streamed import of a JSON mapping gone wrong', () => client.importEntries(bytes('Mail\n'), { mapping: { Mail: 'email', Code: 'email' } }), 400, 'invalid_request', 'mapping'],
        ['a key with a space', () => client.inviteEntry(waiting.id, { idempotencyKey: 'two words' }), 400, 'invalid_idempotency_key'],
        ['a key used for another request', () => client.redeemInvite('another-code', { idempotencyKey: 'key-used-once' }), 422, 'idempotency_key_reused'],
      ];
      for (const [name, call, status, code, param] of cases) {
        const before = sent.length;
        const error = await apiError(call(), [secretKey, 'sk_test_not_a_key', inviteCode]);
        const seen = { name, status: error.status, code: error.code, param: param && error.param, requests: sent.length - before };
        expect(seen).toEqual({ name, status, code, param, requests: 1 });
        expect(error.message).toEqual(expect.any(String));
        expect(error.name).toBe('WaitlistApiError');
      }
      expect(await plain.getEntry(waiting.id)).toMatchObject({ state: 'confirmed' });
    });

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

    describe(verifyWebhook.name, () => {
      it('returns the event of a real delivery (body as text or bytes) and refuses it tampered, under another secret, too old or too new', async () => {
        const { product, pk } = await setUp();
        const receiver = await new Receiver().start();
        try {
          const hooks = stack.api.get(WebhooksService);
          const { secret } = await hooks.create({ productId: product.id, mode: 'test', url: receiver.url });
          await signUp(stack, pk, 'hooked@example.com');
          const [delivery] = await receiver.waitFor(1);
          const header = String(delivery.headers['service-signature']);

          const event: WebhookEvent = await verifyWebhook(delivery.body, header, secret);
          expect(event).toEqual({
            id: expect.stringMatching(/^evt_/),
            type: 'entry.created',
            createdAt: expect.any(String),
            mode: 'test',
            productId: product.id,
            data: { entry: { ...ENTRY_SHAPE, email: 'hooked@example.com', state: 'pending' } },
          });
          if (event.type === 'entry.created') expect(event.data.entry.state).toBe('pending');
          await expect(verifyWebhook(new TextEncoder().encode(delivery.body), header, secret)).resolves.toEqual(event);

          const refusal = async (body: string, signature: string | undefined, key: string, now?: Date) => {
            const error = await rejection(verifyWebhook(body, signature, key, { now }));
            expect(error).toBeInstanceOf(WebhookVerificationError);
            expect((error as Error).message).not.toContain(key);
            return (error as WebhookVerificationError).reason;
          };
          const signedAt = Number(/t=(\d+)/.exec(header)![1]);
          expect(await refusal(delivery.body.replace('hooked@', 'hacked@'), header, secret)).toBe('no_matching_signature');
          expect(await refusal(`${delivery.body} `, header, secret)).toBe('no_matching_signature');
          expect(await refusal(delivery.body, header, 'whsec_wrong')).toBe('no_matching_signature');
          expect(await refusal(delivery.body, header.replace(`t=${signedAt}`, `t=${signedAt + 1}`), secret)).toBe('no_matching_signature');
          expect(await refusal(delivery.body, header, secret, new Date((signedAt + 301) * 1000))).toBe('timestamp_too_old');
          expect(await refusal(delivery.body, header, secret, new Date((signedAt - 301) * 1000))).toBe('timestamp_too_new');
          expect(await refusal(delivery.body, undefined, secret)).toBe('missing_header');
          expect(await refusal(delivery.body, header.split(',')[1], secret)).toBe('malformed_header');
        } finally {
          await receiver.stop();
        }
      });

      it('accepts a delivery after a secret rotation with the new secret and with the old one', async () => {
        const { product, pk } = await setUp();
        const receiver = await new Receiver().start();
        try {
          const hooks = stack.api.get(WebhooksService);
          const endpoint = await hooks.create({ productId: product.id, mode: 'test', url: receiver.url });
          const rotated = await hooks.rotateSecret(endpoint.id);
          await signUp(stack, pk, 'rotated@example.com');
          const [delivery] = await receiver.waitFor(1);
          const header = String(delivery.headers['service-signature']);
          expect(header.match(/v1=/g)).toHaveLength(2);
          for (const secret of [rotated.secret, endpoint.secret]) {
            await expect(verifyWebhook(delivery.body, header, secret)).resolves.toMatchObject({ type: 'entry.created' });
          }
        } finally {
          await receiver.stop();
        }
      });
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
