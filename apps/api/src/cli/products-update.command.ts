import { PRODUCT_SETTINGS, ProductSettings, ProductsService } from '../products/products.service';
import { productMustExist } from './checks';
import { CliCommand, UsageError } from './command';
import { withServices } from './services';

interface Options {
  product: string;
  name?: string;
  senderName?: string;
  inviteUrl?: string;
  signupUrl?: string;
  referralPlaces?: string;
  referralProtection?: string;
  velocityLimit?: string;
  velocityWindowHours?: string;
  tooFastSeconds?: string;
  burstPerHour?: string;
  waitingDays?: string;
  waitingFor?: string;
  blockedDomains?: string;
  allowedDomains?: string;
  leaderboard?: string;
  leaderboardSize?: string;
  capacity?: string;
  mailQuotaHourly?: string;
  mailQuotaDaily?: string;
  milestones?: string;
  claimWindowDays?: string;
  claimReminderHours?: string;
  claimExpiry?: string;
  defaultLocale?: string;
  signupHoneypot?: string;
  signupMinFillSeconds?: string;
  challengeMode?: string;
  challengeDifficulty?: string;
}

/** Each flag by its setting, the dashboard's settings form's field of the same name. */
const FLAGS: Record<Exclude<keyof Options, 'product'>, string> = {
  name: '--name',
  senderName: '--sender-name',
  inviteUrl: '--invite-url',
  signupUrl: '--signup-url',
  referralPlaces: '--referral-places',
  referralProtection: '--referral-protection',
  velocityLimit: '--velocity-limit',
  velocityWindowHours: '--velocity-window-hours',
  tooFastSeconds: '--too-fast-seconds',
  burstPerHour: '--burst-per-hour',
  waitingDays: '--waiting-days',
  waitingFor: '--waiting-for',
  blockedDomains: '--blocked-domains',
  allowedDomains: '--allowed-domains',
  leaderboard: '--leaderboard',
  leaderboardSize: '--leaderboard-size',
  capacity: '--capacity',
  mailQuotaHourly: '--mail-quota-hourly',
  mailQuotaDaily: '--mail-quota-daily',
  milestones: '--milestones',
  claimWindowDays: '--claim-window-days',
  claimReminderHours: '--claim-reminder-hours',
  claimExpiry: '--claim-expiry',
  defaultLocale: '--default-locale',
  signupHoneypot: '--signup-honeypot',
  signupMinFillSeconds: '--signup-min-fill-seconds',
  challengeMode: '--challenge-mode',
  challengeDifficulty: '--challenge-difficulty',
};

