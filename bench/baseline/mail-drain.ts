import { confirmationLink, hashToken, mailLinks, newToken, translator } from '@app/shared';
import nodemailer, { Transporter } from 'nodemailer';
import { Pool } from 'pg';
import { SMTP_POOL } from '../../apps/mailer/src/mail-transport';
import { confirmationMail } from '../../apps/mailer/src/mails/confirmation';
import { pagedWorkers } from './paged-workers';

/**
 * The bare work of a durable confirmation mail, the second baseline of the confirmation-drain benchmark
 * (bare-mail-drain.ts) and the mail half of the durable sign-ups baseline (durable-signups-server.ts):
 * what any implementation of "a sign-up's confirmation mail is sent, with working links, and its outbox
 * row leaves once it was handed over" must do, with nothing of the service around it. The outbox rows
 * are read in pages, and in the same statement each row's pending entry (address, product name,
 * publishable key) and the hashes of the mail's two tokens (confirm, unsubscribe) stored for it; the
 * mailer's own confirmationMail is rendered in English and handed to nodemailer with the mailer's pool
 * (SMTP_POOL) at most SLOTS at a time; the handed-over rows are deleted in one statement per batch (a
 * group commit). No claims or leases (it is the only reader), no retries, bounds, pace, templates,
 * languages, counts, metrics or logs.
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
const t = translator('en');

type Mail = Row & { confirm: string; unsubscribe: string };

/** The pool and transport a drain uses (the caller ends them), and the drain of one queue. */
export function mailDrain(env: { DATABASE_URL: string; SMTP_URL: string; PUBLIC_BASE_URL: string }) {
  const db = new Pool({ connectionString: env.DATABASE_URL, max: 4, idleTimeoutMillis: 0 });
  const transport = nodemailer.createTransport({ url: env.SMTP_URL, ...SMTP_POOL });
  return { db, transport, drain: (queue: string) => drain(db, transport, env.PUBLIC_BASE_URL, queue) };
}

/**
 * Sends the mails of the queue's rows until a page comes short and those under way are handed over; how
 * many it sent. Rows may commit out of id order (sign-ups under way): a page is the lowest rows not read yet.
 */
async function drain(db: Pool, transport: Transporter, publicBaseUrl: string, queue: string): Promise<number> {
  let failed: Error | undefined;
  const waiting: Mail[] = [];
  /** The rows read and not yet deleted. */
  const held = new Set<string>();
  let exhausted = false;
  let reading: Promise<void> | undefined;
  const read = () =>
    (reading ??= (async () => {
      // The tokens are made before the read, matched to the page's rows by their place in it.
      const tokens = Array.from({ length: PAGE }, () => ({ confirm: newToken(), unsubscribe: newToken() }));
      const { rows } = await db.query<Row>({
        text: `WITH page AS (
                 SELECT id, data->>'entryId' AS entry_id, row_number() OVER (ORDER BY id) AS n FROM outbox
                 WHERE queue = $1 AND id <> ALL ($2::bigint[]) ORDER BY id LIMIT $3
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
          [...held],
          PAGE,
          tokens.flatMap((_, i) => [i + 1, i + 1]),
          tokens.flatMap(({ confirm, unsubscribe }) => [hashToken(confirm), hashToken(unsubscribe)]),
          tokens.flatMap(() => ['confirm', 'unsubscribe']),
        ],
      });
      for (const row of rows) held.add(row.id);
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
      while (done.length) {
        const ids = done.splice(0);
        // Planned for its ids, as the mailer's (a plan kept from a small outbox would read all of a backlog).
        await db.query({ text: `DELETE FROM outbox WHERE id = ANY ($1::bigint[])`, values: [ids] });
        for (const id of ids) held.delete(id);
      }
    })().finally(() => (writing = undefined)));

  let sent = 0;
  const send = async (mail: Mail) => {
    if (mail.email) {
      const links = mailLinks(publicBaseUrl, mail.unsubscribe, mail.key);
      await transport.sendMail({
        from: { name: mail.name, address: 'no-reply@localhost' },
        to: mail.email,
        ...confirmationMail(t, mail.name, confirmationLink(publicBaseUrl, mail.confirm), links, KEPT_FOR_MS),
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
