import type { Pool, PoolClient } from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';

const names = new Map<string, string>();

/**
 * A hot statement, straight on pg as a named prepared statement: no ORM layer in between, and
 * PostgreSQL parses and plans it once per connection rather than at every call (for a statement of
 * several joins and CTEs the plan costs more than the run). On the DataSource's pool, or on a query
 * runner's own connection. The name follows from the text, so each distinct statement is prepared once.
 */
export async function preparedQuery<Row>(on: DataSource | QueryRunner, text: string, values: unknown[]): Promise<Row[]> {
  let name = names.get(text);
  if (!name) names.set(text, (name = `waitlist_${names.size}`));
  const client: Pool | PoolClient = 'createQueryRunner' in on ? (on.driver as unknown as { master: Pool }).master : await on.connect();
  return (await client.query({ name, text, values })).rows as Row[];
}
