import { ImportUploads1795811935261 } from '../libs/shared/src/database/migrations/1795811935261-import-uploads';
import { Stack } from './support/stack';

describe(ImportUploads1795811935261.name, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: [] });
  });
  afterAll(() => stack.stop());

  const exists = async () => (await stack.db.query(`SELECT 1 FROM pg_tables WHERE tablename = 'import_uploads'`)).length === 1;

  it('down drops the held uploads, up makes them again; a held upload goes with its product and with its person', async () => {
    const migration = new ImportUploads1795811935261();
    const runner = stack.db.createQueryRunner();
    try {
      await migration.down(runner);
      expect(await exists()).toBe(false);
      await migration.up(runner);
      expect(await exists()).toBe(true);
      await stack.db.query(`INSERT INTO products (id, name, created_at) VALUES ('prod_u1', 'U1', now()), ('prod_u2', 'U2', now())`);
      await stack.db.query(`INSERT INTO dashboard_users (id, email, password_hash, created_at) VALUES ('usr_u1', 'u1@example.com', 'x', now()), ('usr_u2', 'u2@example.com', 'x', now())`);
      const hold = (id: string, product: string, user: string) =>
        stack.db.query(
          `INSERT INTO import_uploads (id, product_id, mode, user_id, file_name, bytes, sha256, created_at, expires_at)
           VALUES ($1, $2, 'live', $3, 'a.csv', '\\x656d61696c'::bytea, 'x', now(), now() + interval '1 hour')`,
          [id, product, user],
        );
      await hold('00000000-0000-4000-8000-000000000001', 'prod_u1', 'usr_u1');
      await hold('00000000-0000-4000-8000-000000000002', 'prod_u2', 'usr_u2');
      await stack.db.query(`DELETE FROM products WHERE id = 'prod_u1'`);
      await stack.db.query(`DELETE FROM dashboard_users WHERE id = 'usr_u2'`);
      expect(await stack.db.query(`SELECT id FROM import_uploads`)).toEqual([]);
    } finally {
      await runner.release();
    }
  });
});
