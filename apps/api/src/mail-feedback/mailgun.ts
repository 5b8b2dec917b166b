import type { AppConfig, Clock, FeedbackKind } from '@app/shared';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { jsonBody, MailHook, readPayload, unauthorized } from './mail-hook';

/** How far a call's signed timestamp may be from now; the tokens seen are kept longer (MailHooksService). */
const MAILGUN_TOLERANCE_MS = 15 * 60_000;

const SIGNED = z.object({
  signature: z.object({
    timestamp: z.string().regex(/^\d{1,12}$/, 'expected Unix seconds'),
    token: z.string().min(1).max(256),
    signature: z.string().regex(/^[0-9a-f]{64}$/i, 'expected a hex HMAC-SHA256'),
  }),
});

const EVENT = z.object({
  'event-data': z.object({ event: z.string() }),
});

const FEEDBACK = z.object({
  'event-data': z.object({
    id: z.string().min(1),
    event: z.string(),
    severity: z.string().optional(),
    recipient: z.string(),
    timestamp: z.number().nonnegative(),
  }),
});

function kindOf(event: string, severity: string | undefined): FeedbackKind | null {
  if (event === 'complained') return 'complaint';
  if (event !== 'failed') return null;
  if (severity === 'permanent') return 'hard_bounce';
  return severity === 'temporary' ? 'soft_bounce' : null;
}

/**
 * Mailgun's webhooks (JSON): the signature is in the body, HMAC-SHA256 of timestamp and token under the
 * account's HTTP webhook signing key. As Mailgun advises, a timestamp far from now is refused, and so is a
 * token seen before (its once key).
 */
export function mailgunHook(config: AppConfig, clock: Clock): MailHook | null {
  const key = config.MAIL_HOOK_MAILGUN_SIGNING_KEY;
  if (key === undefined) return null;
  return {
    provider: 'mailgun',
    async receive(call) {
      const body = jsonBody(call);
      const signed = SIGNED.safeParse(body);
      if (!signed.success) throw unauthorized('The body does not carry Mailgun’s signature object (timestamp, token and signature).');
      const { signature } = signed.data;
      const expected = createHmac('sha256', key).update(signature.timestamp + signature.token).digest();
      if (!timingSafeEqual(expected, Buffer.from(signature.signature, 'hex'))) {
        throw unauthorized('The signature does not match the hook’s signing key.');
      }
      if (Math.abs(clock.now().getTime() - Number(signature.timestamp) * 1000) > MAILGUN_TOLERANCE_MS) {
        throw unauthorized('The signature’s timestamp is more than fifteen minutes from now.');
      }
      const onceKey = signature.token;
      const { event } = readPayload(EVENT, body)['event-data'];
      if (event !== 'failed' && event !== 'complained') return { feedback: [], onceKey };
      const data = readPayload(FEEDBACK, body)['event-data'];
      const kind = kindOf(data.event, data.severity);
      return {
        feedback: kind ? [{ provider: 'mailgun', eventId: data.id, kind, address: data.recipient, at: new Date(Math.round(data.timestamp * 1000)) }] : [],
        onceKey,
      };
    },
  };
}
