import { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1763805600000 implements MigrationInterface {
  name = 'Initial1763805600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE products (
        id text PRIMARY KEY,
        name text NOT NULL,
        invite_url text,
        signup_url text,
        referral_places int NOT NULL DEFAULT 1 CHECK (referral_places >= 0),
        created_at timestamptz(3) NOT NULL
      );

      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL CHECK (mode IN ('live', 'test')),
        kind text NOT NULL CHECK (kind IN ('secret', 'publishable')),
        hash bytea NOT NULL UNIQUE,
        hint text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        revoked_at timestamptz(3),
        last_used_at timestamptz(3)
      );
      CREATE INDEX api_keys_product ON api_keys (product_id, mode);

      CREATE TABLE entries (
        id text PRIMARY KEY,
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL CHECK (mode IN ('live', 'test')),
        email text NOT NULL,
        state text NOT NULL CHECK (state IN ('pending', 'confirmed', 'invited', 'redeemed')),
        created_at timestamptz(3) NOT NULL,
        confirmed_at timestamptz(3),
        invited_at timestamptz(3),
        redeemed_at timestamptz(3),
        referral_code text,
        referrals int NOT NULL DEFAULT 0,
        referred_by text REFERENCES entries (id) ON DELETE SET NULL,
        confirmation_seq bigint,
        moved_up bigint NOT NULL DEFAULT 0,
        line_key bigint,
        UNIQUE (product_id, mode, email),
        UNIQUE (product_id, mode, referral_code)
      );
      CREATE INDEX entries_newest ON entries (product_id, mode, created_at DESC, id DESC);
      CREATE INDEX entries_newest_by_state ON entries (product_id, mode, state, created_at DESC, id DESC);
      CREATE INDEX entries_line ON entries (product_id, mode, line_key, (moved_up = 0), confirmation_seq)
        WHERE state = 'confirmed';
      CREATE INDEX entries_pending_age ON entries (created_at) WHERE state = 'pending';
      CREATE INDEX entries_referred_by ON entries (referred_by) WHERE referred_by IS NOT NULL;

      CREATE TABLE entry_tokens (
        hash bytea PRIMARY KEY,
        entry_id text NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
        purpose text NOT NULL CHECK (purpose IN ('confirm', 'unsubscribe')),
        created_at timestamptz(3) NOT NULL
      );
      CREATE INDEX entry_tokens_entry ON entry_tokens (entry_id);

      CREATE TABLE line_counters (
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL,
        last_seq bigint NOT NULL,
        PRIMARY KEY (product_id, mode)
      );

      CREATE TABLE events (
        id text PRIMARY KEY,
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL,
        type text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        body text
      );
      CREATE INDEX events_product ON events (product_id, mode, created_at);

      CREATE TABLE outbox (
        id bigserial PRIMARY KEY,
        queue text NOT NULL,
        name text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz(3) NOT NULL
      );
      CREATE INDEX outbox_queue ON outbox (queue, id);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE outbox, events, line_counters, entry_tokens, entries, api_keys, products`);
  }
}
