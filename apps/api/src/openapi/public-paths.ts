import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { CHALLENGE, CHALLENGE_QUERY } from '../challenges/challenges.dto';
import { EMBED_FORM, SIGNUP_STATUS, SIGNUP_STATUS_QUERY } from '../embed/embed.dto';
import { LEADERBOARD, LEADERBOARD_QUERY } from '../leaderboard/leaderboard.dto';
import { KRATOS_REFUSAL, KRATOS_REGISTRATION, SUPABASE_ANSWER, SUPABASE_BEFORE_USER_CREATED } from '../login-hooks/login-hooks.dto';
import { REFUSALS } from '../login-hooks/login-systems';
import { SIGNUP, SIGNUP_RECEIVED } from '../signups/signups.dto';
import { answerHeaders, errorResponses, requestHeaders } from './operations';

const HOOK_ID = z.object({ hookId: z.string().meta({ description: 'The hook\'s id, part of the URL the dashboard shows.', example: 'lh_3f9a1c7e5b2d4f6a8c0e1b3d' }) });
/** A sign-up hook's call that cannot be trusted or read: nothing is decided and nothing changes. */
const HOOK_ERRORS = errorResponses({ 400: ['invalid_request'], 401: ['unauthorized'], 404: ['not_found'] });

/**
 * The operations called without a secret key, by path: the public sign-up (publishable key) and the
 * sign-up hooks login systems call (each with its own secret). Plain zod-openapi operation objects.
 */
