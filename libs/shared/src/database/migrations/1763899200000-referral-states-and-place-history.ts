import { MigrationInterface, QueryRunner } from 'typeorm';

export class ReferralStatesAndPlaceHistory1763899200000 implements MigrationInterface {
  name = 'ReferralStatesAndPlaceHistory1763899200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- How hard a product checks referrals before they move anyone (off keeps every rule of SPEC.md),
      -- and the team's own thresholds over the level's defaults (ReferralRules, only those set).
      ALTER TABLE products
        ADD COLUMN referral_protection text NOT NULL DEFAULT 'off' CHECK (referral_protection IN ('off', 'standard', 'strict')),
        ADD COLUMN referral_rules jsonb NOT NULL DEFAULT '{}';

      -- Every sign-up through a referral link, from the sign-up on, and its credit: only credited ones
      -- count in the referrer's referrals and line key. A referral goes with either of its entries.
      CREATE TABLE referrals (
        id text PRIMARY KEY,
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL,
        referrer_id text NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
        referred_id text NOT NULL UNIQUE REFERENCES entries (id) ON DELETE CASCADE,
        state text NOT NULL CHECK (state IN ('credited', 'pending', 'withheld')),
        reasons text[] NOT NULL DEFAULT '{}',
        created_at timestamptz(3) NOT NULL,
        confirmed_at timestamptz(3),
        -- The confirming client's IPv4 /24 or IPv6 /64, never the address itself.
        network text,
        -- A pending referral's waiting period: credited from credit_at on, once its entry is credit_after (or further).
        credit_at timestamptz(3),
        credit_after text CHECK (credit_after IN ('invited', 'redeemed')),
        decided_at timestamptz(3)
      );
      CREATE INDEX referrals_of_referrer ON referrals (referrer_id, created_at DESC, id DESC);
      CREATE INDEX referrals_by_network ON referrals (referrer_id, network, confirmed_at) WHERE network IS NOT NULL;
      CREATE INDEX referrals_to_review ON referrals (product_id, mode, confirmed_at DESC, id DESC)
        WHERE state = 'withheld' AND NOT ('revoked_by_team' = ANY (reasons));
      CREATE INDEX referrals_waiting ON referrals (credit_at) WHERE state = 'pending' AND confirmed_at IS NOT NULL;

      -- Referrals so far: those whose entry confirmed counted (an uncounted one had its referred_by cleared).
      INSERT INTO referrals (id, product_id, mode, referrer_id, referred_id, state, reasons, created_at, confirmed_at, decided_at)
        SELECT 'rfl_' || substr(md5(random()::text || e.id), 1, 24), e.product_id, e.mode, e.referred_by, e.id,
               CASE WHEN e.confirmation_seq IS NULL THEN 'pending' ELSE 'credited' END,
               CASE WHEN e.confirmation_seq IS NULL THEN '{not_confirmed}'::text[] ELSE '{}' END,
               e.created_at, e.confirmed_at, e.confirmed_at
        FROM entries e JOIN entries referrer ON referrer.id = e.referred_by;

      -- Every change of an entry's place or credit, with its cause: the timeline of the entry page.
      CREATE TABLE place_history (
        id bigserial PRIMARY KEY,
        entry_id text NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
        at timestamptz(3) NOT NULL,
        cause text NOT NULL,
        -- Places gained (less lost): line keys moved, as referral places and move-ups count them.
        places integer NOT NULL DEFAULT 0,
        -- joined: the place it joined the line at.
        place integer,
        referral_id text,
        reasons text[] NOT NULL DEFAULT '{}'
      );
      CREATE INDEX place_history_of_entry ON place_history (entry_id, id DESC);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TABLE place_history;
      DROP TABLE referrals;
      ALTER TABLE products DROP COLUMN referral_rules, DROP COLUMN referral_protection;
    `);
  }
}
