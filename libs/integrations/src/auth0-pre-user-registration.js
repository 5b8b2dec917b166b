// @ts-check
/**
 * Auth0 pre-user-registration Action: only addresses invited on the waitlist may sign up.
 *
 * Secrets: WAITLIST_URL, WAITLIST_SECRET_KEY, and WAITLIST_FAIL_OPEN=true to let sign-ups through
 * while the waitlist cannot answer (by default they are refused). Dependency: @waitlist/client.
 * An invite code arrives as the custom field `ulp-invite` of the sign-up prompt; a code of the same
 * address is redeemed. Otherwise the address must be invited.
 */

// Auth0 gives the whole flow 20 s; the waitlist gets 5 of them, every call and retry included.
const TIMEOUT_MS = 5_000;

const REFUSALS = {
  not_invited: 'Sign-up is by invitation only, and this email address has not been invited.',
  other_address: 'This invitation was sent to another email address: sign up with the address it was sent to.',
  unavailable: 'Sign-up cannot be checked right now. Please try again in a moment.',
};

/**
 * @param {import('./types/auth0-actions').PreUserRegistrationEvent} event
 * @param {import('./types/auth0-actions').PreUserRegistrationAPI} api
 */
exports.onExecutePreUserRegistration = async (event, api) => {
  // The client is an ES module package: import() loads it from this CommonJS file.
  const { WaitlistClient, WaitlistApiError } = await import('@waitlist/client');
  const waitlist = new WaitlistClient({ baseUrl: event.secrets.WAITLIST_URL ?? '', secretKey: event.secrets.WAITLIST_SECRET_KEY ?? '' });
  const email = event.user.email?.trim().toLowerCase() ?? '';
  const invite = event.request.body?.['ulp-invite'];
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  try {
    let otherAddress = false;
    if (typeof invite === 'string' && invite && invite.length <= 512) {
      const code = await waitlist.verifyInvite(invite, { signal });
      otherAddress = code.valid && code.email !== email;
      if (code.valid && !otherAddress && (await waitlist.redeemInvite(invite, { safeRetry: true, signal })).valid) return;
    }
    if (email && (await waitlist.isInvited(email, { signal }))) return;
    // A code of another address is left unused: it only says why this address is refused.
    if (otherAddress) api.access.deny('waitlist_other_address', REFUSALS.other_address);
    else api.access.deny('waitlist_not_invited', REFUSALS.not_invited);
  } catch (error) {
    // Never the request in the log: it holds the address and the code.
    console.log(`waitlist: sign-up not checked (${error})`);
    // An answer that says the Action is set up wrong (a revoked key) never lets anyone through.
    const misconfigured = error instanceof WaitlistApiError && error.status < 500 && error.status !== 429;
    if (event.secrets.WAITLIST_FAIL_OPEN === 'true' && !misconfigured) return;
    api.access.deny('waitlist_unavailable', REFUSALS.unavailable);
  }
};
