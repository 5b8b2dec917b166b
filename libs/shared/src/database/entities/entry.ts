import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { EntryState } from '../../domain/entry';
import type { Mode } from '../../domain/modes';
import type { Locale } from '../../i18n/locales';
import { bigintNumber } from './columns';

@Entity('entries')
export class EntryRecord {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'product_id' }) productId!: string;
  @Column('text') mode!: Mode;
  @Column('text') email!: string;
  @Column('text') state!: EntryState;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
  @Column('timestamp with time zone', { name: 'confirmed_at', precision: 3, nullable: true }) confirmedAt!: Date | null;
  @Column('timestamp with time zone', { name: 'invited_at', precision: 3, nullable: true }) invitedAt!: Date | null;
  @Column('timestamp with time zone', { name: 'redeemed_at', precision: 3, nullable: true }) redeemedAt!: Date | null;
  @Column('text', { name: 'referral_code', nullable: true }) referralCode!: string | null;
  @Column('int') referrals!: number;
  /** The entry whose referral link this one signed up through; counted when this one confirms. */
  @Column('text', { name: 'referred_by', nullable: true }) referredBy!: string | null;
  /** Order of confirmation within the product and mode (1, 2, 3, …). */
  @Column('bigint', { name: 'confirmation_seq', nullable: true, transformer: bigintNumber })
  confirmationSeq!: number | null;
  @Column('bigint', { name: 'moved_up', transformer: bigintNumber }) movedUp!: number;
  /** confirmation_seq − referral places × referrals − moved_up: the line is this key ascending. */
  @Column('bigint', { name: 'line_key', nullable: true, transformer: bigintNumber }) lineKey!: number | null;
  /** While an invitation request runs (until it settles), no other request may take the entry. */
  @Column('timestamp with time zone', { name: 'invite_held_until', precision: 3, nullable: true })
  inviteHeldUntil!: Date | null;
  /** The request that holds the entry (see inviteHeldUntil). */
  @Column('text', { name: 'invite_request', nullable: true }) inviteRequest!: string | null;
  /** The request whose mail last invited or re-invited the entry: how a request learns its own outcome. */
  @Column('text', { name: 'invited_by_request', nullable: true }) invitedByRequest!: string | null;
  /** The language of the entry's pages and mails: chosen at sign-up, changed on its status page. */
  @Column('text', { default: 'en' }) locale!: Locale;
  /** Since when the address is undeliverable (a hard bounce, or MAIL_SOFT_BOUNCE_LIMIT soft ones): invite-next and releases skip it. */
  @Column('timestamp with time zone', { name: 'undeliverable_at', precision: 3, nullable: true }) undeliverableAt!: Date | null;
  /** Soft bounces since the address was last cleared. */
  @Column('int', { name: 'soft_bounces', default: 0 }) softBounces!: number;
}

export type TokenPurpose = 'confirm' | 'unsubscribe';

@Entity('entry_tokens')
export class EntryToken {
  @PrimaryColumn('bytea') hash!: Buffer;
  @Index()
  @Column('text', { name: 'entry_id' })
  entryId!: string;
  @Column('text') purpose!: TokenPurpose;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
}

@Entity('invite_codes')
export class InviteCode {
  /** SHA-256 of the code; the code itself exists only in the mail (and, for a reminder to come, sealed: sealedCode). */
  @PrimaryColumn('bytea') hash!: Buffer;
  @Column('text', { name: 'entry_id' }) entryId!: string;
  @Column('timestamp with time zone', { name: 'expires_at', precision: 3 }) expiresAt!: Date;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
  /** The invitation request that made the code. */
  @Column('text', { name: 'request_id', nullable: true }) requestId!: string | null;
  /**
   * False from just before the mail's handover until the handover is recorded. A code whose mail may
   * have gone out but whose recording never happened (the mailer died) is recorded when first used.
   */
  @Column('boolean') recorded!: boolean;
  /**
   * True once the SMTP server took the mail: set right after the handover, one statement, while the
   * recording waits for the end of the mail's chunk (or for the API, if the mailer died before then).
   */
  @Column('boolean', { name: 'handed_over', default: false }) handedOver!: boolean;
  /** Under a claim window, its end (and expiresAt); the maintenance round acts on it and clears it. */
  @Column('timestamp with time zone', { name: 'claim_ends_at', precision: 3, nullable: true }) claimEndsAt!: Date | null;
  /** When its one reminder is due; cleared once the reminder is queued. */
  @Column('timestamp with time zone', { name: 'remind_at', precision: 3, nullable: true }) remindAt!: Date | null;
  /** The code sealed with ENCRYPTION_KEY (CLAIM_REMINDER_CODES), only while a reminder is to carry it. */
  @Column('bytea', { name: 'sealed_code', nullable: true }) sealedCode!: Buffer | null;
}
