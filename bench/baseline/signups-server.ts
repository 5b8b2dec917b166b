import Fastify from 'fastify';
import nodemailer from 'nodemailer';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { SMTP_POOL } from '../../apps/mailer/src/mail-transport';
import { translator } from '../../libs/shared/src/i18n/messages';
import { confirmationMail } from '../../apps/mailer/src/mails/confirmation';
import { bareLaunchRoutes } from './bare-launch';

/**
 * The bare work of a sign-up, as the signups benchmark's baseline: one Fastify route that inserts the
 * address with pg, answers 202, and hands the same confirmation mail to SMTP with a pooled nodemailer
 * transport. The same pool sizes as the service (pg 10, the mailer's SMTP_POOL); no key, limit, event,
 * outbox or queue. The launch-day benchmark's bare confirmations and invitations are routes of it too
 * (bare-launch.ts).
 * Run compiled (dist/bench/baseline), with PORT, DATABASE_URL, SMTP_URL and PUBLIC_BASE_URL.
 */
async function main(): Promise<void> {
  const env = (name: string) => process.env[name] ?? fail(`${name} is not set`);
  const base = env('PUBLIC_BASE_URL');
  // Connections kept while idle, so that the benchmark counts their backends' CPU throughout (mails trail the answers).
  const db = new Pool({ connectionString: env('DATABASE_URL'), max: 10, idleTimeoutMillis: 0 });
  await db.query(`CREATE TABLE IF NOT EXISTS baseline_signups (id bigserial PRIMARY KEY, email text NOT NULL UNIQUE, created_at timestamptz NOT NULL)`);
  const smtp = nodemailer.createTransport({ url: env('SMTP_URL'), ...SMTP_POOL });
  const token = () => randomBytes(32).toString('base64url');

  const app = Fastify();
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.post<{ Body: { email?: unknown } }>('/signups', async (request, reply) => {
    const email = String(request.body?.email ?? '');
    await db.query(`INSERT INTO baseline_signups (email, created_at) VALUES ($1, now()) ON CONFLICT (email) DO NOTHING`, [email]);
    const unsubscribeUrl = `${base}/unsubscribe/${token()}`;
    smtp
      .sendMail({
        from: { name: 'Bench', address: 'no-reply@localhost' },
        to: email,
        ...confirmationMail(translator('en'), 'Bench', `${base}/confirm/${token()}`, { unsubscribe: unsubscribeUrl, myData: `${base}/w/pk_test_bench/my-data` }, 14 * 86_400_000),
        headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      })
      .catch((error: Error) => console.error(`Mail to ${email} not handed over: ${error.message}`));
    return reply.status(202).send({ status: 'received' });
  });
  bareLaunchRoutes(app, db, smtp, base);
  await app.listen({ port: Number(env('PORT')), host: '127.0.0.1' });
  process.once('SIGTERM', () => {
    smtp.close();
    void app.close().then(() => db.end());
  });
}

function fail(message: string): never {
  throw new Error(message);
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
