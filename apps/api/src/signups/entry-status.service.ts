import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiKey, APP_CONFIG, AppConfig, EntryRecord, Locale, Milestone, Product } from '@app/shared';
import { DataSource, IsNull } from 'typeorm';
import type { Leader } from '../leaderboard/leaderboard.dto';
import { LeaderboardService } from '../leaderboard/leaderboard.service';
import { LineService } from '../line/line.service';
import { ReferralLists } from '../referrals/referral-lists';
import { reachedIn } from '../referrals/milestones';
import { entryOfToken } from './entry-links';

/** What the person's friends did for its place: credited referrals, the places they gave, and those still being checked. */
export interface Friends {
  credited: number;
  places: number;
  beingChecked: number;
}

/** What every state of the page shows: the product, the language, and its my-data page (null without a publishable key in use). */
interface StatusFrame {
  productName: string;
  locale: Locale;
  myDataLink: string | null;
}

/** What a hosted confirm page shows about the entry behind its link, in its language. */
export type ConfirmStatus =
  | ({ state: 'pending' } & StatusFrame)
  | ({
      state: 'confirmed';
      place: number;
      estimatedWaitDays: number | null;
      referralLink: string | null;
      friends: Friends;
      leaderboard: Leader[] | null;
      milestones: Milestone[];
    } & StatusFrame)
  | ({ state: 'invited' } & StatusFrame);

/** What the pages behind a mail's links read of their entry, and the one thing they change besides: its language. */
@Injectable()
export class EntryStatus {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly line: LineService,
    private readonly referralLists: ReferralLists,
    private readonly leaderboard: LeaderboardService,
  ) {}

  /** Shows what the link's entry is at, without changing anything (GET of a confirm link). */
  async confirmStatus(token: string): Promise<ConfirmStatus> {
    return this.statusOf(await entryOfToken(this.db.manager, token, 'confirm'));
  }

  /** Where an entry stands, as its status page (and the script-tag form once it is confirmed) shows it. */
  async statusOf(record: EntryRecord): Promise<ConfirmStatus> {
    const product = await this.db.getRepository(Product).findOneByOrFail({ id: record.productId });
    const key = await this.publishableKeyOf(product.id, record.mode);
    const frame = { productName: product.name, locale: record.locale, myDataLink: key && `${this.config.PUBLIC_BASE_URL}/w/${encodeURIComponent(key)}/my-data` };
    if (record.state === 'pending') return { state: 'pending', ...frame };
    if (record.state !== 'confirmed') return { state: 'invited', ...frame };
    const { place, estimatedWaitDays } = await this.line.standingOf(record);
    const friends = { credited: record.referrals, places: record.referrals * product.referralPlaces, beingChecked: await this.referralLists.beingChecked(record.id) };
    return {
      state: 'confirmed',
      ...frame,
      place,
      estimatedWaitDays,
      referralLink: this.referralLink(product, record, key),
      friends,
      leaderboard: await this.leaderboard.maskedBoard(record),
      milestones: reachedIn(await this.referralLists.milestonesOf(record.id), product.milestones, record.locale),
    };
  }

  /** The product name and the language behind an unsubscribe link, for its page; 404 when the link is spent. */
  async unsubscribeTarget(token: string): Promise<{ productName: string; locale: Locale }> {
    const entry = await entryOfToken(this.db.manager, token, 'unsubscribe');
    return { productName: (await this.db.getRepository(Product).findOneByOrFail({ id: entry.productId })).name, locale: entry.locale };
  }

  /** The language of the entry behind a confirmation link, from now on: its pages and its mails. */
  async changeLocale(token: string, locale: Locale): Promise<void> {
    const entry = await entryOfToken(this.db.manager, token, 'confirm');
    await this.db.getRepository(EntryRecord).update({ id: entry.id }, { locale });
  }

  /** The product's sign-up page with ?ref=, or the hosted one (of its publishable key in use) when the product has none. */
  private referralLink(product: Product, entry: EntryRecord, publishableKey: string | null): string | null {
    if (!entry.referralCode) return null;
    const base = product.signupUrl ?? (publishableKey && `${this.config.PUBLIC_BASE_URL}/w/${publishableKey}`);
    if (!base) return null;
    const url = new URL(base);
    url.searchParams.set('ref', entry.referralCode);
    return url.toString();
  }

  /** The newest publishable key in use of a product and mode (publishable keys are public: it is kept whole). */
  private async publishableKeyOf(productId: string, mode: EntryRecord['mode']): Promise<string | null> {
    const key = await this.db.getRepository(ApiKey).findOne({
      where: { productId, mode, kind: 'publishable', revokedAt: IsNull() },
      order: { createdAt: 'DESC' },
    });
    return key?.hint ?? null;
  }
}
