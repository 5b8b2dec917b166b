import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('dashboard_users')
export class DashboardUser {
  @PrimaryColumn('text') id!: string;
  @Column('text') email!: string;
  /** scrypt, in the form scrypt$N$r$p$salt$hash (base64). */
  @Column('text', { name: 'password_hash' }) passwordHash!: string;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
  /** Sees Bull Board (every product's jobs) and may retry and clean jobs there. */
  @Column('boolean') operator!: boolean;
}

@Entity('team_members')
export class TeamMember {
  @PrimaryColumn('text', { name: 'user_id' }) userId!: string;
  @PrimaryColumn('text', { name: 'product_id' }) productId!: string;
}

@Entity('dashboard_sessions')
export class DashboardSession {
  /** SHA-256 of the session cookie's value. */
  @PrimaryColumn('bytea') hash!: Buffer;
  @Column('text', { name: 'user_id' }) userId!: string;
  /** Every form of the session carries it; a POST without it is refused. */
  @Column('text', { name: 'csrf_token' }) csrfToken!: string;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
  @Column('timestamp with time zone', { name: 'expires_at', precision: 3 }) expiresAt!: Date;
  /** What the next page shows once after an action (post/redirect/get), sealed: it may hold a new secret. */
  @Column('bytea', { nullable: true }) flash!: Buffer | null;
}
