import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('outbox')
export class OutboxMessage {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) id!: string;
  @Column('text') queue!: string;
  @Column('text') name!: string;
  @Column('jsonb') data!: object;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
  /** When the relay last handed the row to its queue; null until it has. */
  @Column('timestamp with time zone', { name: 'published_at', precision: 3, nullable: true }) publishedAt!: Date | null;
  /** While a consumer works on the row's job; the reconciler leaves it alone until then. */
  @Column('timestamp with time zone', { name: 'leased_until', precision: 3, nullable: true }) leasedUntil!: Date | null;
}
