import { MailFeedback, RedisClient } from '@app/shared';
import { execFileSync } from 'node:child_process';
import { createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MailFeedbackService } from '../../apps/api/src/mail-feedback/mail-feedback.service';
import type { Stack } from './stack';
import { waitFor } from './wait';

/**
 * What the hooks hand to MailFeedbackService.apply, watched (the service still runs): each call's
 * feedback, so that a test sees what was applied, and how often. Once the api's Redis connection is up,
 * where the hooks note which events they applied (before that only apply()'s own rule holds).
 */
export async function watchApplied(stack: Stack): Promise<{ all(): MailFeedback[]; clear(): void }> {
  const redis = stack.api.get<RedisClient>(RedisClient);
  await waitFor(() => redis.status === 'ready', 'the api’s Redis connection');
  const spy = jest.spyOn(stack.api.get(MailFeedbackService), 'apply');
  return { all: () => spy.mock.calls.flatMap(([feedback]) => feedback), clear: () => spy.mockClear() };
}

/** Postmark: HTTP basic auth, as the credentials in the webhook's URL are sent. */
export function basicAuth(username: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
}

/** A Svix signing secret as Resend shows it. */
export function svixSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** Svix's headers, signed by hand as Svix documents it: base64 HMAC-SHA256 of id.timestamp.body under the secret's base64 bytes. */
export function svixSigned(secret: string, id: string, body: string, at = new Date()): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'content-type': 'application/json', 'svix-id': id, 'svix-timestamp': String(timestamp), 'svix-signature': `v1,${signature}` };
}

/** An ECDSA P-256 key pair as SendGrid's Event Webhook uses: the public half as SendGrid shows it (base64 DER). */
export function sendgridKeys() {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), privateKey };
}

/** SendGrid's headers: the DER ECDSA signature of timestamp + body, base64. */
export function sendgridSigned(privateKey: ReturnType<typeof sendgridKeys>['privateKey'], body: string, at = new Date()): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  return {
    'content-type': 'application/json',
    'x-twilio-email-event-webhook-timestamp': timestamp,
    'x-twilio-email-event-webhook-signature': sign('sha256', Buffer.from(timestamp + body), privateKey).toString('base64'),
  };
}

/** Mailgun's signature object: hex HMAC-SHA256 of timestamp + token under the signing key. */
export function mailgunSignature(key: string, at = new Date(), token = randomBytes(25).toString('hex')) {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  return { timestamp, token, signature: createHmac('sha256', key).update(timestamp + token).digest('hex') };
}

/** A self-signed certificate and its RSA key, made by openssl (Node makes keys, not certificates). */
export function selfSigned(subject: string, altNames?: string): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mail-hooks-'));
  try {
    const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', subject];
    execFileSync('openssl', altNames ? [...args, '-addext', `subjectAltName=${altNames}`] : args, { stdio: 'ignore' });
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
