import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../domain/modes';

@Entity('idempotency_keys')
export class IdempotencyRecord {
  @PrimaryColumn('text', { name: 'product_id' }) productId!: string;
  @PrimaryColumn('text') mode!: Mode;
  @PrimaryColumn('text') key!: string;
  /** SHA-256 of method, route and body: the same key with another request is refused. */
  @Column('bytea') fingerprint!: Buffer;
  /** Null while the first request runs. */
  @Column('int', { nullable: true }) status!: number | null;
  @Column('text', { nullable: true }) body!: string | null;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
}
