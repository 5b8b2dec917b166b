import type { AppConfig, FeedbackKind, MailFeedback } from '@app/shared';
import { createPublicKey, verify } from 'node:crypto';
import { z } from 'zod';
import { header, jsonBody, MailHook, readPayload, unauthorized } from './mail-hook';

const EVENT = z.object({
  sg_event_id: z.string().min(1),
  email: z.string(),
  timestamp: z.number().int().nonnegative(),
  type: z.string().optional(),
  reason: z.string().optional(),
});

const FEEDBACK_EVENTS = new Set(['bounce', 'dropped', 'spamreport']);

/** An event of the batch: the fields read of a bounce, drop or spam report, null for the others. */
const ITEM = z
  .object({ event: z.string() })
  .loose()
  .transform((item, ctx) => {
    if (!FEEDBACK_EVENTS.has(item.event)) return null;
    const parsed = EVENT.safeParse(item);
    if (parsed.success) return { event: item.event, ...parsed.data };
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  });

const BATCH = z.array(ITEM, { message: 'expected the Event Webhook’s array of events' });

/** The event's meaning for its address, or null for events that say nothing about it (delivered, open…). */
function kindOf({ event, type, reason }: { event: string; type?: string; reason?: string }): FeedbackKind | null {
  if (event === 'bounce') return type === 'blocked' ? 'soft_bounce' : 'hard_bounce';
  // SendGrid drops mail to an address on its bounce list without trying it: the address bounced before.
  if (event === 'dropped') return reason === 'Bounced Address' ? 'hard_bounce' : null;
  return event === 'spamreport' ? 'complaint' : null;
}

/**
 * SendGrid's Event Webhook with its signature on: ECDSA (P-256, SHA-256) over the timestamp header and
 * the body's bytes, DER in base64 in X-Twilio-Email-Event-Webhook-Signature, checked with the
 * verification key SendGrid shows (base64 DER). A call carries a batch of events of every kind.
 */
export function sendgridHook(config: AppConfig): MailHook | null {
  if (config.MAIL_HOOK_SENDGRID_PUBLIC_KEY === undefined) return null;
  const key = createPublicKey({ key: Buffer.from(config.MAIL_HOOK_SENDGRID_PUBLIC_KEY, 'base64'), format: 'der', type: 'spki' });
  return {
    provider: 'sendgrid',
    async receive(call) {
      const signature = header(call, 'x-twilio-email-event-webhook-signature');
      const timestamp = header(call, 'x-twilio-email-event-webhook-timestamp');
      if (!signature || !timestamp) {
        throw unauthorized('The call does not carry the X-Twilio-Email-Event-Webhook-Signature and -Timestamp headers.');
      }
      if (!verify('sha256', Buffer.concat([Buffer.from(timestamp, 'utf8'), call.rawBody ?? Buffer.alloc(0)]), key, Buffer.from(signature, 'base64'))) {
        throw unauthorized('The X-Twilio-Email-Event-Webhook-Signature does not match the hook’s verification key.');
      }
      const events = readPayload(BATCH, jsonBody(call));
      return {
        feedback: events.flatMap((event): MailFeedback[] => {
          const kind = event && kindOf(event);
          return event && kind ? [{ provider: 'sendgrid', eventId: event.sg_event_id, kind, address: event.email, at: new Date(event.timestamp * 1000) }] : [];
        }),
      };
    },
  };
}
