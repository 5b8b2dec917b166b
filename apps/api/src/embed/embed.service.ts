import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EntryRecord } from '@app/shared';
import { DataSource } from 'typeorm';
import { friendsSentence, waitInWords } from '../signups/pages';
import { SignupsService } from '../signups/signups.service';
import { SignupWatches } from '../signups/signup-watches';
import type { EmbedForm, SignupStatus } from './embed.dto';

/** The script-tag form's words. */
const MESSAGES = {
  email: 'Email address',
  join: 'Join the waitlist',
  failed: 'The sign-up did not go through; try again in a moment.',
  checkInbox: 'Check your inbox',
  checkInboxText: 'If the address can join, a confirmation mail is on its way. Open it and press the button: your place shows here.',
  onTheList: "You're on the waitlist",
  yourPlace: 'Your place in line:',
  yourLink: 'Your referral link',
  shareText: 'Share your link: every friend who joins and confirms through it moves you up the line.',
  copy: 'Copy',
  copied: 'Copied',
  share: 'Share',
  leaderboard: 'Leaderboard',
  nobodyYet: 'Nobody has brought a friend yet: be the first.',
  invited: "You're invited: look for the invitation in your inbox.",
};

@Injectable()
export class EmbedService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly signups: SignupsService,
    private readonly watches: SignupWatches,
  ) {}

  async form(key: string): Promise<EmbedForm> {
    const { product } = await this.signups.productOfPublishableKey(key);
    return { title: `Join the ${product.name} waitlist`, messages: MESSAGES };
  }

  /** Only an entry of the key's own product and mode is shown, and only to the page that holds the watch. */
  async status(key: string, watch: string): Promise<SignupStatus> {
    const { scope } = await this.signups.productOfPublishableKey(key);
    const entryId = await this.watches.entryOf(watch);
    const record = entryId && (await this.db.getRepository(EntryRecord).findOneBy({ id: entryId, productId: scope.productId, mode: scope.mode }));
    if (!record) return { state: 'pending' };
    const status = await this.signups.statusOf(record);
    if (status.state !== 'confirmed') return { state: status.state };
    const { place, estimatedWaitDays, referralLink, leaderboard, friends } = status;
    return { state: 'confirmed', place, estimatedWaitDays, referralLink, leaderboard, words: { wait: waitInWords(estimatedWaitDays), friends: friendsSentence(friends) } };
  }
}
