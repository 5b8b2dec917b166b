import { MigrationInterface, QueryRunner } from 'typeorm';

/** A product's sign-up challenge: off by default, so that every sign-up is taken as before. */
export class SignupChallenge1764460800000 implements MigrationInterface {
  name = 'SignupChallenge1764460800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE products
        ADD COLUMN challenge_mode text NOT NULL DEFAULT 'off' CHECK (challenge_mode IN ('off', 'invisible', 'required')),
        ADD COLUMN challenge_difficulty int NOT NULL DEFAULT 50000 CHECK (challenge_difficulty BETWEEN 1000 AND 5000000);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE products DROP COLUMN challenge_mode, DROP COLUMN challenge_difficulty;`);
  }
}
