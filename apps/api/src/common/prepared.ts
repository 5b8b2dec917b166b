import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

const names = new Map<string, string>();

/**
 * One statement of a hot read, straight on the DataSource's pg pool as a named prepared statement:
 * no ORM layer in between, and PostgreSQL parses and plans it once per connection. The name follows
 * from the text, so each distinct statement is prepared once.
 */
export async function preparedQuery<Row>(db: DataSource, text: string, values: unknown[]): Promise<Row[]> {
  let name = names.get(text);
  if (!name) names.set(text, (name = `waitlist_${names.size}`));
  const pool = (db.driver as unknown as { master: Pool }).master;
  return (await pool.query({ name, text, values })).rows as Row[];
}
