import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../domain/modes';

export type KeyKind = 'secret' | 'publishable';

@Entity('api_keys')
export class ApiKey {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'product_id' }) productId!: string;
  @Column('text') mode!: Mode;
  @Column('text') kind!: KeyKind;
  /** SHA-256 of the whole key; the key itself is shown once and never stored. */
  @Column('bytea') hash!: Buffer;
  /** What the dashboard may show: the publishable key whole, a secret key's first and last characters. */
  @Column('text') hint!: string;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
  @Column('timestamp with time zone', { name: 'revoked_at', precision: 3, nullable: true }) revokedAt!: Date | null;
  @Column('timestamp with time zone', { name: 'last_used_at', precision: 3, nullable: true }) lastUsedAt!: Date | null;
}
