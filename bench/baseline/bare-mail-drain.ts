import { confirmationLink, hashToken, mailLinks, newToken, translator } from '@app/shared';
import nodemailer from 'nodemailer';
import { Pool } from 'pg';
import { SMTP_POOL } from '../../apps/mailer/src/mail-transport';
import { confirmationMail } from '../../apps/mailer/src/mails/confirmation';
import { pagedWorkers } from './paged-workers';

/**
 * The bare work of a durable confirmation mail, as the confirmation-drain benchmark's second baseline:
 * what any implementation of "a sign-up's confirmation mail is sent, with working links, and its outbox
 * row leaves once it was handed over" must do, with nothing of the service around it. One process reads
 * the committed outbox rows in pages, and in the same statement reads each row's pending entry (address,
 * product name, publishable key) and stores the hashes of the mail's two tokens (confirm, unsubscribe)
 * for it; renders the mailer's own confirmationMail in English; hands it to nodemailer with the
 * mailer's pool (SMTP_POOL) at most SLOTS at a time; and deletes the handed-over rows in one statement
 * per batch (a group commit). No claims or leases (it is the only reader), no retries, bounds, pace,
 * templates, languages, counts, metrics or logs.
 * Run forked (dist/bench/baseline) with DATABASE_URL, SMTP_URL, PUBLIC_BASE_URL, a process per backlog
 * as the mailer starts for its own; it answers { type: 'ready' } and, on { type: 'go', queue }, drains that
 * outbox queue and answers { type: 'done', sent } (or { type: 'failed' }); on { type: 'end' } it exits.
 */
interface Row {
  id: string;
  n: string;
  email: string | null;
  name: string;
  key: string | null;
}

/** Mails in flight, as the mailer's confirmation slots. */
const SLOTS = 50;
/** Outbox rows read at a time: as many as the mailer claims at most. */
const PAGE = SLOTS;
/** The mailer's default PENDING_ENTRY_TTL, which the mail names. */
const KEPT_FOR_MS = 14 * 86_400_000;
const { SMTP_URL, PUBLIC_BASE_URL } = process.env as Record<string, string>;

const db = new Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
const transport = nodemailer.createTransport({ url: SMTP_URL, ...SMTP_POOL });
const t = translator('en');

type Mail = Row & { confirm: string; unsubscribe: string };

async function drain(queue: string): Promise<number> {
  let failed: Error | undefined;
  const waiting: Mail[] = [];
  let after = '0';
  let exhausted = false;
  let reading: Promise<void> | undefined;
  const read = () =>
    (reading ??= (async () => {
      // The tokens are made before the read, matched to the page's rows by their place in it.
      const tokens = Array.from({ length: PAGE }, () => ({ confirm: newToken(), unsubscribe: newToken() }));
      const { rows } = await db.query<Row>({
        text: `WITH page AS (
                 SELECT id, data->>'entryId' AS entry_id, row_number() OVER (ORDER BY id) AS n FROM outbox
                 WHERE queue = $1 AND id > $2 ORDER BY id LIMIT $3
               ), entry AS (
                 SELECT page.n, e.id, e.email, p.name, (SELECT k.hint FROM api_keys k WHERE k.product_id = e.product_id AND k.mode = e.mode
                   AND k.kind = 'publishable' AND k.revoked_at IS NULL ORDER BY k.created_at DESC LIMIT 1) AS key
                 FROM page JOIN entries e ON e.id = page.entry_id AND e.state = 'pending' JOIN products p ON p.id = e.product_id
               ), stored AS (
                 INSERT INTO entry_tokens (hash, entry_id, purpose, created_at)
                 SELECT token.hash, entry.id, token.purpose, now() FROM entry JOIN unnest($4::bigint[], $5::bytea[], $6::text[]) AS token (n, hash, purpose) ON token.n = entry.n
               )
               SELECT page.id, page.n, entry.email, entry.name, entry.key FROM page LEFT JOIN entry ON entry.n = page.n ORDER BY page.n`,
        values: [
          queue,
          after,
          PAGE,
          tokens.flatMap((_, i) => [i + 1, i + 1]),
          tokens.flatMap(({ confirm, unsubscribe }) => [hashToken(confirm), hashToken(unsubscribe)]),
          tokens.flatMap(() => ['confirm', 'unsubscribe']),
        ],
      });
      if (rows.length) after = rows[rows.length - 1].id;
      exhausted = rows.length < PAGE;
      waiting.push(...rows.map((row) => ({ ...row, ...tokens[Number(row.n) - 1] })));
    })()
      .catch((error: Error) => void (failed ??= error))
      .finally(() => (reading = undefined)));

  // The rows done with: their mail handed over, or their entry gone or no longer pending.
  const done: string[] = [];
  let writing: Promise<void> | undefined;
  const flush = () =>
    (writing ??= (async () => {
      while (done.length) await db.query({ name: 'done', text: `DELETE FROM outbox WHERE id = ANY ($1::bigint[])`, values: [done.splice(0)] });
    })().finally(() => (writing = undefined)));

  let sent = 0;
  const send = async (mail: Mail) => {
    if (mail.email) {
      const links = mailLinks(PUBLIC_BASE_URL, mail.unsubscribe, mail.key);
      await transport.sendMail({
        from: { name: mail.name, address: 'no-reply@localhost' },
        to: mail.email,
        ...confirmationMail(t, mail.name, confirmationLink(PUBLIC_BASE_URL, mail.confirm), links, KEPT_FOR_MS),
        headers: { 'List-Unsubscribe': `<${links.unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      });
      sent++;
    }
    done.push(mail.id);
    flush().catch((error: Error) => (failed ??= error));
  };

  await pagedWorkers(SLOTS, { waiting, exhausted: () => exhausted, failed: () => failed !== undefined, read }, send);
  while (writing || done.length) await flush();
  if (failed) throw failed;
  return sent;
}

process.on('message', (message: { type: string; queue: string }) => {
  if (message.type === 'go') {
    drain(message.queue).then(
      (sent) => process.send!({ type: 'done', sent }),
      (error: Error) => process.send!({ type: 'failed', message: error.message }),
    );
  } else if (message.type === 'end') {
    // Told once its CPU was read, so that its PostgreSQL backends are still there to be counted; then it
    // exits of itself (a --cpu-prof profile is written at exit).
    transport.close();
    void db.end().then(() => process.disconnect());
  }
});
process.send!({ type: 'ready' });
