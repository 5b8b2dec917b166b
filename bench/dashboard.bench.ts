import { performance } from 'node:perf_hooks';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { signIn, PASSWORD } from '../test/support/dashboard';
import { seedHistory } from '../test/support/seed';
import { Stack } from '../test/support/stack';

const ENTRIES = 100_000;
const RUNS = 30;
/** Deliveries over the product's three endpoints, two logged attempts each (fewer to compare: BENCH_LOGGED_DELIVERIES). */
const DELIVERIES = Number(process.env.BENCH_LOGGED_DELIVERIES ?? 500_000);

/**
 * Every dashboard page of a product with 100,000 entries (a month of history) and 1,000,000 logged
 * delivery attempts, timed in the server (Fastify's inject: no network), next to the login page, which
 * reads nothing, as the baseline of the same run. The mark to stay under is 100 ms per page.
 */
describe(`dashboard pages with ${ENTRIES.toLocaleString('en-US')} entries`, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  });
  afterAll(() => stack.stop());

  it('reports each page’s server time against the login page', async () => {
    const product = await stack.createProduct({ name: 'Bench' });
    await seedHistory(stack.db, { productId: product.id, mode: 'live' }, ENTRIES, 'bench');
    await stack.api.get(DashboardAuthService).createUser('bench@example.com', PASSWORD, product.id);
    const { cookie } = await signIn(stack, 'bench@example.com');
    const endpoint = await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'live', url: 'http://127.0.0.1:9/hook' });
    const others = [];
    for (let i = 0; i < 2; i++) others.push(await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'live', url: `http://127.0.0.1:9/other-${i}` }));
    // Busy endpoints: 500,000 deliveries of the newest events, each after a failed first attempt (inline)
    // and a second (in attempt_log): 1,000,000 logged attempts, as a delivery log reads them.
    await stack.db.query(
      `INSERT INTO deliveries (id, endpoint_id, event_id, event_type, status, created_at, finished_at, attempted_at, status_code, error, duration_ms)
       SELECT 'dlv_' || w.n || e.id, w.id, e.id, e.type, 'succeeded', e.created_at, e.created_at + interval '1 minute', e.created_at + interval '20 seconds', NULL, 'timeout', 120
       FROM events e CROSS JOIN unnest($1::text[]) WITH ORDINALITY AS w (id, n) WHERE e.product_id = $2 ORDER BY e.created_at DESC LIMIT $3`,
      [[endpoint.id, ...others.map((other) => other.id)], product.id, DELIVERIES],
    );
    await stack.db.query(
      `INSERT INTO attempt_log (delivery_id, attempt, attempted_at, status_code, error, duration_ms)
       SELECT id, 2, created_at + interval '40 seconds', 200, NULL, 120 FROM deliveries`,
    );
    await stack.db.query('VACUUM (ANALYZE) deliveries, attempt_log');
    const [{ attempts }] = await stack.db.query('SELECT count(*)::int AS attempts FROM delivery_attempts');
    expect(attempts).toBe(2 * DELIVERIES);
    const [middle] = await stack.db.query("SELECT id FROM entries WHERE product_id = $1 AND state = 'confirmed' ORDER BY line_key OFFSET 25000 LIMIT 1", [product.id]);
    const [older] = await stack.db.query('SELECT id FROM entries WHERE product_id = $1 ORDER BY created_at DESC OFFSET 50 LIMIT 1', [product.id]);
    const cursor = /href="[^"]*cursor=([^"&]+)"/.exec((await get(`/dashboard/${product.id}/live/entries`)).text)![1];

    const base = `/dashboard/${product.id}/live`;
    const pages: [string, string][] = [
      ['products', '/dashboard'],
      ['overview', `${base}/overview`],
      ['entries, newest', `${base}/entries`],
      ['entries, next page', `${base}/entries?cursor=${cursor}`],
      ['entries, state filter', `${base}/entries?state=invited`],
      ['entries, whole address', `${base}/entries?email=bench-77777%40example.com`],
      ['entries, part of an address', `${base}/entries?email=77777`],
      ['entry in the middle of the line', `${base}/entries/${middle.id}`],
      ['entry not in line', `${base}/entries/${older.id}`],
      ['line', `${base}/line`],
      ['webhooks', `${base}/webhooks`],
      ['delivery log', `${base}/webhooks/${endpoint.id}`],
      ['API keys', `${base}/keys`],
      ['settings', `${base}/settings`],
    ];

    async function get(url: string, withCookie = true) {
      const response = await stack.request({ method: 'GET', url, headers: withCookie ? { cookie } : {} });
      if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
      return response;
    }
    async function time(url: string, withCookie = true): Promise<{ p50: number; p95: number }> {
      for (let i = 0; i < 3; i++) await get(url, withCookie);
      const samples: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const start = performance.now();
        await get(url, withCookie);
        samples.push(performance.now() - start);
      }
      samples.sort((a, b) => a - b);
      return { p50: samples[Math.floor(RUNS / 2)], p95: samples[Math.ceil(RUNS * 0.95) - 1] };
    }

    const baseline = await time('/dashboard/login', false);
    const rows = [`${'page'.padEnd(34)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'p50 ÷ baseline'.padStart(15)}`];
    rows.push(`${'login page (baseline)'.padEnd(34)} ${baseline.p50.toFixed(1).padStart(8)} ${baseline.p95.toFixed(1).padStart(8)} ${'1.0×'.padStart(15)}`);
    let slowest = 0;
    for (const [name, url] of pages) {
      const { p50, p95 } = await time(url);
      slowest = Math.max(slowest, p95);
      rows.push(`${name.padEnd(34)} ${p50.toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)} ${`${(p50 / baseline.p50).toFixed(1)}×`.padStart(15)}`);
    }
    rows.push(`slowest p95: ${slowest.toFixed(1)} ms (mark: 100 ms)`);
    const exportStart = performance.now();
    const csv = await get(`${base}/entries.csv`);
    rows.push(`CSV export of all ${ENTRIES.toLocaleString('en-US')} entries: ${(performance.now() - exportStart).toFixed(0)} ms, ${(csv.text.length / 1e6).toFixed(1)} MB`);
    process.stdout.write(`\n${rows.join('\n')}\n`);
  });
});