export const productsUpdate: CliCommand<Options> = {
  name: 'products update',
  description: "changes the settings named, as the dashboard's settings page does; '' clears a setting (a threshold goes back to its level's default)",
  options: [
    { flags: '--product <ID>', description: 'the product', required: true },
    { flags: '--name <N>', description: 'its name' },
    { flags: '--sender-name <N>', description: 'the name mails are sent under' },
    { flags: '--invite-url <U>', description: 'where invitation links go' },
    { flags: '--signup-url <U>', description: "the product's own sign-up page, for referral links" },
    { flags: '--referral-places <K>', description: 'places a credited referral moves its referrer up' },
    { flags: '--referral-protection <off|standard|strict>', description: 'how referrals are checked before they count (off: every confirmed one counts)' },
    { flags: '--velocity-limit <N>', description: 'confirmed referrals of one referrer per IPv4 /24 or IPv6 /64 that count within the window' },
    { flags: '--velocity-window-hours <H>', description: 'the window of --velocity-limit' },
    { flags: '--too-fast-seconds <S>', description: 'a confirmation sooner after its mail is withheld (0: never)' },
    { flags: '--burst-per-hour <N>', description: 'sign-ups through one referral link that count within an hour; the rest are withheld for review (none unless set)' },
    { flags: '--waiting-days <D>', description: 'credit a referral only D days after it confirmed' },
    { flags: '--waiting-for <confirmed|invited|redeemed>', description: 'credit a referral only once its entry got this far' },
    { flags: '--blocked-domains <D1,D2>', description: 'domains whose referrals are withheld as disposable' },
    { flags: '--allowed-domains <D1,D2>', description: 'domains the list of disposable domains may not withhold' },
    { flags: '--leaderboard <off|test|live|both>', description: 'the modes whose top referrers are public (masked) on GET /public/v1/leaderboard, the status page and the sign-up form\'s check-your-inbox page' },
    { flags: '--milestones <M>', description: "milestone rewards, up to 10, separated by ';': 'N | name | places | line for the person' (places and line optional; '' for none)" },
    { flags: '--leaderboard-size <N>', description: 'how many referrers the leaderboard lists, 1-100 (10 unless set)' },
    { flags: '--claim-window-days <D>', description: "an invitation not redeemed within D days (1-30) expires ('' for no window)" },
    { flags: '--claim-reminder-hours <R>', description: "one reminder mail with the same code R hours before the window ends ('' or 0 for none)" },
    { flags: '--claim-expiry <back_in_line|end_of_line|delete>', description: 'what becomes of an entry whose claim window ended' },
    { flags: '--capacity <K>', description: "at most K entries of a mode invited and not yet redeemed ('' for no cap, the default)" },
    { flags: '--challenge-mode <off|invisible|required>', description: 'the proof of work a public sign-up must bring, which the hosted and script-tag forms solve (off unless set)' },
    { flags: '--challenge-difficulty <N>', description: 'the challenge\'s largest number, 1000-5000000 (50000 unless set)' },
    { flags: '--mail-quota-hourly <N>', description: "releases invite at most N per UTC hour, counting every invitation mail of the product ('' for none, the default)" },
    { flags: '--mail-quota-daily <N>', description: "the same per UTC day ('' for none, the default)" },
    { flags: '--default-locale <en|de|fr|es>', description: "the language of a sign-up that names none and whose browser asks for none of these (en unless set)" },
    { flags: '--signup-honeypot <off|on>', description: 'the hosted and script-tag forms carry a hidden field; a sign-up that fills it is dropped without a word (off unless set)' },
    { flags: '--signup-min-fill-seconds <S>', description: "a sign-up from those forms sooner than S seconds after the form was shown is dropped without a word ('' or 0 for none)" },
  ],
  run: ({ product, ...flags }, config) => {
    const changes = settingsOf(flags);
    return withServices(config, async (app) => {
      const products = app.get(ProductsService);
      await productMustExist(products, product);
      await products.update(product, changes);
      const updated = (await products.find(product))!;
      const { id, referralPlaces, referralProtection, referralRules, leaderboard, leaderboardSize, milestones, claimWindowDays, claimReminderHours, claimExpiry } = updated;
      const json = {
        id, referralPlaces, referralProtection, referralRules, leaderboard, leaderboardSize, milestones, claimWindowDays, claimReminderHours, claimExpiry,
        ...('capacity' in changes ? { capacity: updated.capacity } : {}),
        ...('mailQuotaHourly' in changes || 'mailQuotaDaily' in changes ? { mailQuotaHourly: updated.mailQuotaHourly, mailQuotaDaily: updated.mailQuotaDaily } : {}),
        ...('defaultLocale' in changes ? { defaultLocale: updated.defaultLocale } : {}),
        ...('signupHoneypot' in changes ? { signupHoneypot: updated.signupHoneypot } : {}),
        ...('signupMinFillSeconds' in changes ? { signupMinFillSeconds: updated.signupMinFillSeconds } : {}),
        ...('challengeMode' in changes || 'challengeDifficulty' in changes ? { challengeMode: updated.challengeMode, challengeDifficulty: updated.challengeDifficulty } : {}),
      };
      const window = claimWindowDays ? `${claimWindowDays}-day claim window (reminder ${claimReminderHours ?? 0} h before, then ${claimExpiry})` : 'no claim window';
      return { json, text: `product ${id} updated: referral protection ${referralProtection} ${JSON.stringify(referralRules)}, leaderboard ${leaderboard} (top ${leaderboardSize}), ${milestones.length} milestone(s), ${window}` };
    });
  },
};

/** The flags given, checked by the settings form's own rules, in the CLI's words. */
function settingsOf(flags: Omit<Options, 'product'>): Partial<ProductSettings> {
  const given = Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined));
  if (Object.keys(given).length === 0) throw new UsageError('Name at least one setting to change.');
  const result = PRODUCT_SETTINGS.partial().safeParse(given);
  if (result.success) return Object.fromEntries(Object.entries(result.data).filter(([key]) => key in given));
  const issue = result.error.issues[0];
  const flag = FLAGS[String(issue.path[0]) as keyof typeof FLAGS];
  throw new UsageError(`${flag}: ${issue.message}.`);
}
