import { WaitlistClient } from '@waitlist/client';
import { initializeApp } from 'firebase-admin/app';
import { getAuth } from 'firebase-admin/auth';
import { defineBoolean, defineSecret } from 'firebase-functions/params';
import { onCall } from 'firebase-functions/v2/https';
import { beforeUserCreated, HttpsError } from 'firebase-functions/v2/identity';
import { checkSignUp, type Refusal } from './sign-up-check';

// Firebase gives a blocking function 7 s, cold start included: the waitlist gets 4 of them.
const TIMEOUT_MS = 4_000;
// Firebase's own configuration: the two secrets, and WAITLIST_FAIL_OPEN=true (functions/.env) to let
// sign-ups through while the waitlist cannot answer.
const WAITLIST_URL = defineSecret('WAITLIST_URL');
const WAITLIST_SECRET_KEY = defineSecret('WAITLIST_SECRET_KEY');
const FAIL_OPEN = defineBoolean('WAITLIST_FAIL_OPEN', { default: false });
const SECRETS = [WAITLIST_URL, WAITLIST_SECRET_KEY];

initializeApp();

function waitlist(): WaitlistClient {
  return new WaitlistClient({ baseUrl: WAITLIST_URL.value(), secretKey: WAITLIST_SECRET_KEY.value() });
}

function refused(decision: Refusal): HttpsError {
  if (decision.failure) console.error(`waitlist: sign-up refused unchecked (${String(decision.failure)})`);
  return new HttpsError(decision.reason === 'unavailable' ? 'unavailable' : 'permission-denied', decision.message);
}

/** Every new account, whatever the provider: only invited addresses are created. */
export const waitlistBeforeCreate = beforeUserCreated({ secrets: SECRETS }, async (event) => {
  const decision = await checkSignUp(waitlist(), { email: event.data?.email }, { timeoutMs: TIMEOUT_MS, failOpen: FAIL_OPEN.value() });
  if (!decision.allowed) throw refused(decision);
  if (decision.failedOpen) console.warn(`waitlist: sign-up let through unchecked (${String(decision.failedOpen)})`);
});

/** The landing page's call with the link's `invite`: whether it is valid, and for which address. */
export const checkInvite = onCall<{ invite?: unknown }>({ secrets: SECRETS }, async ({ data }) => {
  if (typeof data.invite !== 'string' || !data.invite) return { valid: false };
  return waitlist().verifyInvite(data.invite, { signal: AbortSignal.timeout(TIMEOUT_MS) });
});

/**
 * Called by the app right after the account was created, with the same `invite`: redeems the code
 * of the signed-in person's address and marks that address verified (the code proves it).
 */
export const redeemInvite = onCall<{ invite?: unknown }>({ secrets: SECRETS }, async ({ data, auth }) => {
  if (!auth) throw new HttpsError('unauthenticated', 'Sign in first.');
  const invite = typeof data.invite === 'string' ? data.invite : null;
  const decision = await checkSignUp(waitlist(), { email: auth.token.email, invite }, { timeoutMs: TIMEOUT_MS });
  if (!decision.allowed) throw refused(decision);
  if (decision.proven) await getAuth().updateUser(auth.uid, { emailVerified: true });
  return { redeemed: decision.proven };
});
