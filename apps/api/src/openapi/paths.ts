import { ENTRY } from '@app/shared';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { ENTRY_ID, ENTRY_PAGE, EntryPage, LIST_QUERY } from '../entries/entries.dto';
import { CODE_CHECK, EMAIL_ONLY, INVITE_NEXT, INVITE_NEXT_RESULT, INVITED_ANSWER, TOKEN } from '../invitations/invitations.dto';
import { MOVE_UP, STANDING, Standing } from '../line/line.dto';
import { KRATOS_REFUSAL, KRATOS_REGISTRATION, SUPABASE_ANSWER, SUPABASE_BEFORE_USER_CREATED } from '../login-hooks/login-hooks.dto';
import { REFUSALS } from '../login-hooks/login-systems';
import { SIGNUP, SIGNUP_RECEIVED } from '../signups/signups.dto';
import { exampleEntry } from './examples';
import { errorResponses, secretKeyOperation } from './operations';

export const OPENAPI_JSON_PATH = '/api/v1/openapi.json';

const HOOK_ID = z.object({ hookId: z.string().meta({ description: 'The hook\'s id, part of the URL the dashboard shows.', example: 'lh_3f9a1c7e5b2d4f6a8c0e1b3d' }) });
/** A sign-up hook's call that cannot be trusted or read: nothing is decided and nothing changes. */
const HOOK_ERRORS = errorResponses({ 400: ['invalid_request'], 401: ['unauthorized'], 404: ['not_found'] });

const WAITING = exampleEntry('confirmed');
const INVITED = exampleEntry('invited');
const PAGE: EntryPage = { data: [INVITED, { ...WAITING, id: 'ent_0d4e8b1f6a2c9e3b7d5a1f08', email: 'grace@example.com', referralCode: 'p4t8h2n6c3vy', referrals: 0 }], nextCursor: null };
const PLACE: Standing = { place: 2, lineLength: 120, estimatedWaitDays: 60 };
const ENTRY_OK = { status: 200, schema: ENTRY } as const;

/**
 * Every operation of the HTTP API that a customer's program calls, by path. To add one, add its path
 * here: secretKeyOperation for a route under /api/v1, or a plain zod-openapi operation object (as the
 * sign-up's) for anything else; its schemas come from the feature's dto file.
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
  '/public/v1/signups': {
    post: {
      operationId: 'signUp',
      tags: ['Sign-up'],
      summary: 'Join the waitlist',
      description:
        'Where a product\'s own sign-up form posts, with the publishable key in the body (no Authorization header: the key may be public). The address gets a confirmation mail and joins the line once confirmed. The answer is the same whether the address is new or known, and whether or not a mail went out. Sent as an HTML form, it answers with a redirect to a "check your inbox" page, and errors as pages. A script on any site may post it as JSON and read the answer: answers carry Access-Control-Allow-Origin: *, and the browser\'s preflight (OPTIONS) is answered 204.',
      security: [],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: SIGNUP, example: { key: 'pk_live_…', email: 'ada@example.com', ref: 'k7m3x9q2w4zr' } },
          'application/x-www-form-urlencoded': { schema: SIGNUP },
        },
      },
      responses: {
        202: { description: 'Received (JSON).', content: { 'application/json': { schema: SIGNUP_RECEIVED, example: { status: 'received' } } } },
        303: {
          description: 'Received (HTML form): on to the "check your inbox" page.',
          headers: z.object({ Location: z.string().meta({ example: '/w/pk_live_…/sent' }) }),
        },
        ...errorResponses({ 400: ['invalid_email', 'invalid_request'], 401: ['unauthorized'], 429: ['rate_limited'] }, { html: true }),
      },
    },
  },
  '/hooks/v1/supabase/{hookId}': {
    post: {
      operationId: 'supabaseBeforeUserCreated',
      tags: ['Sign-up hooks'],
      summary: 'Supabase Auth: Before User Created',
      description:
        'Called by Supabase Auth before it creates a user, signed with Standard Webhooks and the hook\'s secret (v1,whsec_…, made in the dashboard). Lets the sign-up through when the address is invited in the hook\'s product and mode (or redeemed); an invite code in user_metadata.invite that belongs to the address is redeemed first. Answers within a second; a check that cannot decide in time refuses (503), or lets through when the hook fails open. Refusals are 200 with an error object, the only answer whose body Supabase Auth reads.',
      security: [],
      requestParams: {
        path: HOOK_ID,
        header: z.object({
          'webhook-id': z.string().meta({ description: 'The message id.', example: '8b34dcdd-9df1-4c10-850a-b3277c653040' }),
          'webhook-timestamp': z.string().meta({ description: 'Unix seconds; refused when more than five minutes from now.', example: '1763880000' }),
          'webhook-signature': z.string().meta({ description: 'v1,<base64 HMAC-SHA256 over id.timestamp.body>, one per secret, separated by spaces.', example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' }),
        }),
      },
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: SUPABASE_BEFORE_USER_CREATED,
            example: {
              metadata: { uuid: '8b34dcdd-9df1-4c10-850a-b3277c653040', time: '2026-11-23T09:30:00.000Z', name: 'before-user-created', ip_address: '127.0.0.1' },
              user: { id: 'ff7fc9ae-3b1b-4642-9241-64adb9848a03', aud: 'authenticated', role: '', email: 'ada@example.com', phone: '', app_metadata: { provider: 'email', providers: ['email'] }, user_metadata: { invite: 'UL8jGQTF_RY-RaKPxkoQFJOB_es8LU5eDKfDIAkPmO0' }, identities: [], created_at: '0001-01-01T00:00:00Z', updated_at: '0001-01-01T00:00:00Z', is_anonymous: false },
            },
          },
        },
      },
      responses: {
        200: {
          description: 'The decision: {} lets the sign-up through; an error object refuses it.',
          content: {
            'application/json': {
              schema: SUPABASE_ANSWER,
              examples: {
                allowed: { value: {} },
                refused: { value: { error: { http_code: 403, message: REFUSALS.not_invited } } },
                unavailable: { value: { error: { http_code: 503, message: REFUSALS.unavailable } } },
              },
            },
          },
        },
        ...HOOK_ERRORS,
      },
    },
  },
  '/hooks/v1/kratos/{hookId}': {
    post: {
      operationId: 'kratosRegistration',
      tags: ['Sign-up hooks'],
      summary: 'Ory Kratos: registration web hook',
      description:
        'Called by Ory Kratos\' registration web_hook with response.parse, before it saves the identity, with the hook\'s secret as a bearer token (lhsec_…, made in the dashboard) and the body its Jsonnet template renders. Lets the registration through when the address is invited in the hook\'s product and mode (or redeemed); an invite code that belongs to the address is redeemed first. Answers within a second; a check that cannot decide in time refuses, or lets through when the hook fails open.',
      security: [{ loginHookSecret: [] }],
      requestParams: { path: HOOK_ID },
      requestBody: { required: true, content: { 'application/json': { schema: KRATOS_REGISTRATION, example: { email: 'ada@example.com', invite: null } } } },
      responses: {
        200: { description: 'The registration may go on.', content: { 'application/json': { schema: z.object({}).strict(), example: {} } } },
        403: {
          description: 'The registration is refused; Kratos shows the message at the email field.',
          content: {
            'application/json': {
              schema: KRATOS_REFUSAL,
              example: { messages: [{ instance_ptr: '#/traits/email', messages: [{ id: 4100001, text: REFUSALS.not_invited, type: 'error', context: { reason: 'not_invited' } }] }] },
            },
          },
        },
        ...HOOK_ERRORS,
      },
    },
  },
};
