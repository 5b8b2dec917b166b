import { AppConfig, FeedbackKind, sameSecret } from '@app/shared';
import { z } from 'zod';
import { header, ISO_TIME, jsonBody, MailHook, readPayload, unauthorized } from './mail-hook';

const RECORD = z.object({ RecordType: z.string() });

const BOUNCE = z.object({
  // Postmark's ids can pass 2^53 (its own example does): read as a number they stay the same for every repeat of a call.
  ID: z.number().or(z.string().min(1)),
  Type: z.string(),
  Email: z.string(),
  BouncedAt: ISO_TIME,
});

/**
 * Bounce types by what they say of the address. Postmark deactivates an address on a hard bounce, and
 * its other types (auto-responders, subscription requests, challenge mails…) say nothing about it.
 */
const KINDS: Record<string, FeedbackKind> = {
  HardBounce: 'hard_bounce',
  BadEmailAddress: 'hard_bounce',
  SoftBounce: 'soft_bounce',
  Transient: 'soft_bounce',
  DnsError: 'soft_bounce',
  Blocked: 'soft_bounce',
  SpamComplaint: 'complaint',
};

/**
 * Postmark's bounce and spam complaint webhooks. Postmark signs nothing: it documents HTTP basic auth
 * credentials in the webhook's URL (and its senders' addresses, for a firewall), so the hook takes only
 * calls with the configured user name and password.
 */
export function postmarkHook(config: AppConfig): MailHook | null {
  const { MAIL_HOOK_POSTMARK_USERNAME: username, MAIL_HOOK_POSTMARK_PASSWORD: password } = config;
  if (username === undefined || password === undefined) return null;
  const expected = `${username}:${password}`;
  return {
    provider: 'postmark',
    async receive(call) {
      const credentials = /^basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header(call, 'authorization') ?? '');
      if (!credentials || !sameSecret(Buffer.from(credentials[1], 'base64').toString('utf8'), expected)) {
        throw unauthorized('The call does not carry the user name and password of the hook’s URL (HTTP basic auth).');
      }
      const body = jsonBody(call);
      const { RecordType } = readPayload(RECORD, body);
      if (RecordType !== 'Bounce' && RecordType !== 'SpamComplaint') return { feedback: [] };
      const bounce = readPayload(BOUNCE, body);
      const kind = RecordType === 'SpamComplaint' ? 'complaint' : KINDS[bounce.Type];
      if (!kind) return { feedback: [] };
      return { feedback: [{ provider: 'postmark', eventId: String(bounce.ID), kind, address: bounce.Email, at: bounce.BouncedAt }] };
    },
  };
}
