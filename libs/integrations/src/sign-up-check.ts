import { WaitlistApiError, type WaitlistClient } from '@waitlist/client';

export type RefusalReason = 'not_invited' | 'no_address' | 'other_address' | 'unavailable';

/** `proven`: the person's invite code for this very address was redeemed, so the address is theirs. */
export type SignUpDecision = { allowed: true; proven: boolean; failedOpen?: unknown } | Refusal;
export type Refusal = { allowed: false; reason: RefusalReason; message: string; failure?: unknown };

/** The words a refused person reads, in the login system's own error display. */
export const REFUSALS: Record<RefusalReason, string> = {
  not_invited: 'Sign-up is by invitation only, and this email address has not been invited.',
  no_address: 'Sign-up is by invitation only: sign up with the email address your invitation was sent to.',
  other_address: 'This invitation was sent to another email address: sign up with the address it was sent to.',
  unavailable: 'Sign-up cannot be checked right now. Please try again in a moment.',
};

export interface SignUpCheckOptions {
  /** The whole check (every call and retry) ends after this many milliseconds. */
  timeoutMs: number;
  /**
   * Let the sign-up through when the waitlist cannot answer in time (down, slow, 5xx, 429). Off by
   * default: such sign-ups are refused. A refusal that is an answer (a wrong secret key) never opens.
   */
  failOpen?: boolean;
}

/**
 * The waitlist's word on one sign-up. An invite code of the same address is redeemed (so the
 * account's address may be marked verified). Otherwise the address must be invited: a code of another
 * address is left unused and only changes the words of the refusal, and a code no longer valid (used,
 * expired) changes nothing. A decision carries the error behind `failedOpen` or `failure`, for the
 * caller's log.
 */
export async function checkSignUp(
  client: WaitlistClient,
  signUp: { email?: string | null; invite?: string | null },
  { timeoutMs, failOpen = false }: SignUpCheckOptions,
): Promise<SignUpDecision> {
  const email = signUp.email?.trim().toLowerCase();
  if (!email) return refuse('no_address');
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    let otherAddress = false;
    // The API takes codes of 1 to 512 characters; anything else is no code at all.
    if (signUp.invite && signUp.invite.length <= 512) {
      const code = await client.verifyInvite(signUp.invite, { signal });
      otherAddress = code.valid && code.email !== email;
      if (code.valid && !otherAddress && (await client.redeemInvite(signUp.invite, { safeRetry: true, signal })).valid) return { allowed: true, proven: true };
    }
    if (await client.isInvited(email, { signal })) return { allowed: true, proven: false };
    return refuse(otherAddress ? 'other_address' : 'not_invited');
  } catch (error) {
    if (error instanceof WaitlistApiError && error.code === 'invalid_email') return refuse('not_invited');
    if (failOpen && !isMisconfiguration(error)) return { allowed: true, proven: false, failedOpen: error };
    return { ...refuse('unavailable'), failure: error };
  }
}

function refuse(reason: RefusalReason): Refusal {
  return { allowed: false, reason, message: REFUSALS[reason] };
}

/** The service answered, and the answer says the caller is set up wrong (a revoked key, say). */
function isMisconfiguration(error: unknown): boolean {
  return error instanceof WaitlistApiError && error.status < 500 && error.status !== 429;
}
