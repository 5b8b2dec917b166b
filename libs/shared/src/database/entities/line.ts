import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../domain/modes';
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
