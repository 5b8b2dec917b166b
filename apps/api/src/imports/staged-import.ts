import { EntryRecord, newId, newReferralCode, QueueName, toEntry } from '@app/shared';
import type { QueryRunner } from 'typeorm';
import type { ProductScope } from '../common/scope';
import { suppressionHash } from '../entries/suppressions';
import type { ImportRow } from './import-row';

/** What becomes of a row that can be imported: a new entry, or skipped (already there, suppressed, or a repeat of an earlier line). */
export type StagedOutcome = 'create' | 'existing' | 'suppressed' | 'duplicate';

/** Rows per INSERT while a file is read. */
export const STAGE_BATCH = 2000;

/** What the writing did, counted. */
export interface Written {
  confirmed: number;
  pending: number;
  referralCodesKept: number;
  referralsLinked: number;
}

/**
 * One import inside one transaction on one connection: the file's rows go into a temporary table
 * (import_rows, dropped at the commit or rollback) in batches as they are read, then a few set-wise
 * statements decide each row's outcome and write the entries, so that 100,000 rows are a few dozen
 * statements and the process holds one batch at a time.
 */
export class StagedImport {
  private batch: ImportRow[] = [];

  constructor(
    private readonly runner: QueryRunner,
    private readonly scope: ProductScope,
  ) {}

  /** The transaction's manager, for what other modules write in it (events). */
  get manager() {
    return this.runner.manager;
  }

  async open(): Promise<void> {
    await this.runner.startTransaction();
    await this.runner.query(`
      CREATE TEMPORARY TABLE import_rows (
        line int PRIMARY KEY, id text NOT NULL, email text NOT NULL, email_hash bytea NOT NULL, created_at timestamptz(3),
        referral_code text, referred_by text, referral_count int, state text NOT NULL, ext_id text, new_code text NOT NULL,
        outcome text, entry_id text, kept_code text, referrer_id text, seq bigint
      ) ON COMMIT DROP`);
  }

  async add(row: ImportRow): Promise<void> {
    this.batch.push(row);
    if (this.batch.length >= STAGE_BATCH) await this.flush();
  }

  private async flush(): Promise<void> {
    const rows = this.batch;
    if (rows.length === 0) return;
    this.batch = [];
    await this.runner.query(
      `INSERT INTO import_rows (line, id, email, email_hash, created_at, referral_code, referred_by, referral_count, state, ext_id, new_code)
       SELECT line, id, email, decode(hash, 'hex'), created_at, code, referred_by, referral_count, state, ext_id, new_code
       FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[], $8::int[], $9::text[], $10::text[], $11::text[])
         AS r (line, id, email, hash, created_at, code, referred_by, referral_count, state, ext_id, new_code)`,
      [
        rows.map((row) => row.line),
        rows.map(() => newId('ent')),
        rows.map((row) => row.email),
        rows.map((row) => suppressionHash(row.email).toString('hex')),
        rows.map((row) => row.createdAt?.toISOString() ?? null),
        rows.map((row) => row.referralCode),
        rows.map((row) => row.referredBy),
        rows.map((row) => row.referralCount),
        rows.map((row) => row.state),
        rows.map((row) => row.id),
        rows.map(() => newReferralCode()),
      ],
    );
  }

