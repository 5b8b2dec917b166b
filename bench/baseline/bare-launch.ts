import type { FastifyInstance } from 'fastify';
import type { Transporter } from 'nodemailer';
import { hash, randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { translator } from '../../libs/shared/src/i18n/messages';
import { invitationLink } from '../../libs/shared/src/domain/invitations';
import { invitationMail } from '../../apps/mailer/src/mails/invitation';

/** The outbox queue of the bare rows, which the webhooks app does not read. */
const BARE_QUEUE = 'bare-launch';
const CODE_TTL_MS = 60 * 86_400_000;

/** An event row and its outbox row with the body, as SQL of a CTE named `name` over `source` (id, product_id, mode, entry). */
const eventRows = (name: string, type: string, source: string) => `
  ${name}_event AS (
    INSERT INTO events (id, product_id, mode, type, created_at)
    SELECT event_id, product_id, mode, '${type}', now() FROM ${source}
  ), ${name}_outbox AS (
    INSERT INTO outbox (queue, name, data, created_at, body)
    SELECT '${BARE_QUEUE}', 'fan-out', jsonb_build_object('eventId', event_id), now(),
           jsonb_build_object('id', event_id, 'type', '${type}', 'createdAt', now(), 'mode', mode, 'productId', product_id, 'data', jsonb_build_object('entry', entry))::text
    FROM ${source}
  )`;
const eventId = `'evt_' || substr(md5(random()::text), 1, 24)`;

/**
 * The bare work of the launch-day benchmark's confirmations and invitations (bench/launch-day.bench.ts),
 * on the service's own tables, beside the bare sign-up of signups-server.ts:
 * - POST /confirm/:token: the token's lookup, the entry locked, the state change with its number from
 *   the line's counter, its referral credited to its referrer (credit and line key) when it came through
 *   a link, the entry.confirmed event and its outbox row: one statement, answered 303.
 * - POST /invite { productId, mode, count }: the front `count` of the line invited, each with a code
 *   (hash stored), the entry.invited event and its outbox row, in one statement; then each invitation
 *   mail handed to nodemailer; answered once every mail is handed over.
 * No keys, limits, protection rules, history, metrics or logs.
 */
export function bareLaunchRoutes(app: FastifyInstance, db: Pool, smtp: Transporter, base: string): void {
  app.post<{ Params: { token: string } }>('/confirm/:token', async (request, reply) => {
    await db.query({
      name: 'confirm',
      text: `WITH entry AS (
               SELECT e.id, e.product_id, e.mode, e.email, e.referred_by, e.referrals, e.created_at, p.referral_places AS places, ${eventId} AS event_id
               FROM entry_tokens t JOIN entries e ON e.id = t.entry_id JOIN products p ON p.id = e.product_id
               WHERE t.hash = $1 AND t.purpose = 'confirm' AND e.state = 'pending' FOR UPDATE OF e
             ), number AS (
               UPDATE line_counters c SET last_seq = c.last_seq + 1 FROM entry WHERE c.product_id = entry.product_id AND c.mode = entry.mode RETURNING c.last_seq
             ), confirmed AS (
               UPDATE entries e SET state = 'confirmed', confirmed_at = now(), confirmation_seq = number.last_seq,
                                    line_key = number.last_seq - entry.referrals * entry.places, referral_code = $2
               FROM entry, number WHERE e.id = entry.id
               RETURNING e.id, e.product_id, e.mode, entry.event_id,
                         jsonb_build_object('id', e.id, 'email', e.email, 'state', e.state, 'createdAt', e.created_at, 'confirmedAt', e.confirmed_at, 'referralCode', e.referral_code) AS entry
             ), credit AS (
               UPDATE referrals r SET state = 'credited', reasons = '{}', confirmed_at = now(), decided_at = now()
               FROM entry WHERE r.referred_id = entry.id
             ), referrer AS (
               UPDATE entries e SET referrals = e.referrals + 1, line_key = e.line_key - entry.places FROM entry WHERE e.id = entry.referred_by
             ), ${eventRows('confirmed', 'entry.confirmed', 'confirmed')}
             SELECT 1`,
      values: [hash('sha256', request.params.token, 'buffer'), randomBytes(6).toString('base64url')],
    });
    return reply.status(303).header('location', `${base}/confirmed`).send();
  });

  app.post<{ Body: { productId: string; mode: string; count: number } }>('/invite', async (request) => {
    const { productId, mode, count } = request.body;
    const codes = Array.from({ length: count }, () => randomBytes(32).toString('base64url'));
    const { rows } = await db.query<{ email: string; n: string }>({
      name: 'invite',
      text: `WITH front AS (
               SELECT id FROM entries WHERE product_id = $1 AND mode = $2 AND state = 'confirmed'
               ORDER BY line_key, (line_key = confirmation_seq), confirmation_seq LIMIT $3 FOR UPDATE
             ), picked AS (
               SELECT id, row_number() OVER () AS n FROM front
             ), invited AS (
               UPDATE entries e SET state = 'invited', invited_at = now() FROM picked WHERE e.id = picked.id
               RETURNING e.id, e.product_id, e.mode, e.email, picked.n, ${eventId} AS event_id,
                         jsonb_build_object('id', e.id, 'email', e.email, 'state', e.state, 'invitedAt', e.invited_at) AS entry
             ), code AS (
               INSERT INTO invite_codes (hash, entry_id, expires_at, created_at, recorded)
               SELECT c.hash, invited.id, now() + $5 * interval '1 millisecond', now(), true
               FROM invited JOIN unnest($4::bytea[]) WITH ORDINALITY AS c (hash, n) ON c.n = invited.n
             ), ${eventRows('invited', 'entry.invited', 'invited')}
             SELECT email, n FROM invited`,
      values: [productId, mode, count, codes.map((code) => hash('sha256', code, 'buffer')), CODE_TTL_MS],
    });
    await Promise.all(
      rows.map(({ email, n }) => {
        const unsubscribe = `${base}/unsubscribe/${randomBytes(32).toString('base64url')}`;
        const link = invitationLink(null, base, codes[Number(n) - 1]);
        return smtp.sendMail({
          from: { name: 'Bench', address: 'no-reply@localhost' },
          to: email,
          ...invitationMail(translator('en'), 'Bench', link, { unsubscribe, myData: `${base}/w/pk_test_bench/my-data` }, CODE_TTL_MS),
          headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        });
      }),
    );
    return { invited: rows.length };
  });
}
