import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('outbox')
export class OutboxMessage {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) id!: string;
  @Column('text') queue!: string;
  @Column('text') name!: string;
  @Column('jsonb') data!: object;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
  /** Set by an older version's relay when it made the row a BullMQ job; null on every row now. */
  @Column('timestamp with time zone', { name: 'published_at', precision: 3, nullable: true }) publishedAt!: Date | null;
  /** A confirmation mail's: while a mailer sends it, or until its next attempt is due. */
  @Column('timestamp with time zone', { name: 'leased_until', precision: 3, nullable: true }) leasedUntil!: Date | null;
  /** A webhooks event's envelope, exactly as it is sent, until its first attempts are logged. */
  @Column('text', { nullable: true }) body!: string | null;
  /** A confirmation mail's attempts begun. */
  @Column('smallint', { default: 0 }) attempts!: number;
}
