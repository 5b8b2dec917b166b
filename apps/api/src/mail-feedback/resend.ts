import type { AppConfig } from '@app/shared';
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';
import { header, ISO_TIME, jsonBody, MailHook, perRecipient, readPayload, unauthorized } from './mail-hook';

const EVENT = z.object({ type: z.string() });

const RECIPIENTS = z.array(z.string()).or(z.string().transform((address) => [address]));

const BOUNCED = z.object({
  created_at: ISO_TIME,
  data: z.object({ to: RECIPIENTS, bounce: z.object({ type: z.string() }) }),
});

const COMPLAINED = z.object({ created_at: ISO_TIME, data: z.object({ to: RECIPIENTS }) });

/**
 * Resend's webhooks, signed by Svix: HMAC-SHA256 of `svix-id.svix-timestamp.body` under the endpoint's
 * whsec_ secret, in svix-signature. Svix's scheme is Standard Webhooks under other header names, so the
 * standardwebhooks package checks it, the five minutes' tolerance of the timestamp included.
 */
export function resendHook(config: AppConfig): MailHook | null {
  const secret = config.MAIL_HOOK_RESEND_SECRET;
  if (secret === undefined) return null;
  const webhook = new Webhook(secret);
  return {
    provider: 'resend',
    async receive(call) {
      const signed = { 'webhook-id': header(call, 'svix-id'), 'webhook-timestamp': header(call, 'svix-timestamp'), 'webhook-signature': header(call, 'svix-signature') };
      const id = signed['webhook-id'];
      if (id === undefined || !signed['webhook-timestamp'] || !signed['webhook-signature']) {
        throw unauthorized('The call does not carry the svix-id, svix-timestamp and svix-signature headers.');
      }
      try {
        webhook.verify(call.rawBody ?? '', signed as Record<string, string>, { jsonParse: false });
      } catch {
        throw unauthorized('The svix-signature does not match the hook’s signing secret, or svix-timestamp is more than five minutes from now.');
      }
      const body = jsonBody(call);
      const { type } = readPayload(EVENT, body);
      if (type === 'email.bounced') {
        const { created_at, data } = readPayload(BOUNCED, body);
        return { feedback: perRecipient('resend', id, data.bounce.type === 'Permanent' ? 'hard_bounce' : 'soft_bounce', data.to, created_at) };
      }
      if (type === 'email.complained') {
        const { created_at, data } = readPayload(COMPLAINED, body);
        return { feedback: perRecipient('resend', id, 'complaint', data.to, created_at) };
      }
      return { feedback: [] };
    },
  };
}
