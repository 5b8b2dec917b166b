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
  return (await (await clientOf(on)).query({ name, text, values })).rows as Row[];
}

/**
 * A statement on rows found by their keys (`id = ANY($1)`), straight on pg and planned at each call
 * for the keys it is given. A named statement's generic plan lasts until its table is next analysed:
 * made while the table was small, it reads the whole table at every call once a burst has grown it
 * faster than autovacuum analyses (invite codes in a release, the outbox in a backlog of mails), where
 * a plan for the given keys reads a few index pages whatever the table's statistics say.
 */
export async function keyedQuery<Row>(on: DataSource | QueryRunner, text: string, values: unknown[]): Promise<Row[]> {
  return (await (await clientOf(on)).query({ text, values })).rows as Row[];
}

async function clientOf(on: DataSource | QueryRunner): Promise<Pool | PoolClient> {
  return 'createQueryRunner' in on ? (on.driver as unknown as { master: Pool }).master : ((await on.connect()) as PoolClient);
}

/** Each statement of committedQuery: its name, and the connections it was prepared on (by SQL PREPARE). */
const committed = new Map<string, { name: string; on: WeakSet<PoolClient> }>();

/**
 * A statement and the COMMIT of the query runner's transaction, sent as one simple query: the commit
 * follows the statement inside PostgreSQL, without a round trip to this process between them, so
 * that the locks the statement takes are held only while it runs and commits. The statement is
 * prepared once per connection (SQL PREPARE; its plan kept as preparedQuery's), and its values are
 * written into the EXECUTE as literals: strings, booleans, dates, arrays of strings, or null. When
 * the statement fails, nothing after it runs and the transaction is left aborted, to be rolled back.
 */
export async function committedQuery<Row>(runner: QueryRunner, text: string, values: (string | boolean | Date | string[] | null)[]): Promise<Row[]> {
  const client = (await runner.connect()) as PoolClient;
  let statement = committed.get(text);
  if (!statement) committed.set(text, (statement = { name: `waitlist_committed_${committed.size}`, on: new WeakSet() }));
  const { name, on } = statement;
  if (!on.has(client)) {
    await client.query(`PREPARE ${name} AS ${text}`);
    on.add(client);
  }
  const literal = (value: string | boolean | Date | string[] | null): string => {
    if (value === null) return 'NULL';
    if (typeof value === 'boolean') return String(value);
    if (value instanceof Date) return client.escapeLiteral(value.toISOString());
    if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(', ')}]::text[]`;
    return client.escapeLiteral(value);
  };
  const results = (await client.query(`EXECUTE ${name}(${values.map(literal).join(', ')}); COMMIT`)) as unknown as { rows: Row[] }[];
  return results[0].rows;
}
