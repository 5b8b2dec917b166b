import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The reasons a rule withholds a referral for, as they were when this migration was written (a later
 * reason needs its own index, in its own migration).
 */
const REASONS = ['own_address', 'already_credited', 'disposable_domain', 'network_velocity', 'too_fast', 'referral_burst'];

/**
 * One partial index per reason of the referrals waiting for the team's review (those of
 * referrals_to_review that carry the reason), so that the overview counts each reason's first 1,000
 * and no more, however many wait (OverviewService, docs/decisions/bot-defence.md). A referral counts
 * under each of its reasons, which no single btree can key by; each index holds only the withheld
 * referrals of its reason, and a referral is written to it only when the rules withhold it.
 */
export class HeldByReason1795910800000 implements MigrationInterface {
  name = 'HeldByReason1795910800000';

  async up(db: QueryRunner): Promise<void> {
    for (const reason of REASONS) {
      await db.query(
        `CREATE INDEX referrals_held_${reason} ON referrals (product_id, mode)
         WHERE state = 'withheld' AND NOT ('revoked_by_team' = ANY (reasons)) AND '${reason}' = ANY (reasons)`,
      );
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const reason of REASONS) await db.query(`DROP INDEX referrals_held_${reason}`);
  }
}
