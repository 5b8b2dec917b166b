import { eventEnvelope, hashTokenHex, Mode, newId, toEntry } from '@app/shared';
import Fastify from 'fastify';
import Redis from 'ioredis';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseRateLimit } from '../../libs/shared/src/config/durations';
import { mailDrain } from './mail-drain';

/**
 * The durable sign-up's bare work, as the signups benchmark's second baseline: per sign-up what the
 * contract asks, in plain code, and in the same process the bare durable drain (mail-drain.ts) sending
 * the confirmation mails from the outbox. A sign-up: its publishable key checked from memory (the
 * keys read at start), the sign-up limits counted in Redis (per IP in leases of a tenth of the limit,
 * per address one count a sign-up, as the api's limiter takes them), one statement inserting the
 * entry, its entry.created event, the mail's and the webhooks' fan-out outbox rows, and 202. No
 * validation beyond the address's presence, no counts, referrals, details, metrics or logs.
 * The mail rows wait on a queue of its own (MAIL_QUEUE), the fan-out rows on another, so that neither
 * the mailer nor a webhooks app takes them. Run compiled (dist/bench/baseline), with PORT, DATABASE_URL,
 * REDIS_URL, SMTP_URL, PUBLIC_BASE_URL and the api's RATE_LIMIT_SIGNUP and RATE_LIMIT_SIGNUP_ADDRESS.
 */
const MAIL_QUEUE = 'bare-signup-mail';
const FAN_OUT_QUEUE = 'bare-fan-out';
/** The mailer's wait before it asks for due mails again when none was due. */
const IDLE_MS = 100;

/** Takes `size` points of a fixed window in one round trip: the window's count after it. */
async function take(redis: Redis, key: string, size: number, windowMs: number): Promise<number> {
  const [, [, count]] = (await redis.multi().set(key, 0, 'PX', windowMs, 'NX').incrby(key, size).exec()) as [unknown, [unknown, number]];
  return count;
}

async function main(): Promise<void> {
  const env = process.env as Record<string, string>;
  const mails = mailDrain(env as { DATABASE_URL: string; SMTP_URL: string; PUBLIC_BASE_URL: string });
  const { db } = mails;
  const redis = new Redis(env.REDIS_URL);
  const keys = new Map(
    (await db.query<{ hash: Buffer; product_id: string; mode: Mode }>(`SELECT hash, product_id, mode FROM api_keys WHERE kind = 'publishable' AND revoked_at IS NULL`)).rows.map(
      (row) => [row.hash.toString('hex'), { productId: row.product_id, mode: row.mode }],
    ),
  );
  const [ipLimit, addressLimit] = [env.RATE_LIMIT_SIGNUP, env.RATE_LIMIT_SIGNUP_ADDRESS].map((text) => parseRateLimit(text)!);
  /** This process's lease of each IP's points, and the lease being taken (the IP's other sign-ups wait for it). */
  const leases = new Map<string, { left: number; until: number }>();
  const leasing = new Map<string, Promise<unknown>>();
  const fromIp = async (ip: string): Promise<boolean> => {
    for (let waiting = leasing.get(ip); waiting; waiting = leasing.get(ip)) await waiting;
    const lease = leases.get(ip);
    if (lease && lease.left > 0 && lease.until > Date.now()) {
      lease.left--;
      return true;
    }
    const size = Math.max(1, Math.floor(ipLimit.points / 10));
    const taken = take(redis, `bare:rl:signup-ip:${ip}`, size, ipLimit.durationMs).finally(() => leasing.delete(ip));
    leasing.set(ip, taken);
    const left = Math.min(size, ipLimit.points - ((await taken) - size));
    // The window ends within its length from now: the lease lasts no longer.
    leases.set(ip, { left: left - 1, until: Date.now() + ipLimit.durationMs });
    return left > 0;
  };

  const app = Fastify();
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.post<{ Body: { key?: unknown; email?: unknown } }>('/signups', async (request, reply) => {
    const scope = keys.get(hashTokenHex(String(request.body?.key ?? '')));
    if (!scope) return reply.status(401).send({ error: 'invalid_key' });
    const email = String(request.body?.email ?? '').trim().toLowerCase();
    if (!email.includes('@')) return reply.status(400).send({ error: 'invalid_email' });
    if (!(await fromIp(request.ip))) return reply.status(429).send({ error: 'rate_limited' });
    const mailbox = createHash('sha256').update(`${scope.productId}:${scope.mode}:${email}`).digest('base64url');
    const mailDue = (await take(redis, `bare:rl:signup-address:${mailbox}`, 1, addressLimit.durationMs)) <= addressLimit.points;
    const now = new Date();
    const id = newId('ent');
    const entry = { id, email, state: 'pending' as const, createdAt: now, confirmedAt: null, invitedAt: null, redeemedAt: null, referralCode: null, referrals: 0 };
    const event = eventEnvelope('entry.created', scope, toEntry(entry), now);
    // The schema's count of pending entries is the service's own (its statement counts its entry): left out, the entry named as counted.
    await db.query({
      name: 'signup',
      text: `WITH entry AS (
               INSERT INTO entries (id, product_id, mode, email, state, created_at) VALUES ($1, $2, $3, $4, 'pending', $5)
               ON CONFLICT (product_id, mode, email) DO NOTHING RETURNING id
             ), mail AS (
               INSERT INTO outbox (queue, name, data, created_at) SELECT $6, 'confirmation', jsonb_build_object('entryId', id), $5 FROM entry WHERE $7::boolean
             ), event AS (
               INSERT INTO events (id, product_id, mode, type, created_at) SELECT $8, $2, $3, 'entry.created', $5 FROM entry
             ), fan_out AS (
               INSERT INTO outbox (queue, name, data, created_at, body) SELECT $9, 'fan-out', jsonb_build_object('eventId', $8::text), $5, $10 FROM entry
             )
             SELECT set_config('waitlist.counted_entry', $1, true)`,
      values: [id, scope.productId, scope.mode, email, now, MAIL_QUEUE, mailDue, event.id, FAN_OUT_QUEUE, JSON.stringify(event)],
    });
    return reply.status(202).send({ status: 'received' });
  });
  await app.listen({ port: Number(env.PORT), host: '127.0.0.1' });

  let closing = false;
  const following = (async () => {
    while (!closing) {
      const sent = await mails.drain(MAIL_QUEUE).catch((error: Error) => (console.error(`The bare drain failed: ${error.message}`), 0));
      if (sent === 0) await sleep(IDLE_MS);
    }
  })();
  process.once('SIGTERM', () => {
    closing = true;
    void app
      .close()
      .then(() => following)
      .then(() => Promise.all([mails.db.end(), redis.quit()]))
      .then(() => mails.transport.close());
  });
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