  /**
   * Each row's outcome, in this order: a repeat of an earlier line's address is a duplicate; an address
   * the product and mode has is existing; a suppressed mailbox is suppressed; the rest are created.
   * Then what a created row brings along: its referral code kept (a valid code nobody has, first in the
   * file), its referrer (named by code, old id or address, in the file or in the product). A referrer
   * already in the product has confirmed (only those have codes): a pending one may be confirming right
   * now, holding its row while it waits for the line's counter, which write() holds before it credits.
   */
  async classify(): Promise<void> {
    await this.flush();
    const q = (sql: string) => this.runner.query(sql, [this.scope.productId, this.scope.mode]);
    await this.runner.query(`CREATE INDEX ON import_rows (email); CREATE INDEX ON import_rows (referral_code); CREATE INDEX ON import_rows (ext_id); ANALYZE import_rows`);
    await this.runner.query(`UPDATE import_rows r SET outcome = 'duplicate' WHERE EXISTS (SELECT FROM import_rows f WHERE f.email = r.email AND f.line < r.line)`);
    await q(`UPDATE import_rows r SET outcome = 'existing', entry_id = e.id FROM entries e
             WHERE r.outcome IS NULL AND e.product_id = $1 AND e.mode = $2 AND e.email = r.email`);
    await q(`UPDATE import_rows r SET outcome = 'suppressed' FROM suppressed_addresses s
             WHERE r.outcome IS NULL AND s.product_id = $1 AND s.mode = $2 AND s.email_hash = r.email_hash`);
    await this.runner.query(`UPDATE import_rows SET outcome = 'create', entry_id = id WHERE outcome IS NULL`);
    await q(`UPDATE import_rows r SET kept_code = r.referral_code
             WHERE r.outcome = 'create' AND r.state = 'confirmed' AND r.referral_code IS NOT NULL
               AND NOT EXISTS (SELECT FROM entries e WHERE e.product_id = $1 AND e.mode = $2 AND e.referral_code = r.referral_code)
               AND NOT EXISTS (SELECT FROM import_rows f WHERE f.referral_code = r.referral_code AND f.outcome = 'create' AND f.state = 'confirmed' AND f.line < r.line)`);
    await this.runner.query(`CREATE INDEX ON import_rows (kept_code)`);
    await q(`UPDATE import_rows r SET referrer_id = COALESCE(
               (SELECT f.entry_id FROM import_rows f WHERE f.kept_code = r.referred_by),
               (SELECT f.entry_id FROM import_rows f WHERE f.ext_id = r.referred_by AND f.entry_id IS NOT NULL ORDER BY f.line LIMIT 1),
               (SELECT f.entry_id FROM import_rows f WHERE f.email = lower(r.referred_by) AND f.entry_id IS NOT NULL),
               (SELECT e.id FROM entries e WHERE e.product_id = $1 AND e.mode = $2 AND e.referral_code = r.referred_by),
               (SELECT e.id FROM entries e WHERE e.product_id = $1 AND e.mode = $2 AND e.email = lower(r.referred_by) AND e.state <> 'pending'))
             WHERE r.outcome = 'create' AND r.referred_by IS NOT NULL`);
    await this.runner.query(`UPDATE import_rows SET referrer_id = NULL WHERE referrer_id = entry_id`);
    await this.runner.query(`CREATE INDEX ON import_rows (referrer_id); CREATE INDEX ON import_rows (id)`);
  }

  /** How many rows got each outcome, and how many created ones keep their code or name their referrer. */
  async counts(): Promise<Record<StagedOutcome, number> & Written> {
    const [row]: Record<string, number>[] = await this.runner.query(`
      SELECT count(*) FILTER (WHERE outcome = 'create')::int AS "create", count(*) FILTER (WHERE outcome = 'existing')::int AS existing,
             count(*) FILTER (WHERE outcome = 'suppressed')::int AS suppressed, count(*) FILTER (WHERE outcome = 'duplicate')::int AS duplicate,
             count(*) FILTER (WHERE outcome = 'create' AND state = 'confirmed')::int AS confirmed,
             count(*) FILTER (WHERE outcome = 'create' AND state = 'pending')::int AS pending,
             count(kept_code)::int AS "referralCodesKept", count(referrer_id)::int AS "referralsLinked"
      FROM import_rows`);
    return row as Record<StagedOutcome, number> & Written;
  }

  /** The first `limit` staged rows in file order, with their outcome. */
  async outcomes(limit: number): Promise<{ line: number; email: string; outcome: StagedOutcome }[]> {
    return this.runner.query(`SELECT line, email, outcome FROM import_rows ORDER BY line LIMIT $1`, [limit]);
  }

