import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../domain/modes';
import type { CreditAfter, PlaceCause, ReferralReason, ReferralState } from '../../domain/referrals';
import { bigintNumber } from './columns';

/** The last confirmation number given out in a product and mode: confirming takes the next one. */
@Entity('line_counters')
export class LineCounter {
  @PrimaryColumn('text', { name: 'product_id' }) productId!: string;
  @PrimaryColumn('text') mode!: Mode;
  @Column('bigint', { name: 'last_seq', transformer: bigintNumber }) lastSeq!: number;
}

/**
 * A mailbox whose referral has counted in a product and mode: each counts once, whatever variant of the
 * address, link or entry. Only the SHA-256 of canonicalEmail is kept, so no address outlives its entry.
 */
@Entity('referral_credits')
export class ReferralCredit {
  @PrimaryColumn('text', { name: 'product_id' }) productId!: string;
  @PrimaryColumn('text') mode!: Mode;
  @PrimaryColumn('bytea', { name: 'email_hash' }) emailHash!: Buffer;
}

/**
 * A mailbox whose entry was deleted or unsubscribed in a product and mode, so that no import brings it
 * back. Only the SHA-256 of canonicalEmail is kept, as for referral_credits.
 */
@Entity('suppressed_addresses')
export class SuppressedAddress {
  @PrimaryColumn('text', { name: 'product_id' }) productId!: string;
  @PrimaryColumn('text') mode!: Mode;
  @PrimaryColumn('bytea', { name: 'email_hash' }) emailHash!: Buffer;
  @Column('timestamp with time zone', { name: 'suppressed_at', precision: 3 }) suppressedAt!: Date;
}

/**
 * A sign-up through an entry's referral link, from the sign-up on, and its credit. Only a credited
 * referral counts in its referrer's referrals and line key.
 */
@Entity('referrals')
export class Referral {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'product_id' }) productId!: string;
  @Column('text') mode!: Mode;
  @Column('text', { name: 'referrer_id' }) referrerId!: string;
  @Column('text', { name: 'referred_id' }) referredId!: string;
  @Column('text') state!: ReferralState;
  @Column('text', { array: true }) reasons!: ReferralReason[];
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
  @Column('timestamp with time zone', { name: 'confirmed_at', precision: 3, nullable: true }) confirmedAt!: Date | null;
  /** The confirming client's IPv4 /24 or IPv6 /64. */
  @Column('text', { nullable: true }) network!: string | null;
  /** A pending referral's waiting period ends then (and, with creditAfter, once its entry got that far). */
  @Column('timestamp with time zone', { name: 'credit_at', precision: 3, nullable: true }) creditAt!: Date | null;
  @Column('text', { name: 'credit_after', nullable: true }) creditAfter!: Exclude<CreditAfter, 'confirmed'> | null;
  @Column('timestamp with time zone', { name: 'decided_at', precision: 3, nullable: true }) decidedAt!: Date | null;
}

/** One change of an entry's place or credit, with its cause. */
@Entity('place_history')
export class PlaceChange {
  @PrimaryColumn('bigint', { transformer: bigintNumber }) id!: number;
  @Column('text', { name: 'entry_id' }) entryId!: string;
  @Column('timestamp with time zone', { precision: 3 }) at!: Date;
  @Column('text') cause!: PlaceCause;
  /** Places gained, less lost (line keys). */
  @Column('int') places!: number;
  /** joined: the place it joined the line at. */
  @Column('int', { nullable: true }) place!: number | null;
  @Column('text', { name: 'referral_id', nullable: true }) referralId!: string | null;
  @Column('text', { array: true }) reasons!: ReferralReason[];
}
