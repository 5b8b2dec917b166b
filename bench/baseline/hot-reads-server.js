// The hot-read benchmark's baselines (bench/hot-reads.bench.ts): the bare work of each hot read, with
// nothing of the service around it. Fastify and pg, the secret keys loaded into memory at start and
// checked by their SHA-256 hash, and for each route an indexed query prepared as the service prepares
// it (named statements), and an answer of the same shape. By default the query is the one the service
// runs; with BASELINE_SQL=simplest it is the least SQL that gives the same answer (nothing read that the
// answer does not need, the database's own clock), so that the service's SQL shows its own cost. With
// BASELINE_CONTRACT=1 it also does the work the API's contract asks of every request (contract-work.js).
// Plain JavaScript, so that it runs as a child process without a build.
const { createHash, createHmac } = require('node:crypto');
const fastify = require('fastify');
const { Pool } = require('pg');
const { addContractWork, contractOptions } = require('./contract-work');

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ISO = (date) => (date ? date.toISOString() : null);
const SIMPLEST = process.env.BASELINE_SQL === 'simplest';
/** The contract's per-request work too (contract-work.js), around the service's own SQL. */
const CONTRACT = process.env.BASELINE_CONTRACT === '1';

async function main() {
  // TypeORM's pg pool is 10 connections by default: the same here.
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const keys = new Map();
  for (const row of (await pool.query("SELECT id, hash, product_id, mode FROM api_keys WHERE kind = 'secret' AND revoked_at IS NULL")).rows) {
    keys.set(row.hash.toString('hex'), { keyId: row.id, productId: row.product_id, mode: row.mode });
  }
  const cursorKey = createHash('sha256').update('baseline cursor').digest();
  const app = fastify(CONTRACT ? contractOptions() : {});
  const limited = CONTRACT ? await addContractWork(app) : null;

  app.addHook('onRequest', async (request, reply) => {
    if (request.url === '/healthz') return;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const scope = match && keys.get(createHash('sha256').update(match[1]).digest('hex'));
    if (!scope) return reply.status(401).send({ error: { code: 'unauthorized', message: 'Send a valid secret key.' } });
    if (limited && !(await limited(scope.keyId))) return reply.status(429).send({ error: { code: 'rate_limited', message: 'Too many requests.' } });
    request.scope = scope;
  });

  async function invited(request, reply, input) {
    const email = typeof input === 'string' ? input.trim().toLowerCase() : '';
    if (!EMAIL.test(email)) return reply.status(400).send({ error: { code: 'invalid_email', message: 'Not a valid email address.' } });
    const values = [request.scope.productId, request.scope.mode, email];
    if (SIMPLEST) {
      const { rows } = await pool.query({ name: 'invited', text: "SELECT 1 FROM entries WHERE product_id = $1 AND mode = $2 AND email = $3 AND state IN ('invited', 'redeemed')", values });
      return { invited: rows.length > 0 };
    }
    const { rows } = await pool.query({ name: 'invited', text: 'SELECT state FROM entries WHERE product_id = $1 AND mode = $2 AND email = $3', values });
    return { invited: rows[0]?.state === 'invited' || rows[0]?.state === 'redeemed' };
  }
  app.post('/api/v1/invited', (request, reply) => invited(request, reply, request.body?.email));
  app.get('/api/v1/invited', (request, reply) => invited(request, reply, request.query.email));

  app.post('/api/v1/invites/verify', async (request, reply) => {
    const token = request.body?.token;
    if (typeof token !== 'string' || !token || token.length > 512) return reply.status(400).send({ error: { code: 'invalid_request', message: 'Send a token.' } });
    const hash = createHash('sha256').update(token).digest();
    // The simplest form leaves out the service's handover of a code made before its invitation was
    // recorded (verify records it, then answers): the benchmark's codes are all recorded.
    const { rows } = await pool.query(
      SIMPLEST
        ? {
            name: 'verify',
            text: `SELECT e.email FROM invite_codes c JOIN entries e ON e.id = c.entry_id
             WHERE c.hash = $1 AND c.expires_at > now() AND e.product_id = $2 AND e.mode = $3 AND e.state = 'invited'`,
            values: [hash, request.scope.productId, request.scope.mode],
          }
        : {
            name: 'verify',
            text: `SELECT e.email, c.recorded FROM invite_codes c JOIN entries e ON e.id = c.entry_id
             WHERE c.hash = $1 AND c.expires_at > $2 AND e.product_id = $3 AND e.mode = $4
               AND (e.state = 'invited' OR (NOT c.recorded AND e.state = 'confirmed'))`,
            values: [hash, new Date(), request.scope.productId, request.scope.mode],
          },
    );
    return rows[0] ? { valid: true, email: rows[0].email } : { valid: false };
  });

  app.get('/api/v1/entries', async (request) => {
    const limit = 20;
    const { rows } = await pool.query({
      name: 'list',
      text: `SELECT id, email, state, created_at, confirmed_at, invited_at, redeemed_at, referral_code, referrals FROM entries
       WHERE product_id = $1 AND mode = $2 ORDER BY created_at DESC, id DESC LIMIT $3`,
      values: [request.scope.productId, request.scope.mode, limit + 1],
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    let nextCursor = null;
    if (rows.length > limit && last) {
      const payload = Buffer.from(JSON.stringify([last.created_at.getTime(), last.id])).toString('base64url');
      nextCursor = `${payload}.${createHmac('sha256', cursorKey).update(payload).digest('base64url')}`;
    }
    const data = page.map((row) => ({
      id: row.id,
      email: row.email,
      state: row.state,
      createdAt: row.created_at.toISOString(),
      confirmedAt: ISO(row.confirmed_at),
      invitedAt: ISO(row.invited_at),
      redeemedAt: ISO(row.redeemed_at),
      referralCode: row.referral_code,
      referrals: row.referrals,
    }));
    return { data, nextCursor };
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
  // A graceful end, so that a --cpu-prof profile is written.
  process.once('SIGTERM', () => void app.close().then(() => pool.end()));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