  /**
   * Writes the created rows: the confirmed ones join the line behind everyone waiting, in the order of
   * their original sign-up (then file order), each at the next confirmation number, with its line key
   * by the line's rule (libs/shared/src/domain/line.ts) and its credited referrals; pending ones are new
   * sign-ups that have not confirmed. The line's counter is held from here to the commit, as a
   * confirmation holds it, so that the numbers and the referral places cannot move meanwhile.
   */
  async write(now: Date, options: { useFileCounts: boolean; confirmationMails: boolean; requestId: string }): Promise<void> {
    const { productId, mode } = this.scope;
    const [{ confirmed }]: { confirmed: number }[] = await this.runner.query(
      `SELECT count(*)::int AS confirmed FROM import_rows WHERE outcome = 'create' AND state = 'confirmed'`,
    );
    const [{ last_seq: last }]: { last_seq: string }[] = await this.runner.query(
      `INSERT INTO line_counters (product_id, mode, last_seq) VALUES ($1, $2, $3)
       ON CONFLICT (product_id, mode) DO UPDATE SET last_seq = line_counters.last_seq + $3 RETURNING last_seq`,
      [productId, mode, confirmed],
    );
    const base = Number(last) - confirmed;
    const [{ places, waiting }]: { places: number; waiting: number }[] = await this.runner.query(
      `SELECT (SELECT referral_places FROM products WHERE id = $1) AS places,
              (SELECT COALESCE(sum(confirmed), 0)::int FROM entry_counts WHERE product_id = $1 AND mode = $2) AS waiting`,
      [productId, mode],
    );
    await this.runner.query(
      `UPDATE import_rows r SET seq = $2 + o.n
       FROM (SELECT line, row_number() OVER (ORDER BY COALESCE(created_at, $1), line) AS n FROM import_rows WHERE outcome = 'create' AND state = 'confirmed') o
       WHERE r.line = o.line`,
      [now, base],
    );
    // A file's referral count is the credit its tool gave; without one, the file's own confirmed referrals count.
    const credits = options.useFileCounts
      ? `CASE WHEN r.state = 'confirmed' THEN COALESCE(r.referral_count, 0) ELSE 0 END`
      : `CASE WHEN r.state = 'confirmed' THEN (SELECT count(*) FROM import_rows f WHERE f.referrer_id = r.id AND f.outcome = 'create' AND f.state = 'confirmed')::int ELSE 0 END`;
    await this.runner.query(
      `INSERT INTO entries (id, product_id, mode, email, state, created_at, confirmed_at, referral_code, referrals, confirmation_seq, moved_up, line_key)
       SELECT id, $1, $2, email, state,
              CASE WHEN state = 'confirmed' THEN COALESCE(created_at, $3) ELSE $3 END,
              CASE WHEN state = 'confirmed' THEN $3::timestamptz END,
              CASE WHEN state = 'confirmed' THEN COALESCE(kept_code, new_code) END,
              credits, seq, 0, seq - $4::int * credits
       FROM (SELECT r.*, ${credits} AS credits FROM import_rows r WHERE r.outcome = 'create') r
       ORDER BY line
       ON CONFLICT DO NOTHING`,
      [productId, mode, now, places],
    );
    // A row whose insert met a concurrent sign-up of its address (or code) was not created after all.
    await this.runner.query(`UPDATE import_rows r SET outcome = 'existing' WHERE r.outcome = 'create' AND NOT EXISTS (SELECT FROM entries e WHERE e.id = r.id)`);
    await this.runner.query(
      `INSERT INTO place_history (entry_id, at, cause, place)
       SELECT id, $1, 'joined', $2::int + (seq - $3)::int FROM import_rows WHERE outcome = 'create' AND state = 'confirmed'`,
      [now, waiting, base],
    );
    await this.link(now, places);
    if (options.confirmationMails) {
      await this.runner.query(
        `INSERT INTO outbox (queue, name, data, created_at)
         SELECT $1, 'confirmation', jsonb_build_object('entryId', id, 'httpRequestId', $2::text), $3
         FROM import_rows WHERE outcome = 'create' AND state = 'pending' ORDER BY line`,
        [QueueName.Mail, options.requestId, now],
      );
    }
  }

