import { ENTRY } from '@app/shared';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { ENTRY_ID, ENTRY_LIST_QUERY, ENTRY_PAGE, EntryPage, LIST_QUERY } from '../entries/entries.dto';
import { CODE_CHECK, EMAIL_ONLY, INVITE_NEXT, INVITE_NEXT_RESULT, INVITED_ANSWER, TOKEN } from '../invitations/invitations.dto';
import { MOVE_UP, PLACE_HISTORY, PlaceHistory, STANDING, Standing } from '../line/line.dto';
import { REFERRAL, REFERRAL_ID, REFERRAL_PAGE, ReferralView } from '../referrals/referrals.dto';
import { IMPORT_QUERY, IMPORT_REPORT, ImportReport } from '../imports/imports.dto';
import { exampleEntry } from './examples';
import { PROFILE_PATHS } from './profile-paths';
import { RELEASE_PATHS } from './release-paths';
import { answerHeaders, errorResponses, requestHeaders, secretKeyOperation } from './operations';

export const OPENAPI_JSON_PATH = '/api/v1/openapi.json';

const WAITING = exampleEntry('confirmed');
const INVITED = exampleEntry('invited');
const PAGE: EntryPage = { data: [INVITED, { ...WAITING, id: 'ent_0d4e8b1f6a2c9e3b7d5a1f08', email: 'grace@example.com', referralCode: 'p4t8h2n6c3vy', referrals: 0 }], nextCursor: null };
const PLACE: Standing = { place: 2, lineLength: 120, estimatedWaitDays: 60 };
const ENTRY_OK = { status: 200, schema: ENTRY } as const;
const WITHHELD: ReferralView = {
  id: 'rfl_4c1e9a7d2b8f3e6a0d5c9b17',
  entryId: 'ent_0d4e8b1f6a2c9e3b7d5a1f08',
  email: 'grace@mailinator.com',
  state: 'withheld',
  reasons: ['disposable_domain'],
  signedUpAt: '2026-11-03T10:02:11.340Z',
  confirmedAt: '2026-11-03T10:04:52.018Z',
  creditAt: null,
};
const GRANTED: ReferralView = { ...WITHHELD, state: 'credited', reasons: ['disposable_domain', 'granted_by_team'] };
const HISTORY: PlaceHistory = {
  data: [
    { at: '2026-11-04T09:00:00.000Z', cause: 'referral_granted', places: 1, place: null, referralId: WITHHELD.id, reasons: ['disposable_domain', 'granted_by_team'] },
    { at: '2026-11-03T10:04:52.018Z', cause: 'referral_withheld', places: 0, place: null, referralId: WITHHELD.id, reasons: ['disposable_domain'] },
    { at: '2026-11-02T08:16:41.503Z', cause: 'joined', places: 0, place: 118, referralId: null, reasons: [] },
  ],
  nextCursor: null,
};
const IMPORTED: ImportReport = {
  dryRun: true,
  format: 'getwaitlist',
  rows: 3,
  created: 1,
  confirmed: 1,
  pending: 0,
  existing: 1,
  suppressed: 0,
  invalid: 1,
  referralCodesKept: 1,
  referralsLinked: 0,
  lines: [
    { line: 2, email: 'ada@example.com', outcome: 'create' },
    { line: 3, email: null, outcome: 'invalid' },
    { line: 4, email: 'grace@example.com', outcome: 'existing' },
  ],
  problems: [{ line: 3, reason: 'invalid_email', message: 'The address is missing or not a valid email address.' }],
  checksum: '0f1e5c3a9b7d4e2f8a6c1b3d5e7f9a0b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f',
};
/** What a grant or revoke says of itself; the two differ only in the decision. */
const decision = (verb: 'grant' | 'revoke') => ({
  operationId: `${verb}Referral`,
  tags: ['Referrals'] as [string],
  path: REFERRAL_ID,
  errors: { 404: ['not_found'], 409: ['not_confirmed'] } as const,
});

/**
 * Every operation under /api/v1, by path. To add one, add its path here with secretKeyOperation (or
 * to public-paths.ts for a route called without a secret key); its schemas come from the feature's
 * dto file.
 */
