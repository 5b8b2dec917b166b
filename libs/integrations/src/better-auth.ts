import type { WaitlistClient } from '@waitlist/client';
import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthEndpoint } from 'better-auth/api';
import * as z from 'zod';
import { checkSignUp, REFUSALS, type RefusalReason } from './sign-up-check';

export interface WaitlistPluginOptions {
  /** A client with the secret key of the product and mode this sign-up belongs to. */
  client: WaitlistClient;
  /** Let sign-ups through while the waitlist cannot answer (default false: they are refused). */
  failOpen?: boolean;
  /** How long the check may hold a sign-up, every call and retry included. Default 5,000 ms. */
  timeoutMs?: number;
}

/** Where the landing page keeps the invite code for the sign-up that follows. */
export const INVITE_COOKIE = 'waitlist_invite';
const INVITE_COOKIE_MAX_AGE = 24 * 60 * 60;

const STATUSES: Record<RefusalReason, 'FORBIDDEN' | 'SERVICE_UNAVAILABLE'> = {
  not_invited: 'FORBIDDEN',
  no_address: 'FORBIDDEN',
  other_address: 'FORBIDDEN',
  unavailable: 'SERVICE_UNAVAILABLE',
};

/**
 * Invite-only sign-up for better-auth. Every user creation (email and password, social, magic link,
 * one-time code…) passes the waitlist first: an address that is not invited is refused with a 403. An
 * invite code, sent as `invite` in the sign-up body or kept in a cookie by `POST /waitlist/invite`
 * (the landing page's call), must be of the same address; it is then redeemed and the account's
 * address counts as verified.
 */
export function waitlist({ client, failOpen = false, timeoutMs = 5_000 }: WaitlistPluginOptions) {
  return {
    id: 'waitlist',
    init: ({ logger }) => ({
      options: {
        databaseHooks: {
          user: {
            create: {
              async before(user, ctx) {
                const cookie = ctx?.context.createAuthCookie(INVITE_COOKIE).name;
                const invite = text(ctx?.body?.invite) ?? (cookie ? ctx?.getCookie(cookie) : null);
                const decision = await checkSignUp(client, { email: user.email, invite }, { timeoutMs, failOpen });
                if (decision.allowed) {
                  if (decision.failedOpen) logger.warn(`waitlist: sign-up let through unchecked (${String(decision.failedOpen)})`);
                  return decision.proven ? { data: { ...user, emailVerified: true } } : undefined;
                }
                if (decision.failure) logger.error(`waitlist: sign-up refused unchecked (${String(decision.failure)})`);
                throw new APIError(STATUSES[decision.reason], { code: `WAITLIST_${decision.reason.toUpperCase()}`, message: decision.message });
              },
            },
          },
        },
      },
    }),
    endpoints: {
      /**
       * The landing page's call with the `invite` of its URL: answers whether the code is valid and
       * for which address (to show it), and keeps a valid code in a cookie for the sign-up.
       */
      checkWaitlistInvite: createAuthEndpoint(
        '/waitlist/invite',
        { method: 'POST', body: z.object({ invite: z.string().min(1).max(512) }) },
        async (ctx) => {
          const answer = await client.verifyInvite(ctx.body.invite, { signal: AbortSignal.timeout(timeoutMs) }).catch((error: unknown) => {
            ctx.context.logger.error(`waitlist: invite not checked (${String(error)})`);
            throw new APIError('SERVICE_UNAVAILABLE', { code: 'WAITLIST_UNAVAILABLE', message: REFUSALS.unavailable });
          });
          if (answer.valid) {
            const cookie = ctx.context.createAuthCookie(INVITE_COOKIE, { maxAge: INVITE_COOKIE_MAX_AGE });
            ctx.setCookie(cookie.name, ctx.body.invite, cookie.attributes);
          }
          return ctx.json(answer);
        },
      ),
    },
  } satisfies BetterAuthPlugin;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value ? value : null;
}