  /**
   * The referrals the file names: each created entry with a referrer gets referred_by and its referral
   * row, as a sign-up through a link would. A confirmed one's referral is credited (its mailbox counts
   * once, as for any referral) and, for a referrer already in the product, moves that referrer up by the
   * referral places, in its history; a pending one's waits for its confirmation like any other.
   */
  private async link(now: Date, places: number): Promise<void> {
    const { productId, mode } = this.scope;
    await this.runner.query(
      `UPDATE entries e SET referred_by = r.referrer_id FROM import_rows r
       WHERE e.id = r.id AND r.outcome = 'create' AND r.referrer_id IS NOT NULL AND EXISTS (SELECT FROM entries x WHERE x.id = r.referrer_id)`,
    );
    await this.runner.query(
      `INSERT INTO referrals (id, product_id, mode, referrer_id, referred_id, state, reasons, created_at, confirmed_at, decided_at)
       SELECT 'rfl_' || substr(md5(random()::text || e.id), 1, 24), $1, $2, e.referred_by, e.id,
              CASE WHEN e.state = 'confirmed' THEN 'credited' ELSE 'pending' END,
              CASE WHEN e.state = 'confirmed' THEN '{}'::text[] ELSE '{not_confirmed}'::text[] END,
              e.created_at, e.confirmed_at, e.confirmed_at
       FROM import_rows r JOIN entries e ON e.id = r.id WHERE r.outcome = 'create' AND e.referred_by IS NOT NULL`,
      [productId, mode],
    );
    await this.runner.query(
      `INSERT INTO referral_credits (product_id, mode, email_hash)
       SELECT $1, $2, email_hash FROM import_rows WHERE outcome = 'create' AND state = 'confirmed' AND referrer_id IS NOT NULL
       ON CONFLICT DO NOTHING`,
      [productId, mode],
    );
    // Referrers created by this import have their credit already (the file's count, or these links counted).
    await this.runner.query(
      `WITH credit AS (
         SELECT r.referrer_id AS id, count(*)::int AS n FROM import_rows r
         WHERE r.outcome = 'create' AND r.state = 'confirmed' AND r.referrer_id IS NOT NULL
           AND NOT EXISTS (SELECT FROM import_rows f WHERE f.id = r.referrer_id AND f.outcome = 'create')
         GROUP BY r.referrer_id
       ), moved AS (
         UPDATE entries e SET referrals = e.referrals + c.n, line_key = e.line_key - c.n * $1::int
         FROM credit c WHERE e.id = c.id RETURNING e.id, c.n
       )
       INSERT INTO place_history (entry_id, at, cause, places) SELECT id, $2, 'referral_credited', n * $1::int FROM moved`,
      [places, now],
    );
  }

  /** The created entries after `line`, `limit` of them in file order (for their events). */
  async createdAfter(line: number, limit: number): Promise<(EntryRecord & { line: number })[]> {
    const rows: (Parameters<typeof toEntry>[0] & { line: number })[] = await this.runner.query(
      `SELECT r.line, e.id, e.email, e.state, e.created_at AS "createdAt", e.confirmed_at AS "confirmedAt", e.invited_at AS "invitedAt",
              e.redeemed_at AS "redeemedAt", e.referral_code AS "referralCode", e.referrals
       FROM import_rows r JOIN entries e ON e.id = r.id WHERE r.outcome = 'create' AND r.line > $1 ORDER BY r.line LIMIT $2`,
      [line, limit],
    );
    return rows as (EntryRecord & { line: number })[];
  }

  async commit(): Promise<void> {
    await this.runner.commitTransaction();
  }

  async rollback(): Promise<void> {
    if (this.runner.isTransactionActive) await this.runner.rollbackTransaction();
  }
}

