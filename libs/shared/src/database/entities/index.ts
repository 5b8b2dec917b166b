import { ApiKey } from './api-key';
import { DashboardSession, DashboardUser, TeamMember } from './dashboard';
import { EntryRecord, EntryToken, InviteCode } from './entry';
import { EventRecord } from './event';
import { IdempotencyRecord } from './idempotency';
import { LineCounter, PlaceChange, Referral, ReferralCredit, SuppressedAddress } from './line';
import { LoginHook } from './login-hook';
import { MailTemplate } from './mail-template';
import { OutboxMessage } from './outbox';
import { Product } from './product';
import { Release, ReleaseRun } from './release';
import { Delivery, DeliveryAttempt, WebhookEndpoint } from './webhook';

export * from './api-key';
export * from './dashboard';
export * from './entry';
export * from './event';
export * from './idempotency';
export * from './line';
export * from './login-hook';
export * from './mail-template';
export * from './outbox';
export * from './product';
export * from './release';
export * from './webhook';

/** Every entity, registered by class (not by file glob, which breaks in bundled builds). */
export const ENTITIES = [
  Product,
  ApiKey,
  EntryRecord,
  EntryToken,
  LineCounter,
  ReferralCredit,
  SuppressedAddress,
  Referral,
  PlaceChange,
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
  LoginHook,
  Release,
  ReleaseRun,
  MailTemplate,
];
