import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { codeIn } from '../../test/support/invitations';
import { linkIn, SinkMail, SmtpSink } from '../../test/support/smtp-sink';
import { heapBoundsOf } from './harness';

/** What a mail carried: a confirmation link's path, an invitation's code, or nothing the bench reads (a baseline's mail). */
export interface Carried {
  kind: 'confirmation' | 'invitation' | 'other';
  value: string;
}

/**
 * Every mail the SMTP sink accepts, kept small: by recipient, what each carried; and a count by the
 * recipient's prefix (the part before the first '-') and kind. The sink's own list is emptied as each
 * mail arrives: tens of thousands of parsed mails would fill the jest process's heap.
 */
export class MailLog {
  readonly byAddress = new Map<string, Carried[]>();
  private readonly counts = new Map<string, number>();

  constructor(sink: SmtpSink, confirmPrefix: string) {
    sink.afterAccept = (mail: SinkMail) => {
      const carried = carriedBy(mail, confirmPrefix);
      const list = this.byAddress.get(mail.to) ?? [];
      list.push(carried);
      this.byAddress.set(mail.to, list);
      const key = `${mail.to.split('-')[0]}:${carried.kind}`;
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
      sink.mails.length = 0;
    };
  }

  count(prefix: string, kind: Carried['kind']): number {
    return this.counts.get(`${prefix}:${kind}`) ?? 0;
  }

  /** The values of the mails of `kind` to `address`. */
  of(address: string, kind: Carried['kind']): string[] {
    return (this.byAddress.get(address) ?? []).filter((carried) => carried.kind === kind).map((carried) => carried.value);
  }
}

function carriedBy(mail: SinkMail, confirmPrefix: string): Carried {
  if (mail.text.includes(confirmPrefix)) return { kind: 'confirmation', value: new URL(linkIn(mail, confirmPrefix)).pathname };
  if (mail.text.includes('invite=')) return { kind: 'invitation', value: codeIn(mail) };
  return { kind: 'other', value: '' };
}

/**
 * `count` pending entries of a product written with SQL, as confirmations' input: each with a
 * confirmation token `<prefix>-token-<i>` (its hash stored, as the service stores it, made an hour ago
 * so that no confirmation is too fast), every fifth through a referrer's link (the referrers' ids
 * given, in turn) with its pending referral.
 */
export async function seedPendingBare(db: DataSource, productId: string, count: number, referrerIds: string[], prefix = 'bare'): Promise<void> {
  await db.transaction(async (manager) => {
    await manager.query(
      `WITH made AS (
         SELECT i, 'ent_' || $4 || '_' || i AS id, CASE WHEN i % 5 = 0 THEN ($3::text[])[1 + (i / 5) % cardinality($3::text[])] END AS referrer
         FROM generate_series(0, $2::int - 1) AS i
       ), entry AS (
         INSERT INTO entries (id, product_id, mode, email, state, created_at, referred_by)
         SELECT id, $1, 'test', $4 || 'c-' || i || '@example.com', 'pending', now() - interval '1 hour', referrer FROM made
       ), referral AS (
         INSERT INTO referrals (id, product_id, mode, referrer_id, referred_id, state, reasons, created_at)
         SELECT 'rfl_' || $4 || '_' || i, $1, 'test', referrer, id, 'pending', '{not_confirmed}', now() - interval '1 hour' FROM made WHERE referrer IS NOT NULL
       )
       INSERT INTO entry_tokens (hash, entry_id, purpose, created_at)
       SELECT sha256(convert_to($4 || '-token-' || i, 'UTF8')), id, 'confirm', now() - interval '1 hour' FROM made`,
      [productId, count, referrerIds, prefix],
    );
  });
  await db.query('ANALYZE entries, entry_tokens, referrals');
}

interface Endpoint {
  id: string;
  url: string;
  secret: string;
}

/**
 * The bare logged deliveries (bench/baseline/bare-deliveries.ts, compiled) of the same events the
 * service delivers: each endpoint gets a copy of every event's fan-out row (the same body) on an outbox
 * queue of its own, and one drain per endpoint runs in the baseline's process, the service's
 * concurrency shared between them. `start` resolves once both drains have logged every delivery.
 */
export class BareDeliveries {
  readonly child: ChildProcess;

  constructor(databaseUrl: string) {
    this.child = fork(join(__dirname, '..', '..', 'dist', 'bench', 'baseline', 'bare-deliveries.js'), {
      stdio: 'inherit',
      env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl },
      execArgv: heapBoundsOf('webhooks'),
    });
  }

  /** Copies the product's events' fan-out rows to one queue per endpoint (outside the clock); their number. */
  async load(db: DataSource, productId: string, endpoints: Endpoint[]): Promise<number> {
    let events = 0;
    for (const endpoint of endpoints) {
      const [{ count }] = await db.query(
        `WITH copied AS (
           INSERT INTO outbox (queue, name, data, created_at, body)
           SELECT $2, 'fan-out', jsonb_build_object('eventId', o.data->>'eventId'), now(), o.body FROM outbox o JOIN events e ON e.id = o.data->>'eventId'
           WHERE o.queue = 'webhooks' AND o.name = 'fan-out' AND e.product_id = $1 ORDER BY o.id RETURNING 1
         ) SELECT count(*)::int AS count FROM copied`,
        [productId, `bare-${endpoint.id}`],
      );
      events = count;
    }
    return events;
  }

  async run(endpoints: Endpoint[], concurrency: number): Promise<number> {
    const answers: { type: string; logged?: number; message?: string }[] = [];
    const done = new Promise<void>((resolve) => {
      const listen = (answer: { type: string; logged?: number; message?: string }) => {
        answers.push(answer);
        if (answers.length < endpoints.length) return;
        this.child.off('message', listen);
        resolve();
      };
      this.child.on('message', listen);
    });
    for (const endpoint of endpoints) {
      this.child.send({ type: 'go', queue: `bare-${endpoint.id}`, endpoint, concurrency: Math.floor(concurrency / endpoints.length) });
    }
    await done;
    const failed = answers.find((answer) => answer.type !== 'done');
    if (failed) throw new Error(`A bare drain failed: ${failed.message}`);
    return answers.reduce((sum, answer) => sum + (answer.logged ?? 0), 0);
  }
}

/** The outbox queue the service's webhook rows wait on while the webhooks app starts. */
const PARKED = 'parked-webhooks';

/**
 * Moves the webhooks queue's outbox rows aside, so that a webhooks app can start (outside the clock)
 * without seeing them; VACUUM then takes the moved rows' dead entries out of the queue's index, which
 * the app's claims would otherwise step over.
 */
export async function parkWebhooks(db: DataSource): Promise<void> {
  await db.query(`UPDATE outbox SET queue = $1 WHERE queue = 'webhooks'`, [PARKED]);
  await db.query('VACUUM outbox');
}

/** Hands the parked rows back to the webhooks queue in one statement, as one commit of every event would. */
export async function unparkWebhooks(db: DataSource): Promise<void> {
  await db.query(`UPDATE outbox SET queue = 'webhooks' WHERE queue = $1`, [PARKED]);
}
