import type { AuthConfig } from '@auth/core';
import type { WaitlistClient } from '@waitlist/client';
import { checkSignUp } from './sign-up-check';

type SignInCallback = NonNullable<NonNullable<AuthConfig['callbacks']>['signIn']>;

export interface WaitlistSignInOptions {
  client: WaitlistClient;
  /** The request Auth.js is handling: its invite cookie, set by the landing page, is redeemed. */
  request?: Request;
  /**
   * Whether the address already has an account: Auth.js asks signIn at every sign-in, and only new
   * accounts need an invitation. With a database adapter: `(email) => adapter.getUserByEmail(email).then(Boolean)`.
   * Without it every sign-in is checked (an invited or redeemed address stays invited).
   */
  hasAccount?: (email: string) => Promise<boolean>;
  /** Where a refused person is sent, with `?reason=not_invited` (or other_address, no_address, unavailable); without it Auth.js shows its AccessDenied error. */
  refusedUrl?: string;
  /** Let sign-ins through while the waitlist cannot answer (default false: they are refused). */
  failOpen?: boolean;
  /** How long the check may hold a sign-in, every call and retry included. Default 5,000 ms. */
  timeoutMs?: number;
}

export const INVITE_COOKIE = 'waitlist_invite';

/** Auth.js's signIn callback, letting only invited addresses create an account. */
export function waitlistSignIn({ client, request, hasAccount, refusedUrl, failOpen = false, timeoutMs = 5_000 }: WaitlistSignInOptions): SignInCallback {
  return async ({ user, email }) => {
    if (user.email && (await hasAccount?.(user.email))) return true;
    // The first call of a magic-link sign-in only sends the link: the code is redeemed when it is followed.
    const invite = email?.verificationRequest ? null : inviteIn(request);
    const decision = await checkSignUp(client, { email: user.email, invite }, { timeoutMs, failOpen });
    if (decision.allowed) {
      if (decision.failedOpen) console.warn(`waitlist: sign-in let through unchecked (${String(decision.failedOpen)})`);
      return true;
    }
    if (decision.failure) console.error(`waitlist: sign-in refused unchecked (${String(decision.failure)})`);
    return refusedUrl ? `${refusedUrl}?reason=${decision.reason}` : false;
  };
}

/** The invite code the landing page kept in a cookie, if the request carries one. */
export function inviteIn(request: Request | undefined): string | null {
  for (const pair of request?.headers.get('cookie')?.split(';') ?? []) {
    const [name, value] = pair.trim().split('=');
    if (name === INVITE_COOKIE && value) return decodeURIComponent(value);
  }
  return null;
}

/** The landing page's Set-Cookie header for a code that verify found valid: it lasts a day. */
export function inviteCookie(invite: string, { secure = true } = {}): string {
  return `${INVITE_COOKIE}=${encodeURIComponent(invite)}; Max-Age=86400; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/**
 * The invitation link's page (`GET /invite?invite=…`, a route handler): a valid code is kept in the
 * cookie and the person goes on to `signInPath` with the address to show; an invalid one goes to
 * `expiredPath`. Verifying does not use the code up, so a mail scanner opening the link is harmless.
 */
export async function inviteLinkResponse(client: WaitlistClient, request: Request, { signInPath = '/sign-in', expiredPath = '/invite-expired' } = {}): Promise<Response> {
  const url = new URL(request.url);
  const invite = url.searchParams.get('invite') ?? '';
  const answer = invite ? await client.verifyInvite(invite, { signal: AbortSignal.timeout(5_000) }) : { valid: false as const };
  if (!answer.valid) return Response.redirect(new URL(expiredPath, url), 303);
  const next = new URL(signInPath, url);
  next.searchParams.set('email', answer.email);
  return new Response(null, { status: 303, headers: { location: next.href, 'set-cookie': inviteCookie(invite, { secure: url.protocol === 'https:' }) } });
}
