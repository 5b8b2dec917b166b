import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, ValueTransformer } from 'typeorm';
import type { EntryState } from '../domain/entry';
import type { Mode } from '../domain/modes';

/** bigint columns come back from pg as strings; every number we keep in them fits a JS number. */
const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

@Entity('products')
export class Product {
  @PrimaryColumn('text') id!: string;
  @Column('text') name!: string;
  @Column('text', { name: 'invite_url', nullable: true }) inviteUrl!: string | null;
  @Column('text', { name: 'signup_url', nullable: true }) signupUrl!: string | null;
  @Column('int', { name: 'referral_places', default: 1 }) referralPlaces!: number;
  /** The name mails are sent under; the product's name when unset. */
  @Column('text', { name: 'sender_name', nullable: true }) senderName!: string | null;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
}

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
}

@Entity('invite_codes')
export class InviteCode {
  /** SHA-256 of the code; the code itself exists only in the mail. */
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
}

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

@Entity('events')
export class EventRecord {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'product_id' }) productId!: string;
  @Column('text') mode!: Mode;
  @Column('text') type!: string;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
  /** The envelope exactly as it is sent; deleted once every delivery succeeded or was given up. */
  @Column('text', { nullable: true }) body!: string | null;
}

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

@Entity('webhook_endpoints')
export class WebhookEndpoint {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'product_id' }) productId!: string;
  @Column('text') mode!: Mode;
  @Column('text') url!: string;
  @Column('text', { array: true }) events!: string[];
  /** The signing secret, sealed with SecretBox; shown once at creation. */
  @Column('bytea') secret!: Buffer;
  /** After a rotation the old secret signs too, until previous_secret_until. */
  @Column('bytea', { name: 'previous_secret', nullable: true }) previousSecret!: Buffer | null;
  @Column('timestamp with time zone', { name: 'previous_secret_until', precision: 3, nullable: true })
  previousSecretUntil!: Date | null;
  @Column('timestamp with time zone', { name: 'disabled_at', precision: 3, nullable: true }) disabledAt!: Date | null;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

@Entity('deliveries')
export class Delivery {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'endpoint_id' }) endpointId!: string;
  @Column('text', { name: 'event_id' }) eventId!: string;
  @Column('text', { name: 'event_type' }) eventType!: string;
  @Column('text') status!: DeliveryStatus;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
  @Column('timestamp with time zone', { name: 'next_attempt_at', precision: 3, nullable: true }) nextAttemptAt!: Date | null;
  @Column('timestamp with time zone', { name: 'finished_at', precision: 3, nullable: true }) finishedAt!: Date | null;
}

@Entity('delivery_attempts')
export class DeliveryAttempt {
  @PrimaryColumn('text', { name: 'delivery_id' }) deliveryId!: string;
  @PrimaryColumn('int') attempt!: number;
  @Column('timestamp with time zone', { name: 'attempted_at', precision: 3 }) attemptedAt!: Date;
  @Column('int', { name: 'status_code', nullable: true }) statusCode!: number | null;
  @Column('text', { nullable: true }) error!: string | null;
  @Column('int', { name: 'duration_ms' }) durationMs!: number;
}

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

export const ENTITIES = [
  Product,
  ApiKey,
  EntryRecord,
  EntryToken,
  LineCounter,
  ReferralCredit,
  EventRecord,
  OutboxMessage,
  InviteCode,
  IdempotencyRecord,
  WebhookEndpoint,
  Delivery,
  DeliveryAttempt,
  DashboardUser,
  TeamMember,
  DashboardSession,
];
