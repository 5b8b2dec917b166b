import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../domain/modes';

@Entity('events')
export class EventRecord {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'product_id' }) productId!: string;
  @Column('text') mode!: Mode;
  @Column('text') type!: string;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
  /**
   * The envelope exactly as it is sent, while a delivery of it waits for a retry; deleted once every
   * delivery succeeded or was given up. Until its first attempts the body is in its outbox row.
   */
  @Column('text', { nullable: true }) body!: string | null;
}