export const PUBLIC_PATHS: ZodOpenApiPathsObject = {
  '/public/v1/signups': {
    post: {
      operationId: 'signUp',
      tags: ['Sign-up'],
      summary: 'Join the waitlist',
      description:
        'Where a product\'s own sign-up form posts, with the publishable key in the body (no Authorization header: the key may be public). The address gets a confirmation mail and joins the line once confirmed. The answer is the same whether the address is new or known, and whether or not a mail went out. Sent as an HTML form, it answers with a redirect to a "check your inbox" page, and errors as pages. A script on any site may post it as JSON and read the answer: answers carry Access-Control-Allow-Origin: *, and the browser\'s preflight (OPTIONS) is answered 204.',
      security: [],
      requestParams: { header: requestHeaders() },
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: SIGNUP, example: { key: 'pk_live_…', email: 'ada@example.com', ref: 'k7m3x9q2w4zr' } },
          'application/x-www-form-urlencoded': { schema: SIGNUP },
        },
      },
      responses: {
        202: { description: 'Received (JSON).', headers: answerHeaders(), content: { 'application/json': { schema: SIGNUP_RECEIVED, example: { status: 'received' } } } },
        303: {
          description: 'Received (HTML form): on to the "check your inbox" page.',
          headers: answerHeaders({ Location: z.string().meta({ example: '/w/pk_live_…/sent' }) }),
        },
        ...errorResponses({ 400: ['invalid_email', 'invalid_request', 'challenge_failed'], 401: ['unauthorized'], 429: ['rate_limited'] }, { html: true }),
      },
    },
  },
  '/public/v1/signups/status': {
    post: {
      operationId: 'signupStatus',
      tags: ['Sign-up'],
      summary: 'Where a watched sign-up stands',
      description:
        'Asked by the script-tag form (/embed.js) after a sign-up that carried a `watch`: `pending` until the address is confirmed from its mail, then the place, the estimated wait, the referral link and, for a product that shows one, the leaderboard. For 30 minutes after the sign-up. A watch the service does not know, or one whose sign-up sent no confirmation mail (an address further along already), stays `pending`, so that the answer tells nothing about an address. A POST, so that the watch stays out of URLs. Counted per client IP (RATE_LIMIT_SIGNUP_STATUS, 120 a minute). Answers carry Access-Control-Allow-Origin: * and expose Retry-After to the script.',
      security: [],
      requestParams: { header: requestHeaders() },
      requestBody: { required: true, content: { 'application/json': { schema: SIGNUP_STATUS_QUERY, example: { key: 'pk_live_…', watch: 'q3V9w2xZr8mN4bK7tY1pLc' } } } },
      responses: {
        200: {
          description: 'Where the sign-up stands.',
          headers: answerHeaders(),
          content: {
            'application/json': {
              schema: SIGNUP_STATUS,
              examples: {
                pending: { value: { state: 'pending' } },
                confirmed: {
                  value: { state: 'confirmed', place: 42, estimatedWaitDays: 12, referralLink: 'https://acme.example/join?ref=k7m3x9q2w4zr', leaderboard: null, words: { wait: 'about 12 days', friends: '' } },
                },
              },
            },
          },
        },
        ...errorResponses({ 400: ['invalid_request'], 401: ['unauthorized'], 429: ['rate_limited'] }),
      },
    },
  },
  '/public/v1/forms/{key}': {
    get: {
      operationId: 'embedForm',
      tags: ['Sign-up'],
      summary: "The script-tag form's words",
      description: "What the script-tag form (/embed.js) shows for the product of the publishable key: its title and words, in the language of the browser's Accept-Language when the service speaks it, else in the product's default language. Answers carry Access-Control-Allow-Origin: *.",
      security: [],
      requestParams: { path: z.object({ key: z.string().meta({ description: 'The publishable key.', example: 'pk_live_…' }) }), header: requestHeaders() },
      responses: {
        200: { description: 'The form.', headers: answerHeaders(), content: { 'application/json': { schema: EMBED_FORM, example: { title: 'Join the Acme waitlist', locale: 'en', questions: [{ key: 'role', type: 'single_choice', required: true, label: 'Your role', choices: ['Founder', 'Engineer'] }], messages: { email: 'Email address', join: 'Join the waitlist' }, challenge: 'off' } } } },
        ...errorResponses({ 401: ['unauthorized'] }),
      },
    },
  },
  '/public/v1/challenge': {
    get: {
      operationId: 'signupChallenge',
      tags: ['Sign-up'],
      summary: 'A challenge for a sign-up',
      description:
        "A proof-of-work challenge (ALTCHA's, SHA-256) for one sign-up of the key's product and mode, needed where the product's sign-up challenge is on: find the number from 0 to maxnumber with SHA-256(salt + number) = challenge, then send base64 of the JSON {algorithm, challenge, number, salt, signature} as the sign-up's `challenge`. It expires after 30 minutes, and a solution counts once. Issuing keeps nothing; the hosted form and the script-tag form fetch and solve it themselves. Answers carry Access-Control-Allow-Origin: *.",
      security: [],
      requestParams: { query: CHALLENGE_QUERY, header: requestHeaders() },
      responses: {
        200: {
          description: 'The challenge.',
          headers: answerHeaders(),
          content: { 'application/json': { schema: CHALLENGE, example: { algorithm: 'SHA-256', challenge: '5b1d…', maxnumber: 50000, salt: '9c4e0a2f7b1d3e5a?expires=1764462600&for=Xq3k9VbT0mZr7LcN1wYp2a&', signature: 'e3a1…' } } },
        },
        ...errorResponses({ 401: ['unauthorized'] }),
      },
    },
  },
  '/public/v1/leaderboard': {
    get: {
      operationId: 'leaderboard',
      tags: ['Sign-up'],
      summary: 'The top referrers',
      description:
        'The product\'s leaderboard in the key\'s mode, for a page or the sign-up form to show: the referrers with the most credited referrals (an entry\'s referrals), at equal counts whoever is ahead in line first, at most the product\'s leaderboard size. Addresses are masked (j•••@g•••.com). Only for a product that shows its leaderboard in that mode (a setting, off by default): else 404. Served from a copy at most a few seconds old, so a credit, grant or revoke shows within seconds. Answers carry Access-Control-Allow-Origin: *.',
      security: [],
      requestParams: { query: LEADERBOARD_QUERY, header: requestHeaders() },
      responses: {
        200: {
          description: 'The leaderboard.',
          headers: answerHeaders(),
          content: { 'application/json': { schema: LEADERBOARD, example: { data: [{ rank: 1, email: 'j•••@g•••.com', referrals: 7 }, { rank: 2, email: 'a•••@e•••.org', referrals: 3 }] } } },
        },
        ...errorResponses({ 400: ['invalid_request'], 401: ['unauthorized'], 404: ['not_found'] }),
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
        header: requestHeaders({
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
          headers: answerHeaders(),
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
      requestParams: { path: HOOK_ID, header: requestHeaders() },
      requestBody: { required: true, content: { 'application/json': { schema: KRATOS_REGISTRATION, example: { email: 'ada@example.com', invite: null } } } },
      responses: {
        200: { description: 'The registration may go on.', headers: answerHeaders(), content: { 'application/json': { schema: z.object({}).strict(), example: {} } } },
        403: {
          description: 'The registration is refused; Kratos shows the message at the email field.',
          headers: answerHeaders(),
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
