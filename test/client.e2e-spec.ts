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
  WaitlistClient,
  WaitlistClientOptions,
  WaitlistErrorCode,
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
import { joinLine, signUp } from './support/flows';
import { codeIn, invitationsTo, line } from './support/invitations';
import { Receiver } from './support/receiver';
import { Stack } from './support/stack';
import { apiError, clientOf, clientStack, ENTRY_SHAPE, recording, rejection, undocumented } from './support/client';

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

/** A body read as it goes, as a Node.js stream gives it. */
async function* bytes(text: string): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode(text);
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
});
