import { PRODUCT_SETTINGS, ProductSettings } from '../../products/products.service';

type Field = keyof ProductSettings;

/** A part of the settings page: what it sets, on a page and in a form of its own. */
export interface SettingsSection {
  /** Its URL under …/settings/. */
  path: string;
  title: string;
  /** One line on the settings' index. */
  summary: string;
  fields: readonly Field[];
}

/** The settings' sections, in the order the index lists them; together they hold every setting once (settings-sections.spec.ts). */
export const SETTINGS_SECTIONS: readonly SettingsSection[] = [
  { path: 'line', title: 'Line and referrals', summary: 'The name, the invite and sign-up pages, and the places a referral is worth.', fields: ['name', 'inviteUrl', 'signupUrl', 'referralPlaces'] },
  {
    path: 'protection',
    title: 'Referral protection',
    summary: 'Which referrals are withheld for review, and when a referral is credited.',
    fields: ['referralProtection', 'velocityLimit', 'velocityWindowHours', 'tooFastSeconds', 'burstPerHour', 'waitingDays', 'waitingFor', 'blockedDomains', 'allowedDomains'],
  },
  { path: 'leaderboard', title: 'Leaderboard and milestones', summary: 'The top referrers, and the rewards for a number of referrals.', fields: ['leaderboard', 'leaderboardSize', 'milestones'] },
  { path: 'questions', title: 'Sign-up questions', summary: 'What the sign-up asks besides the address.', fields: ['questions'] },
  { path: 'claim-window', title: 'Claim window and capacity', summary: 'How long an invitation lasts, and how many may be open at once.', fields: ['claimWindowDays', 'claimReminderHours', 'claimExpiry', 'capacity'] },
  { path: 'languages', title: 'Languages', summary: 'The language of a person who names none.', fields: ['defaultLocale'] },
  { path: 'mail', title: 'Mail', summary: 'Who mails come from, and how many invitation mails go out an hour and a day.', fields: ['senderName', 'mailQuotaHourly', 'mailQuotaDaily'] },
  { path: 'bot-defence', title: 'Bot defence', summary: 'The sign-up challenge, the honeypot and the quickest fill time.', fields: ['challengeMode', 'challengeDifficulty', 'signupHoneypot', 'signupMinFillSeconds'] },
];

/** The section at this path, if there is one. */
export const settingsSection = (path: string): SettingsSection | undefined => SETTINGS_SECTIONS.find((section) => section.path === path);

/** The API's settings schema cut to a section's fields: a section's form changes nothing else. */
export const sectionSchema = (section: SettingsSection) => PRODUCT_SETTINGS.pick(Object.fromEntries(section.fields.map((field) => [field, true])) as Partial<Record<Field, true>>);
