/**
 * The time bounds of an invitation mail, shared by the API (which waits) and the mailer (which
 * sends). The mailer hands a mail over only before the job's deadline and aborts a send that takes
 * longer than SEND_BOUND, so by deadline + SEND_BOUND + SLACK the outcome is settled for good.
 */
export const INVITATION_TIMING = {
  /** How long a job may wait in the queue before the mailer refuses it. */
  queueBoundMs: 10_000,
  /** How long one SMTP handover may take before the mailer aborts it. */
  sendBoundMs: 20_000,
  /** Room for the mailer's commit after a handover. */
  slackMs: 3_000,
} as const;

/** How long the API waits for an invitation's outcome, counted from adding its job. */
export const INVITATION_WAIT_MS = INVITATION_TIMING.queueBoundMs + INVITATION_TIMING.sendBoundMs + INVITATION_TIMING.slackMs;

/**
 * The service's own invitation page, under PUBLIC_BASE_URL: the invite URL of a product that has none
 * (the API serves it, the mailer links to it).
 */
export const HOSTED_INVITATION_PATH = '/invitation';

/** The link of an invitation mail: the product's invite URL, or the hosted page, with invite=<code>. */
export function invitationLink(inviteUrl: string | null, publicBaseUrl: string, code: string): string {
  const url = new URL(inviteUrl ?? `${publicBaseUrl}${HOSTED_INVITATION_PATH}`);
  url.searchParams.set('invite', code);
  return url.toString();
}
