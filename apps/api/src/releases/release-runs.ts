import type { DataSource } from 'typeorm';
import type { ReleaseRunView } from './releases.dto';
import { zonedTime } from './release-schedule';

/** A run's columns as the API shows them, with its release's zone (release_runs r JOIN releases rel). */
export const RUN_COLUMNS = `r.id, r.release_id, r.tick_at, r.started_at, r.finished_at, r.asked, r.invited, r.failed,
  r.skipped_for_capacity, r.skipped_for_quota, r.failed_entry_ids, r.error, rel.time_zone`;

export interface RunRow {
  id: string;
  release_id: string;
  tick_at: Date | null;
  started_at: Date;
  finished_at: Date | null;
  asked: number;
  invited: number;
  failed: number;
  skipped_for_capacity: number;
  skipped_for_quota: number;
  failed_entry_ids: string[];
  error: string | null;
  time_zone: string;
}

export function runView(row: RunRow): ReleaseRunView {
  return {
    id: row.id,
    releaseId: row.release_id,
    tickAt: row.tick_at?.toISOString() ?? null,
    tickLocal: row.tick_at ? zonedTime(row.tick_at, row.time_zone) : null,
    startedAt: row.started_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
    asked: row.asked,
    invited: row.invited,
    failed: row.failed,
    skippedForCapacity: row.skipped_for_capacity,
    // Only a run the product's mail quota cut short names it: without a quota the run reads as before.
    ...(row.skipped_for_quota > 0 && { skippedForQuota: row.skipped_for_quota }),
    failedEntryIds: row.failed_entry_ids,
    error: row.error,
  };
}

/** An entry of a run's list: its address, or null once the entry was deleted. */
export interface RunEntry {
  id: string;
  email: string | null;
}

/** A run with whom it invited and whose mail failed (still in line), in line order; for the dashboard, not the API. */
export interface RunEntries {
  run: ReleaseRunView;
  invited: RunEntry[];
  failed: RunEntry[];
}

/** A run of the release with its lists, or null when the release has no such run. */
export async function readRunEntries(db: DataSource, releaseId: string, runId: string): Promise<RunEntries | null> {
  const [row]: (RunRow & { invited_entry_ids: string[] })[] = await db.query(
    `SELECT ${RUN_COLUMNS}, r.invited_entry_ids FROM release_runs r JOIN releases rel ON rel.id = r.release_id WHERE r.id = $1 AND r.release_id = $2`,
    [runId, releaseId],
  );
  if (!row) return null;
  const ids = [...row.invited_entry_ids, ...row.failed_entry_ids];
  const found: { id: string; email: string }[] = ids.length ? await db.query('SELECT id, email FROM entries WHERE id = ANY($1)', [ids]) : [];
  const emails = new Map(found.map((entry) => [entry.id, entry.email]));
  const listed = (list: string[]) => list.map((id) => ({ id, email: emails.get(id) ?? null }));
  return { run: runView(row), invited: listed(row.invited_entry_ids), failed: listed(row.failed_entry_ids) };
}
