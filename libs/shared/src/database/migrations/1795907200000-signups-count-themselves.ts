import { MigrationInterface, QueryRunner } from 'typeorm';
import { noteEntryCountChanges } from './1763870400000-entry-counts';

/**
 * A sign-up's note and the commit-time work it set off were a third of its statement's PostgreSQL
 * time (docs/decisions/signups.md, "Speed: a sign-up's statements"). The sign-up's statement
 * (SignupsService.write) now adds its pending entry to its stripe's entry_counts row itself, after the
 * day's count of the same stripe, as a commit would, and names the entry in the transaction's setting
 * waitlist.counted_entry; the note of that statement's insert leaves that one entry out and clears the
 * setting, so that a later statement of the transaction is noted in full. Every other writer of
 * entries is noted and counted at its commit as before. The code that names its entry needs this
 * migration first: without it, its entry would be counted twice.
 */
export class SignupsCountThemselves1795907200000 implements MigrationInterface {
  name = 'SignupsCountThemselves1795907200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      noteEntryCountChanges(
        'DECLARE counted text;',
        `counted := NULLIF(current_setting('waitlist.counted_entry', true), '');
      IF counted IS NOT NULL THEN
        PERFORM set_config('waitlist.counted_entry', '', true);
      END IF;`,
      ),
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(noteEntryCountChanges('', ''));
  }
}
