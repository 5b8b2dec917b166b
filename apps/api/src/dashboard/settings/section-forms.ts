import { html, LANGUAGE_NAMES, LOCALES, SafeHtml } from '@app/shared';
import { LEVEL_DEFAULTS } from '../../referrals/protection';
import type { SettingsSection } from './settings-sections';
import type { SectionForm, SettingsFields } from './fields';
import { milestonesBuilder, questionsBuilder } from './builder-forms';

const { standard, strict } = LEVEL_DEFAULTS;
const byLevel = (name: 'velocityLimit' | 'velocityWindowHours' | 'tooFastSeconds' | 'waitingDays') => `standard ${standard[name]}, strict ${strict[name]}`;

/** Each section's fields, by the section's path (settings-sections.ts lists which settings each holds). */
const BODIES: Record<string, (f: SettingsFields, form: SectionForm) => SafeHtml> = {
  line: (f) => html`${f.input('name', 'Name', 'text', 'Shown on the hosted pages and in mails.', ' required maxlength="100"')}
${f.input('inviteUrl', 'Invite URL', 'url', 'Invitation mails link here with ?invite=<code>; when empty, to the service’s own invitation page (/invitation), which shows the invitation without using it up.')}
${f.input('signupUrl', 'Sign-up page URL', 'url', 'Referral links point here with ?ref=<code>; the hosted sign-up page when empty.')}
${f.input('referralPlaces', 'Referral places', 'number', 'Places an entry moves up for each friend who confirms. A change moves everyone waiting to their new place (live and test).', ' required min="0" max="9999"')}`,

  protection: (f) => html`${f.choice('referralProtection', 'Protection', [
    ['off', 'Off: every confirmed referral counts'],
    ['standard', 'Standard: withhold doubtful referrals'],
    ['strict', 'Strict: withhold more, and wait before crediting'],
  ], 'Off: a referral counts once its sign-up confirms, unless its mailbox is the referrer’s own or counted before (as the API reference says). Standard: also withholds disposable and blocked domains, more than 5 referrals of one referrer from one network in 24 hours, and confirmations within 5 seconds of the mail. Strict: 3 per network in 72 hours, 10 seconds, and credit only after 3 days. Withheld referrals wait in Referrals for the team to grant or revoke; the sign-up never fails.')}
<p class="muted">The thresholds below apply from standard on; leave one empty for the level’s default.</p>
${f.input('velocityLimit', 'Referrals per network', 'number', `At most this many confirmed referrals of one referrer from one IPv4 /24 or IPv6 /64 count within the window (${byLevel('velocityLimit')}).`, ' min="1" max="100000"')}
${f.input('velocityWindowHours', 'Network window (hours)', 'number', `The window of the limit above (${byLevel('velocityWindowHours')}).`, ' min="1" max="8760"')}
${f.input('tooFastSeconds', 'Quickest confirmation (seconds)', 'number', `A confirmation sooner after its mail than this is withheld; 0 turns it off (${byLevel('tooFastSeconds')}).`, ' min="0" max="3600"')}
${f.input('burstPerHour', 'Sign-ups per link an hour', 'number', 'More sign-ups than this through one referral link within an hour are withheld for review; empty: no cap (at every level).', ' min="1" max="100000"')}
${f.input('waitingDays', 'Waiting period (days)', 'number', `Credit a referral only this many days after it confirmed; shown as pending until then (${byLevel('waitingDays')}).`, ' min="0" max="365"')}
${f.choice('waitingFor', 'Credit once the friend is', [
  ['', 'the level’s default (confirmed)'],
  ['confirmed', 'confirmed'],
  ['invited', 'invited'],
  ['redeemed', 'redeemed (signed up to the product)'],
], 'A referral may wait for the entry it brought to be invited, or to redeem its invitation, before it counts.')}
${f.lines('blockedDomains', 'Blocked domains', 'Referrals from these domains (and below them) are withheld as disposable; one per line.')}
${f.lines('allowedDomains', 'Allowed domains', 'Domains the list of disposable domains may not withhold; one per line.')}`,

  leaderboard: (f, form) => html`${f.choice('leaderboard', 'Show the leaderboard', [
    ['off', 'Off'],
    ['test', 'In test mode only'],
    ['live', 'In live mode only'],
    ['both', 'In live and test mode'],
  ], 'The top referrers by credited referrals, on the status page, after the hosted sign-up form and at GET /public/v1/leaderboard?key=pk_…, their addresses masked (j•••@g•••.com). The team sees them whole under Referrals.')}
${f.input('leaderboardSize', 'Referrers on the leaderboard', 'number', 'How many it lists, 1 to 100.', ' required min="1" max="100"')}
${milestonesBuilder(f, form.milestones)}`,

  questions: (f, form) => questionsBuilder(f, form.questions),

  'claim-window': (f) => html`${f.input('claimWindowDays', 'Claim window (days)', 'number', 'An invitation not redeemed within this many days (1 to 30) expires: its code stops working and entry.invitation_expired is sent. Empty: no window, codes work 30 days and the entry stays invited.', ' min="1" max="30"')}
${f.input('claimReminderHours', 'Reminder (hours before the end)', 'number', 'One reminder mail with the same link this many hours before the window ends; empty or 0 for none.', ' min="0" max="719"')}
${f.choice('claimExpiry', 'When the window ends, the entry', [
  ['back_in_line', 'goes back into the line at its old place'],
  ['end_of_line', 'goes to the end of the line'],
  ['delete', 'is deleted (entry.deleted)'],
], 'Who is invited next is up to you; a freed place is not filled by itself.')}
<h2>Capacity</h2>
${f.input('capacity', 'Capacity cap', 'number', 'At most this many entries of a mode invited and not yet redeemed (an expired code no longer counts): releases invite only up to it, and an invite that would pass it is refused. Empty: no cap.', ' min="1" max="9999999"')}`,

  languages: (f) => f.choice('defaultLocale', 'Default language', LOCALES.map((locale) => [locale, LANGUAGE_NAMES[locale]] as const), 'The language of the hosted pages and the default mails for a person whose sign-up names none and whose browser asks for none of these. Each person can change theirs on the status page. Questions and milestones can have words of their own in each language (in their sections).'),

  mail: (f) => html`${f.input('senderName', 'Mail sender name', 'text', 'The name mails come from; the product name when empty.', ' maxlength="100"')}
<h2>Mail quota</h2>
${f.input('mailQuotaHourly', 'Invitation mails per hour', 'number', 'Releases invite at most this many per clock hour (UTC), counting every invitation mail of the product; the rest wait for the next run whose hour has room. Empty: no quota.', ' min="1" max="9999999"')}
${f.input('mailQuotaDaily', 'Invitation mails per day', 'number', 'The same per day (UTC). Empty: no quota.', ' min="1" max="99999999"')}`,

  'bot-defence': (f) => html`<h2>Sign-up challenge</h2>
${f.choice('challengeMode', 'Challenge', [
  ['off', 'Off'],
  ['invisible', 'Invisible: solved in the background'],
  ['required', 'Required: shown as a step before joining'],
], 'A small proof of work that the hosted form and the script-tag form solve in the person’s browser before a sign-up counts, served by this service alone, with nothing kept about the person. A sign-up without it (a script, or a browser without JavaScript) is refused with 400 challenge_failed. Your own form must fetch and solve one too: see the API reference.')}
${f.input('challengeDifficulty', 'Difficulty', 'number', 'The largest number the browser may have to try, 1,000 to 5,000,000; it tries half of them on average (50,000: well under a second on a phone).', ' min="1000" max="5000000"')}
<h2>Bot signals</h2>
${f.choice('signupHoneypot', 'Honeypot', [
  ['off', 'Off'],
  ['on', 'On'],
], 'The hosted form and the script-tag form carry a field no person sees or hears; a sign-up that fills it in is dropped: it is answered as usual, and nothing is stored or mailed.')}
${f.input('signupMinFillSeconds', 'Minimum fill time (seconds)', 'number', 'A sign-up from the hosted or script-tag form sooner than this after the form was shown is dropped the same way; empty or 0: none. Sign-ups from your own server or form are not timed. Dropped sign-ups are counted on the overview.', ' min="0" max="3600"')}`,
};

/** The fields of a section's form. */
export const sectionBody = (section: SettingsSection, fields: SettingsFields, form: SectionForm): SafeHtml => BODIES[section.path](fields, form);
