export { WaitlistClient } from './client.js';
export type { WaitlistClientOptions } from './client.js';
export type { IdempotentRequestOptions, RequestOptions } from './requests.js';
export { WaitlistApiError, WaitlistError, WaitlistNetworkError, WaitlistTimeoutError } from './errors.js';
export type { WaitlistErrorCode } from './errors.js';
export { MAX_RETRY_AFTER_SECONDS } from './retry.js';
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
export type { VerifyWebhookOptions, WebhookVerificationFailure } from './webhooks.js';
export type * from './types.js';
