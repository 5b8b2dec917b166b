import { ENTRY } from '@app/shared';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { ENTRY_ID, ENTRY_PAGE, EntryPage, LIST_QUERY } from '../entries/entries.dto';
import { CODE_CHECK, EMAIL_ONLY, INVITE_NEXT, INVITE_NEXT_RESULT, INVITED_ANSWER, TOKEN } from '../invitations/invitations.dto';
import { MOVE_UP, STANDING, Standing } from '../line/line.dto';
import { exampleEntry } from './examples';
import { secretKeyOperation } from './operations';

export const OPENAPI_JSON_PATH = '/api/v1/openapi.json';

const WAITING = exampleEntry('confirmed');
const INVITED = exampleEntry('invited');
const PAGE: EntryPage = { data: [INVITED, { ...WAITING, id: 'ent_0d4e8b1f6a2c9e3b7d5a1f08', email: 'grace@example.com', referralCode: 'p4t8h2n6c3vy', referrals: 0 }], nextCursor: null };
const PLACE: Standing = { place: 2, lineLength: 120, estimatedWaitDays: 60 };
const ENTRY_OK = { status: 200, schema: ENTRY } as const;

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
  '/api/v1/entries/invite-next': {
    post: secretKeyOperation({
      operationId: 'inviteNext',
      tags: ['Invitations'],
      summary: 'Invite the next people in line',
      description: 'Invites the first count entries of the line, in line order, by mail with a personal code each. Entries whose mail could not be handed over stay in line, at their place. An empty line answers two empty lists.',
      body: { schema: INVITE_NEXT, example: { count: 10 } },
      ok: { status: 200, description: 'Who was invited and whose mail failed.', schema: INVITE_NEXT_RESULT, example: { invited: [INVITED.id], failed: [] } },
      errors: { 400: ['invalid_request'] },
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
      description: 'Removes the entry for good, whatever its state, and emits entry.deleted. No mail is sent; a code already sent stops working.',
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
      errors: { 404: ['not_found'], 409: ['not_confirmed', 'already_invited'], 502: ['mail_failed'] },
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
      errors: { 404: ['not_found'], 409: ['not_invited', 'already_redeemed'], 502: ['mail_failed'] },
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
  [OPENAPI_JSON_PATH]: {
    get: {
      operationId: 'getOpenApiDocument',
      tags: ['Document'],
      summary: 'This document',
      description: 'The OpenAPI document of this API, with this instance as its server. Needs no key.',
      security: [],
      responses: {
        200: {
          description: 'The document.',
          headers: z.object({ 'Cache-Control': z.string().meta({ example: 'public, max-age=3600' }) }),
          content: { 'application/json': { schema: z.looseObject({ openapi: z.string() }) } },
        },
      },
    },
  },
};
