import { createIntl, createIntlCache } from '@formatjs/intl';
import type { ReferralReason } from '@app/shared';
import { ApiError } from '../../common/api-error';

// Maps, so that only their own keys are found (a code named constructor finds nothing).

/** Entry actions that went through, by the name EntriesController.perform gives them. */
const DONE = new Map<string, string>([
  ['invited', 'The invitation mail was handed over; the entry is invited.'],
  ['reinvited', 'A new invitation mail with a new code was handed over; the old code no longer works.'],
]);

/** The dashboard's own words for refusals, by error code; any other code shows the service's message. */
const REFUSED = new Map<string, string>([
  ['not_confirmed', 'This entry has not confirmed its address yet.'],
  ['already_invited', 'This entry was already invited (or its invitation is being sent right now).'],
  ['not_invited', 'This entry has not been invited yet.'],
  ['already_redeemed', 'This entry has already used its invitation.'],
  ['idempotency_in_progress', 'An invitation mail for this entry is being sent right now.'],
  ['mail_failed', 'The mail server did not take the invitation mail; nothing was changed. Try again.'],
]);

/** What a number field should hold, for invalid_request naming the field. */
const FIELDS = new Map<string, string>([
  ['places', 'Enter a whole number of places from 1 to 1,000,000.'],
  ['count', 'Invite from 1 to 1,000 people at a time.'],
]);

function wordsFor(code: string, field: string | undefined): string | undefined {
  return (code === 'invalid_request' && field !== undefined ? FIELDS.get(field) : undefined) ?? REFUSED.get(code);
}

/** The dashboard's words for a form field's refused value, where it has its own. */
export const fieldWords = (field: string): string | undefined => FIELDS.get(field);

export interface Refusal {
  status: number;
  words: string;
  /** The field refused, when the refusal names one. */
  param?: string;
  retryAfterSeconds?: number;
}

/**
 * A service's refusal as the page of the form that was refused shows it: the one mapping from ApiError
 * to the dashboard's words. Anything else is no refusal and is thrown on (to the error page).
 */
export function refusal(error: unknown): Refusal {
  if (!(error instanceof ApiError)) throw error;
  const { param, retryAfterSeconds } = error.details;
  return { status: error.status, words: wordsFor(error.code, param) ?? error.message, param, retryAfterSeconds };
}

/** An entry action that went through, in words (the entry page's notice). */
export const entryDone = (done: string): string | undefined => DONE.get(done);

/** The words for the code an entry action was refused with (places is the entry page's one field); none when the page has no words for it. */
export const entryRefused = (code: string): string | undefined => wordsFor(code, 'places');

const placeWords = (place: number | null) => (place === null ? 'not in the line' : `#${place}`);

/** "anders@example.com moved up from #9 to #4.": its place read before and after, in the same request. */
export const movedUp = (email: string, before: number | null, after: number): string => `${email} moved up from ${placeWords(before)} to #${after}.`;

/** "Referral granted: anders@example.com moves from #4 to #3.": the referrer's place read before and after the decision. */
export function referralDecided(decision: 'grant' | 'revoke', referrer: string, before: number | null, after: number | null): string {
  const what = decision === 'grant' ? 'Referral granted' : 'Referral revoked';
  if (before === after) return `${what}: ${referrer} stays ${before === null ? 'out of the line' : `at #${before}`}.`;
  return `${what}: ${referrer} moves from ${placeWords(before)} to ${placeWords(after)}.`;
}

const intl = createIntl({ locale: 'en', onError: (error) => { throw error; } }, createIntlCache());

/**
 * A dashboard sentence with counts, written as an ICU message ("{count, plural, one {# entry} other {#
 * entries}}"), so that its plurals follow the language's rules as the mails' catalogues do
 * (libs/shared/src/i18n) and its numbers are grouped (1,000): never "1 entries". Each message is
 * compiled once.
 */
export function counted(message: string, values: Record<string, string | number>): string {
  return intl.formatters.getMessageFormat(message, 'en').format(values) as string;
}

/** "1 entry", "2 entries". */
export const entriesCount = (count: number): string => counted('{count, plural, one {# entry} other {# entries}}', { count });

/** Several entries of a bulk action refused for one reason, in one sentence, by error code. */
const REFUSED_COUNTED = new Map<string, string>([
  ['not_confirmed', '{count, plural, one {# entry has} other {# entries have}} not confirmed {count, plural, one {its address} other {their addresses}} yet.'],
  ['already_invited', '{count, plural, one {# entry was} other {# entries were}} already invited (or {count, plural, one {is} other {are}} being invited right now).'],
  ['not_invited', '{count, plural, one {# entry has} other {# entries have}} not been invited yet.'],
  ['already_redeemed', '{count, plural, one {# entry has} other {# entries have}} already used {count, plural, one {its invitation} other {their invitations}}.'],
  ['idempotency_in_progress', '{count, plural, one {An invitation mail for # entry is} other {Invitation mails for # entries are}} being sent right now.'],
  ['mail_failed', 'The mail server did not take the invitation mails of {count, plural, one {# entry} other {# entries}}; nothing was changed for them. Try again.'],
  ['capacity_reached', '{count, plural, one {# entry stays} other {# entries stay}} in line: no place is free under the capacity cap.'],
  ['not_found', '{count, plural, one {# entry was} other {# entries were}} not found (deleted, or not of this product).'],
]);

/** Entries of a bulk action refused for one reason, once: the dashboard's sentence for its code, else the count before the refusal's words. */
export function refusedCount(code: string, words: string, count: number): string {
  return counted(REFUSED_COUNTED.get(code) ?? '{count, plural, one {# entry} other {# entries}}: {words}', { count, words });
}

/** What a release's run now did. */
export function releaseRan(invited: number, failed: number, skippedForCapacity = 0): string {
  return counted(
    'The run invited {invited, number}{failed, plural, =0 {} one {; # mail failed and its entry stays in line} other {; # mails failed and those entries stay in line}}{skipped, plural, =0 {} other {; # left out by the capacity cap}}.',
    { invited, failed, skipped: skippedForCapacity },
  );
}

/** What the line's "invite the next" did. */
export const invitedNext = (invited: number, failed: number): string =>
  counted('{invited, number} invited{failed, plural, =0 {} other {; # could not be mailed and keep their place}}.', { invited, failed });

/** Each reason in the team's words. */
export const REASONS: Record<ReferralReason, string> = {
  own_address: 'the referrer’s own address',
  already_credited: 'this mailbox counted before',
  disposable_domain: 'a disposable or blocked domain',
  network_velocity: 'too many from one network',
  too_fast: 'confirmed faster than a person can',
  referral_burst: 'too many sign-ups through one link in an hour',
  not_confirmed: 'not confirmed yet',
  waiting_period: 'waiting period',
  revoked_by_team: 'revoked by the team',
  granted_by_team: 'granted by the team',
};
