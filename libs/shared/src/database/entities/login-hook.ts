import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../domain/modes';

export type LoginHookProvider = 'supabase' | 'kratos';

/** A login system's sign-up hook that asks the service whether an address may sign up. */
@Entity('login_hooks')
export class LoginHook {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'product_id' }) productId!: string;
  @Column('text') mode!: Mode;
  @Column('text') provider!: LoginHookProvider;
  /** The hook's secret, sealed with SecretBox; shown once at creation. */
  @Column('bytea') secret!: Buffer;
  /** Whether a sign-up is let through when the service cannot answer in time (default: refused). */
  @Column('boolean', { name: 'fail_open' }) failOpen!: boolean;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
  @Column('timestamp with time zone', { name: 'revoked_at', precision: 3, nullable: true }) revokedAt!: Date | null;
}
