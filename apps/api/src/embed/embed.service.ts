import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EntryRecord, Question, questionWords, translator, Translator } from '@app/shared';
import { DataSource } from 'typeorm';
import { browserLanguage } from '../common/html';
import { RateLimits } from '../common/rate-limits';
import { EntryStatus } from '../signups/entry-status.service';
import { friendsSentence } from '../signups/pages';
import { SignupsService } from '../signups/signups.service';
import { SignupSignals } from '../signups/signup-signals';
import { SignupWatches } from '../signups/signup-watches';
import type { EmbedForm, SignupStatus } from './embed.dto';

/** A question as the script-tag form asks it in a language: the answer's choices as they are, their words beside them where they differ. */
function embedQuestion({ labels, ...question }: Question, locale: string): EmbedForm['questions'][number] {
  const words = questionWords({ ...question, labels }, locale);
  const translated = words.choices.some((choice, index) => choice !== question.choices?.[index]);
  return { ...question, label: words.label, ...(translated ? { choiceLabels: words.choices } : {}) };
}

/** The script-tag form's words in a language: the hosted pages' own, and a few of its buttons. */
function messages(t: Translator, productName: string): Record<string, string> {
  const product = { product: productName };
  return {
    email: t.text('page.signup.email'),
    join: t.text('page.signup.submit'),
    failed: t.text('embed.failed'),
    checkInbox: t.text('page.sent.title'),
    checkInboxText: t.text('page.sent.body', product),
    onTheList: t.text('page.status.heading', product),
    yourPlace: t.text('page.status.place'),
    yourLink: t.text('embed.yourLink'),
    shareText: t.text('page.status.share'),
    copy: t.text('embed.copy'),
    copied: t.text('embed.copied'),
    share: t.text('embed.share'),
    leaderboard: t.text('page.status.leaderboard'),
    nobodyYet: t.text('page.status.noLeaders'),
    invited: t.text('page.invited.body', product),
    optional: t.text('page.signup.optional'),
    choose: t.text('page.signup.choose'),
    checking: t.text('page.signup.checking'),
    checked: t.text('page.signup.checked'),
  };
}

@Injectable()
export class EmbedService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly signups: SignupsService,
    private readonly status: EntryStatus,
    private readonly watches: SignupWatches,
    private readonly limits: RateLimits,
    private readonly signals: SignupSignals,
  ) {}

  /** In the language the browser asks for, else the product's default; the form signs up in that language. */
  async form(key: string, acceptLanguage: string | undefined): Promise<EmbedForm> {
    const { product, scope } = await this.signups.productOfPublishableKey(key);
    const t = browserLanguage(product, acceptLanguage);
    const signals = this.signals.forForm(scope, product);
    const title = t.text('page.signup.title', { product: product.name });
    return { title, locale: t.locale, questions: product.questions.map((question) => embedQuestion(question, t.locale)), messages: messages(t, product.name), challenge: product.challengeMode, ...signals };
  }

  /** Only an entry of the key's own product and mode is shown, and only to the page that holds the watch. */
  async watched(key: string, watch: string, ip: string): Promise<SignupStatus> {
    await this.limits.signupStatusFromIp(ip);
    const scope = await this.signups.scopeOfPublishableKey(key);
    const entryId = await this.watches.entryOf(watch);
    const record = entryId && (await this.db.getRepository(EntryRecord).findOneBy({ id: entryId, productId: scope.productId, mode: scope.mode }));
    if (!record) return { state: 'pending' };
    const status = await this.status.statusOf(record);
    if (status.state !== 'confirmed') return { state: status.state };
    const { place, estimatedWaitDays, referralLink, leaderboard, friends } = status;
    const t = translator(record.locale);
    const wait = estimatedWaitDays === null ? t.text('page.status.waitUnknown') : t.text('page.status.wait', { days: Math.max(1, estimatedWaitDays) });
    return { state: 'confirmed', place, estimatedWaitDays, referralLink, leaderboard, words: { wait, friends: friendsSentence(t, friends) } };
  }
}