export const PATHS: ZodOpenApiPathsObject = {
  '/api/v1/entries': {
    get: secretKeyOperation({
      operationId: 'listEntries',
      tags: ['Entries'],
      summary: 'List entries',
      description: 'Entries of the key\'s product and mode, newest first, a page at a time. With email, the page holds the entry of that address or nothing: the way from an address to an entry id.',
      query: LIST_QUERY,
      ok: { status: 200, description: 'A page of entries.', schema: ENTRY_PAGE, example: PAGE },
      errors: { 400: ['invalid_request', 'invalid_cursor', 'invalid_email'] },
    }),
  },
  '/api/v1/entries/import': {
    post: secretKeyOperation({
      operationId: 'importEntries',
      tags: ['Entries'],
      summary: 'Import entries from a CSV file',
      description:
        "Imports a waitlist from another tool's CSV export (GetWaitlist, Waitlister, Prefinery, Viral Loops, LaunchList, this service's own download; any other file with mapping), at most 20 MiB. " +
        'Run it with dryRun=true first: the answer says what each row would become and lists every bad row by its line, and nothing is written. ' +
        "Then import with the dry run's checksum, and the import writes the rows the dry run read, read as it read them, or nothing. " +
        'Entries keep their original sign-up time and their order among each other, and join the line behind everyone already waiting; their referral codes are kept where free, so old referral links keep working. ' +
        'An address the product and mode has already is left as it is (importing a file twice is importing it once), and an address deleted or unsubscribed before is never brought back. ' +
        'No mail is sent and no event emitted unless asked for. The whole file is imported in one transaction, or nothing of it.',
      query: IMPORT_QUERY,
      body: { schema: z.string().meta({ description: 'The CSV file: a header row, then a row per address.' }), example: 'email,created_at,referral_token,referred_by,amount_referred,verified\nada@example.com,2025-03-01T10:00:00Z,ADA1ref,,2,true\n', contentType: 'text/csv' },
      ok: { status: 200, description: 'What was imported, or with dryRun what would be.', schema: IMPORT_REPORT, example: IMPORTED },
      errors: { 400: ['invalid_request'] },
    }),
  },
  '/api/v1/entries/invite-next': {
    post: secretKeyOperation({
      operationId: 'inviteNext',
      tags: ['Invitations'],
      summary: 'Invite the next people in line',
      description: 'Invites the first count entries of the line, in line order, by mail with a personal code each. Entries whose mail could not be handed over stay in line, at their place. An empty line answers two empty lists.',
      body: { schema: INVITE_NEXT, example: { count: 10 } },
      ok: { status: 200, description: 'Who was invited and whose mail failed.', schema: INVITE_NEXT_RESULT, example: { invited: [INVITED.id], failed: [] } },
      errors: { 400: ['invalid_request'], 409: ['capacity_reached'] },
      idempotent: true,
    }),
  },
  '/api/v1/entries/{id}': {
    get: secretKeyOperation({
      operationId: 'getEntry',
      tags: ['Entries'],
      summary: 'Read an entry',
      description: 'One entry of the key\'s product and mode.',
      path: ENTRY_ID,
      ok: { ...ENTRY_OK, description: 'The entry.', example: WAITING },
      errors: { 404: ['not_found'] },
    }),
    delete: secretKeyOperation({
      operationId: 'deleteEntry',
      tags: ['Entries'],
      summary: 'Delete an entry',
      description: 'Removes the entry for good, whatever its state, and emits entry.deleted. No mail is sent; a code already sent stops working. An import never brings the address back; the person may still sign up again.',
      path: ENTRY_ID,
      ok: { status: 204, description: 'Deleted; no body.' },
      errors: { 404: ['not_found'] },
    }),
  },
  '/api/v1/entries/{id}/invite': {
    post: secretKeyOperation({
      operationId: 'inviteEntry',
      tags: ['Invitations'],
      summary: 'Invite an entry',
      description: 'Sends a confirmed entry its invitation mail with a personal code and marks it invited (entry.invited). Answers once the mail was handed over; with the same Idempotency-Key the mail goes out once. No body.',
      path: ENTRY_ID,
      ok: { ...ENTRY_OK, description: 'The entry as it is now: invited.', example: INVITED },
      errors: { 404: ['not_found'], 409: ['not_confirmed', 'already_invited', 'capacity_reached'], 502: ['mail_failed'] },
      idempotent: true,
    }),
  },
  '/api/v1/entries/{id}/reinvite': {
    post: secretKeyOperation({
      operationId: 'reinviteEntry',
      tags: ['Invitations'],
      summary: 'Send an invitation again',
      description: 'Sends an invited entry a new invitation mail with a new code: the old code stops working once the new mail is handed over, the code\'s 30 days start again, invitedAt stays. No event, no body.',
      path: ENTRY_ID,
      ok: { ...ENTRY_OK, description: 'The entry as it is now.', example: INVITED },
      errors: { 404: ['not_found'], 409: ['not_invited', 'already_redeemed', 'capacity_reached'], 502: ['mail_failed'] },
      idempotent: true,
    }),
  },
  '/api/v1/entries/{id}/move-up': {
    post: secretKeyOperation({
      operationId: 'moveUpEntry',
      tags: ['Line'],
      summary: 'Move an entry up the line',
      description: 'Moves a waiting entry (confirmed, not invited) up by places, on top of what its referrals give; calls add up. No event, no mail, and not counted against the rate limit.',
      path: ENTRY_ID,
      body: { schema: MOVE_UP, example: { places: 5 } },
      ok: { ...ENTRY_OK, description: 'The entry as it is now.', example: WAITING },
      errors: { 400: ['invalid_request'], 404: ['not_found'], 409: ['not_confirmed', 'already_invited'] },
      withoutRateLimit: true,
    }),
  },
  '/api/v1/entries/{id}/place': {
    get: secretKeyOperation({
      operationId: 'getPlace',
      tags: ['Line'],
      summary: 'Place in line',
      description: 'Where a waiting entry stands: its place, the line\'s length, and the estimated wait in days at the product\'s invitation rate of the last 30 days.',
      path: ENTRY_ID,
      ok: { status: 200, description: 'The entry\'s place.', schema: STANDING, example: PLACE },
      errors: { 404: ['not_found'], 409: ['not_confirmed', 'already_invited'] },
    }),
  },
  '/api/v1/entries/{id}/history': {
    get: secretKeyOperation({
      operationId: 'getPlaceHistory',
      tags: ['Line'],
      summary: 'History of an entry\'s place',
      description: 'Every change of the entry\'s place or credit with its cause, newest first: joining the line (at which place), each move-up, each referral credited, held for a waiting period, withheld, granted or revoked by the team.',
      path: ENTRY_ID,
      query: ENTRY_LIST_QUERY,
      ok: { status: 200, description: 'A page of the history.', schema: PLACE_HISTORY, example: HISTORY },
      errors: { 400: ['invalid_cursor'], 404: ['not_found'] },
    }),
  },
  '/api/v1/entries/{id}/referrals': {
    get: secretKeyOperation({
      operationId: 'listReferrals',
      tags: ['Referrals'],
      summary: 'List an entry\'s referrals',
      description:
        'Every sign-up through the entry\'s referral link, newest first, with its credit: only credited referrals count in the entry\'s referrals and move it up. With the product\'s referral protection off (the default) a confirmed referral is credited unless its mailbox is the referrer\'s own or counted before; standard and strict also withhold disposable domains, too many referrals from one network, and confirmations faster than a person, and may hold credit for a waiting period.',
      path: ENTRY_ID,
      query: ENTRY_LIST_QUERY,
      ok: { status: 200, description: 'A page of referrals.', schema: REFERRAL_PAGE, example: { data: [WITHHELD], nextCursor: null } },
      errors: { 400: ['invalid_cursor'], 404: ['not_found'] },
    }),
  },
  '/api/v1/entries/{id}/referrals/{referralId}/grant': {
    post: secretKeyOperation({
      ...decision('grant'),
      summary: 'Grant a referral\'s credit',
      description:
        'Credits a confirmed referral the rules withheld or held (granted_by_team): the referrer\'s referrals count it and the referrer moves up by the product\'s referral places at once. Granting a credited referral changes nothing. No body, no event.',
      ok: { status: 200, description: 'The referral as it is now.', schema: REFERRAL, example: GRANTED },
    }),
  },
  '/api/v1/entries/{id}/referrals/{referralId}/revoke': {
    post: secretKeyOperation({
      ...decision('revoke'),
      summary: 'Revoke a referral\'s credit',
      description:
        'Withholds a confirmed referral (revoked_by_team): a credited one no longer counts and the referrer moves back by the product\'s referral places at once; a withheld one leaves the review list. Revoking a revoked referral changes nothing. No body, no event.',
      ok: { status: 200, description: 'The referral as it is now.', schema: REFERRAL, example: { ...WITHHELD, reasons: ['disposable_domain', 'revoked_by_team'] } },
    }),
  },
  '/api/v1/invited': {
    post: secretKeyOperation({
      operationId: 'checkInvited',
      tags: ['Invitations'],
      summary: 'Is this address invited?',
      description: 'For sign-ups that arrive with an address and no code: let the person in only when invited is true. Unknown addresses are not invited; an address that redeemed stays invited.',
      body: { schema: EMAIL_ONLY, example: { email: 'ada@example.com' } },
      ok: { status: 200, description: 'Whether the address is invited.', schema: INVITED_ANSWER, example: { invited: true } },
      errors: { 400: ['invalid_email'] },
    }),
    get: secretKeyOperation({
      operationId: 'checkInvitedByQuery',
      tags: ['Invitations'],
      summary: 'Is this address invited? (address in the URL)',
      description: 'The older form of the invited check, kept for existing callers. The address in the URL can end up in access logs: prefer POST.',
      query: EMAIL_ONLY,
      ok: { status: 200, description: 'Whether the address is invited.', schema: INVITED_ANSWER, example: { invited: false } },
      errors: { 400: ['invalid_email'] },
    }),
  },
  '/api/v1/invites/verify': {
    post: secretKeyOperation({
      operationId: 'verifyInvite',
      tags: ['Invitations'],
      summary: 'Check an invitation code',
      description: 'When the invitation link is opened: valid is true for a code that works, with its address. Checking does not use the code up, so opening the link twice (or a mail scanner opening it) is harmless. Codes work for 30 days.',
      body: { schema: TOKEN, example: { token: 'UL8jGQTF_RY-RaKPxkoQFJOB_es8LU5eDKfDIAkPmO0' } },
      ok: { status: 200, description: 'Whether the code is valid; a bad code of any kind answers exactly {"valid":false}.', schema: CODE_CHECK, example: { valid: true, email: 'ada@example.com' } },
      errors: { 400: ['invalid_request'] },
    }),
  },
  '/api/v1/invites/redeem': {
    post: secretKeyOperation({
      operationId: 'redeemInvite',
      tags: ['Invitations'],
      summary: 'Use an invitation code up',
      description: 'When the person creates their account: valid is true exactly once per code, and the entry becomes redeemed (entry.redeemed). Create the account only then; the address is proven theirs. The code may be spent even if the answer got lost: send an Idempotency-Key to retry safely.',
      body: { schema: TOKEN, example: { token: 'UL8jGQTF_RY-RaKPxkoQFJOB_es8LU5eDKfDIAkPmO0' } },
      ok: { status: 200, description: 'Whether the code was valid and is now used up.', schema: CODE_CHECK, example: { valid: true, email: 'ada@example.com' } },
      errors: { 400: ['invalid_request'] },
      idempotent: true,
    }),
  },
  ...PROFILE_PATHS,
  ...RELEASE_PATHS,
  [OPENAPI_JSON_PATH]: {
    get: {
      operationId: 'getOpenApiDocument',
      tags: ['Document'],
      summary: 'This document',
      description: 'The OpenAPI document of this API, with this instance as its server. Needs no key.',
      security: [],
      requestParams: { header: requestHeaders() },
      responses: {
        200: {
          description: 'The document.',
          headers: answerHeaders({ 'Cache-Control': z.string().meta({ example: 'public, max-age=3600' }) }),
          content: { 'application/json': { schema: z.looseObject({ openapi: z.string() }) } },
        },
        // Not rate limited and reading nothing of the request: only what cannot be read at all is refused.
        ...errorResponses({ 400: ['invalid_request'] }),
      },
    },
  },
};
