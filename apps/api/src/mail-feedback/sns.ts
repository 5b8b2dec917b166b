import { KeyObject, verify, X509Certificate } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { request } from 'undici';
import { z } from 'zod';
import { ApiError } from '../common/api-error';
import { unauthorized } from './mail-hook';

export const SNS_MESSAGE = z.object({
  Type: z.enum(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'], { message: 'expected an Amazon SNS message' }),
  MessageId: z.string().min(1),
  TopicArn: z.string(),
  Message: z.string(),
  Timestamp: z.string(),
  Subject: z.string().optional(),
  SubscribeURL: z.string().optional(),
  Token: z.string().optional(),
  SignatureVersion: z.string().optional(),
  Signature: z.string().optional(),
  SigningCertURL: z.string().optional(),
});
export type SnsMessage = z.output<typeof SNS_MESSAGE>;

type Field = keyof SnsMessage;

/** The fields each type of message signs, in the order of the string signed (Amazon SNS's documentation). */
const SIGNED_FIELDS: Record<SnsMessage['Type'], Field[]> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

/** SignatureVersion 1 is SHA1withRSA, 2 SHA256withRSA. */
const DIGESTS: Record<string, string> = { '1': 'sha1', '2': 'sha256' };

/** Each field name and value on a line of its own; Subject only when the notification has one. */
export function stringToSign(message: SnsMessage): string {
  return SIGNED_FIELDS[message.Type]
    .filter((field) => message[field] !== undefined)
    .map((field) => `${field}\n${message[field]}\n`)
    .join('');
}

/** Where SNS keeps its certificates; nothing else on its hosts is fetched for a message. */
const CERTIFICATE_PATH = /^\/SimpleNotificationService-[A-Za-z0-9_-]+\.pem$/;

/** A certificate is a few KiB; anything much larger is not one. */
const MAX_FETCHED_BYTES = 64 * 1024;
const FETCH_TIMEOUT_MS = 5000;

/**
 * Amazon SNS messages checked as AWS documents: the signature over the message's own fields, with the
 * public key of the certificate at SigningCertURL, fetched over https only from SNS's own hosts (the
 * host rule, MAIL_HOOK_SES_CERT_HOST) and kept in memory (SNS signs every message with one certificate
 * for months). A subscription is confirmed by getting its SubscribeURL, under the same rule.
 */
export class SnsMessages {
  private readonly certificates = new LRUCache<string, Promise<KeyObject>>({ max: 32 });

  constructor(private readonly hostRule: RegExp) {}

  /** Resolves when the message is signed by Amazon SNS; 401 when it is not, 503 when the certificate cannot be had. */
  async verify(message: SnsMessage): Promise<void> {
    const digest = DIGESTS[message.SignatureVersion ?? ''];
    if (!digest || !message.Signature || !message.SigningCertURL) {
      throw unauthorized('The message does not carry an Amazon SNS signature (SignatureVersion 1 or 2, Signature, SigningCertURL).');
    }
    if (message.Type !== 'Notification' && (message.SubscribeURL === undefined || message.Token === undefined)) {
      throw new ApiError('invalid_request', `A ${message.Type} carries a SubscribeURL and a Token.`);
    }
    const url = this.snsUrl(message.SigningCertURL);
    if (!url || !CERTIFICATE_PATH.test(url.pathname)) throw unauthorized('SigningCertURL is not the https address of an Amazon SNS certificate.');
    const key = await this.keyAt(url);
    if (!verify(digest, Buffer.from(stringToSign(message), 'utf8'), key, Buffer.from(message.Signature, 'base64'))) {
      throw unauthorized('The message’s signature does not match its Amazon SNS certificate.');
    }
  }

  /** Confirms a verified SubscriptionConfirmation, as SNS asks: a GET of its SubscribeURL. */
  async confirm(message: SnsMessage): Promise<void> {
    const url = this.snsUrl(message.SubscribeURL ?? '');
    if (!url) throw unauthorized('SubscribeURL is not an https address of Amazon SNS.');
    try {
      await fetchText(url);
    } catch {
      throw new ApiError('provider_unavailable', 'Amazon SNS did not confirm the subscription; nothing was changed, and SNS sends the confirmation again.');
    }
  }

  private snsUrl(text: string): URL | null {
    if (!URL.canParse(text)) return null;
    const url = new URL(text);
    return url.protocol === 'https:' && !url.username && !url.password && this.hostRule.test(url.host) ? url : null;
  }

  private keyAt(url: URL): Promise<KeyObject> {
    const known = this.certificates.get(url.href);
    if (known) return known;
    const key = fetchText(url)
      .then((pem) => new X509Certificate(pem).publicKey)
      .catch(() => {
        throw new ApiError('provider_unavailable', 'Amazon SNS’s signing certificate could not be fetched; nothing was changed, and SNS sends the message again.');
      });
    // Concurrent messages share one fetch; a failed one is tried again by the next message.
    this.certificates.set(url.href, key);
    key.catch(() => this.certificates.delete(url.href));
    return key;
  }
}

/** A GET that must answer 200 with a small body; redirects are not followed (undici's request does not). */
async function fetchText(url: URL): Promise<string> {
  const { statusCode, body } = await request(url, { method: 'GET', headersTimeout: FETCH_TIMEOUT_MS, bodyTimeout: FETCH_TIMEOUT_MS });
  if (statusCode !== 200) {
    await body.dump();
    throw new Error(`answered ${statusCode}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_FETCHED_BYTES) {
      body.destroy();
      throw new Error('answered too much');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
