import type { ClerkClient } from '@clerk/backend';
import { ClerkAPIResponseError } from '@clerk/backend/errors';
import { verifyWebhook, WebhookVerificationError, type WaitlistClient } from '@waitlist/client';
import { REFUSALS } from './sign-up-check';

/**
 * The endpoint of our webhook (event entry.invited) in the product's backend: each invited address
 * goes on Clerk's allowlist, so that with the allowlist on exactly the invited addresses can sign up,
 * with any method Clerk offers. Answers the status to reply with. `rawBody` is the body as it arrived.
 */
export async function allowInvitedAddress(clerk: ClerkClient, rawBody: string, signature: string | null, webhookSecret: string): Promise<number> {
  let event;
  try {
    event = await verifyWebhook(rawBody, signature, webhookSecret);
  } catch (error) {
    if (error instanceof WebhookVerificationError) return 400;
    throw error;
  }
  if (event.type !== 'entry.invited') return 204;
  try {
    await clerk.allowlistIdentifiers.createAllowlistIdentifier({ identifier: event.data.entry.email, notify: false });
  } catch (error) {
    // Clerk refused this address for good (already on the list, say): a retry would not change that.
    if (!(error instanceof ClerkAPIResponseError && error.status < 500 && ![401, 403, 429].includes(error.status))) throw error;
    console.warn(`waitlist: Clerk kept ${event.data.entry.id} off the allowlist (${error.status})`);
  }
  return 204;
}

/**
 * The landing page's "Create my account" (after it showed the address that verifyInvite answered):
 * redeems the code and answers Clerk's invitation link for that address, whose ticket signs the
 * person up with the address already verified, or the words to show instead.
 */
export async function acceptInvite(
  waitlist: WaitlistClient,
  clerk: ClerkClient,
  invite: string,
  { redirectUrl, timeoutMs = 5_000 }: { redirectUrl: string; timeoutMs?: number },
): Promise<{ url: string } | { refused: string }> {
  const code = await waitlist.redeemInvite(invite, { safeRetry: true, signal: AbortSignal.timeout(timeoutMs) });
  if (!code.valid) return { refused: 'This invitation is no longer valid: it was used already, or it expired.' };
  const invitation = await clerk.invitations.createInvitation({ emailAddress: code.email, notify: false, ignoreExisting: true, redirectUrl });
  return invitation.url ? { url: invitation.url } : { refused: REFUSALS.unavailable };
}
