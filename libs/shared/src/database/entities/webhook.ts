import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../domain/modes';
import type { SignatureFormat } from '../../domain/webhooks';

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
  /** Fixed for the endpoint's lifetime: its secrets are made for it. */
  @Column('text', { name: 'signature_format' }) signatureFormat!: SignatureFormat;
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
  /** The first attempt, inline (null only on a delivery an older version made before attempting it). */
  @Column('timestamp with time zone', { name: 'attempted_at', precision: 3, nullable: true }) attemptedAt!: Date | null;
  @Column('int', { name: 'status_code', nullable: true }) statusCode!: number | null;
  @Column('text', { nullable: true }) error!: string | null;
  @Column('int', { name: 'duration_ms', nullable: true }) durationMs!: number | null;
}

/**
 * The attempt log: a view of the deliveries' inline first attempts and the table attempt_log of the
 * others (DeliveriesWrittenOnce1764108000000). A row inserted here goes to attempt_log.
 */
@Entity('delivery_attempts')
export class DeliveryAttempt {
  @PrimaryColumn('text', { name: 'delivery_id' }) deliveryId!: string;
  @PrimaryColumn('int') attempt!: number;
  @Column('timestamp with time zone', { name: 'attempted_at', precision: 3 }) attemptedAt!: Date;
  @Column('int', { name: 'status_code', nullable: true }) statusCode!: number | null;
  @Column('text', { nullable: true }) error!: string | null;
  @Column('int', { name: 'duration_ms' }) durationMs!: number;
}
