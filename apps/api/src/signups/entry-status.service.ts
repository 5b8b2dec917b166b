import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiKey, APP_CONFIG, AppConfig, EntryRecord, Locale, Milestone, Product } from '@app/shared';
import { DataSource, IsNull } from 'typeorm';
import type { Leader } from '../leaderboard/leaderboard.dto';
import { LeaderboardService } from '../leaderboard/leaderboard.service';
import { LineService } from '../line/line.service';
import { ReferralLists } from '../referrals/referral-lists';
import { entryOfToken } from './entry-links';

/** What the person's friends did for its place: credited referrals, the places they gave, and those still being checked. */
export interface Friends {
  credited: number;
  places: number;
  beingChecked: number;
}

/** What a hosted confirm page shows about the entry behind its link, in its language. */
export type ConfirmStatus = { locale: Locale } & (
  | { state: 'pending'; productName: string }
  | {
      state: 'confirmed';
      productName: string;
      place: number;
      estimatedWaitDays: number | null;
      referralLink: string | null;
      friends: Friends;
      leaderboard: Leader[] | null;
      milestones: Milestone[];
    }
  | { state: 'invited'; productName: string }
);

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
    const { locale } = record;
    if (record.state === 'pending') return { state: 'pending', productName: product.name, locale };
    if (record.state !== 'confirmed') return { state: 'invited', productName: product.name, locale };
    const { place, estimatedWaitDays } = await this.line.standingOf(record);
    const friends = { credited: record.referrals, places: record.referrals * product.referralPlaces, beingChecked: await this.referralLists.beingChecked(record.id) };
    return {
      state: 'confirmed',
      productName: product.name,
      locale,
      place,
      estimatedWaitDays,
      referralLink: await this.referralLink(product, record),
      friends,
      leaderboard: await this.leaderboard.maskedBoard(record),
      milestones: await this.referralLists.milestonesOf(record.id),
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

  /** The product's sign-up page with ?ref=, or the hosted one when the product has none. */
  private async referralLink(product: Product, entry: EntryRecord): Promise<string | null> {
    if (!entry.referralCode) return null;
    let base = product.signupUrl;
    if (!base) {
      const key = await this.db.getRepository(ApiKey).findOne({
        where: { productId: product.id, mode: entry.mode, kind: 'publishable', revokedAt: IsNull() },
        order: { createdAt: 'DESC' },
      });
      if (!key) return null;
      base = `${this.config.PUBLIC_BASE_URL}/w/${key.hint}`;
    }
    const url = new URL(base);
    url.searchParams.set('ref', entry.referralCode);
    return url.toString();
  }
}
