import { LoginHookProvider, newToken, normalizeEmail, sameSecret } from '@app/shared';
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { parseInput } from '../common/validation';
import { KRATOS_REGISTRATION, KratosRefusal, SUPABASE_BEFORE_USER_CREATED, SupabaseAnswer } from './login-hooks.dto';

/** A login system's call to a hook, as it arrived. */
export interface HookCall {
  headers: IncomingHttpHeaders;
  /** The body's bytes as sent: what a signature covers. */
  rawBody: Buffer | undefined;
  body: unknown;
}

/** What the check reads from a sign-up: the address, and the invite code when the person has one. */
export interface SignUp {
  email: string | null;
  invite: string | null;
}

export type RefusalReason = 'not_invited' | 'no_address' | 'unavailable';
export type Decision = { allowed: true } | { allowed: false; reason: RefusalReason };

/** The words a refused person reads, in the login system's own error display. */
export const REFUSALS: Record<RefusalReason, string> = {
  not_invited: 'Sign-up is by invitation only, and this email address has not been invited.',
  no_address: 'Sign-up is by invitation only: sign up with the email address your invitation was sent to.',
  unavailable: 'Sign-up cannot be checked right now. Please try again in a moment.',
};

export interface HookAnswer<Body> {
  status: number;
  body: Body;
}

/** How one login system calls a hook: the secret it holds, how it proves it, what it sends and what it understands back. */
export interface LoginSystem<Body> {
  provider: LoginHookProvider;
  /** A new secret, in the form the login system's configuration takes as it is. */
  newSecret(): string;
  /** True when the call proves it holds the hook's secret. */
  authentic(secret: string, call: HookCall): boolean;
  /** Why a call that does not is refused, for whoever sets the login system up. */
  unauthenticated: string;
  /** The sign-up the call asks about; 400 invalid_request when the body is not what this login system sends. */
  signUp(call: HookCall): SignUp;
  answer(decision: Decision): HookAnswer<Body>;
}

/** Both login systems take an empty object for "go on". */
const GO_ON: Record<string, never> = {};

/** The longest invite code worth looking up; ours are 43 characters. */
const INVITE_MAX = 512;

function signUpOf(email: unknown, invite: unknown): SignUp {
  return { email: normalizeEmail(email), invite: typeof invite === 'string' && invite.length > 0 && invite.length <= INVITE_MAX ? invite : null };
}

/** Supabase's secret form: the version of the scheme, then the Standard Webhooks secret (whsec_ and standard base64). */
const SUPABASE_SECRET_VERSION = 'v1,';
const SUPABASE_HTTP_CODES: Record<RefusalReason, number> = { not_invited: 403, no_address: 403, unavailable: 503 };

/**
 * Supabase Auth's "Before User Created" HTTP hook, signed with Standard Webhooks. Supabase Auth reads
 * the answer's body only when its status is 200 (or 202): a refusal is a 200 with an error object,
 * whose http_code and message it passes on to the app; any other status fails the sign-up with a
 * message of Supabase's own.
 */
export const SUPABASE: LoginSystem<SupabaseAnswer> = {
  provider: 'supabase',
  newSecret: () => `${SUPABASE_SECRET_VERSION}whsec_${randomBytes(32).toString('base64')}`,
  authentic(secret, { headers, rawBody }) {
    const signed = { 'webhook-id': headers['webhook-id'], 'webhook-timestamp': headers['webhook-timestamp'], 'webhook-signature': headers['webhook-signature'] };
    if (rawBody === undefined || !Object.values(signed).every((value) => typeof value === 'string')) return false;
    try {
      // Checks the signature over the bytes sent and that the timestamp is within five minutes of now.
      new Webhook(secret.slice(SUPABASE_SECRET_VERSION.length)).verify(rawBody, signed as Record<string, string>, { jsonParse: false });
      return true;
    } catch {
      return false;
    }
  },
  unauthenticated: 'The webhook signature does not match the hook’s secret, or its timestamp is more than five minutes from now.',
  signUp(call) {
    const { user } = parseInput(SUPABASE_BEFORE_USER_CREATED, call.body, 'body');
    return signUpOf(user.email, user.user_metadata?.invite);
  },
  answer: (decision) => ({
    status: 200,
    body: decision.allowed ? GO_ON : { error: { http_code: SUPABASE_HTTP_CODES[decision.reason], message: REFUSALS[decision.reason] } },
  }),
};

/** Kratos message ids of our refusals, out of the ranges Kratos uses for its own. */
const KRATOS_MESSAGE_IDS: Record<RefusalReason, number> = { not_invited: 4100001, no_address: 4100002, unavailable: 4100003 };

/**
 * Ory Kratos' registration web_hook with response.parse: authenticated with the secret as a bearer
 * token (auth api_key, in the Authorization header). A 4xx with messages stops the registration and
 * shows them at the email field; 4xx, unlike 429 and 5xx, is not retried.
 */
export const KRATOS: LoginSystem<KratosRefusal | Record<string, never>> = {
  provider: 'kratos',
  newSecret: () => newToken('lhsec_'),
  authentic(secret, { headers }) {
    const given = headers.authorization;
    return typeof given === 'string' && sameSecret(given, `Bearer ${secret}`);
  },
  unauthenticated: 'The Authorization header does not carry the hook’s secret as a bearer token.',
  signUp(call) {
    const body = parseInput(KRATOS_REGISTRATION, call.body, 'body');
    return signUpOf(body.email, body.invite);
  },
  answer: (decision) =>
    decision.allowed
      ? { status: 200, body: GO_ON }
      : {
          status: 403,
          body: {
            messages: [
              {
                instance_ptr: '#/traits/email',
                messages: [{ id: KRATOS_MESSAGE_IDS[decision.reason], text: REFUSALS[decision.reason], type: 'error', context: { reason: decision.reason } }],
              },
            ],
          },
        },
};

export const LOGIN_SYSTEMS: Record<LoginHookProvider, LoginSystem<unknown>> = { supabase: SUPABASE, kratos: KRATOS };
