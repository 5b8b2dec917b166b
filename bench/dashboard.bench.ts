import { performance } from 'node:perf_hooks';
import { DashboardAuthService } from '../apps/api/src/dashboard/dashboard-auth.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { signIn, PASSWORD } from '../test/support/dashboard';
import { seedHistory } from '../test/support/seed';
import { Stack } from '../test/support/stack';

const ENTRIES = 100_000;
const RUNS = 30;

/**
 * Every dashboard page of a product with 100,000 entries (a month of history), timed in the server
 * (Fastify's inject: no network), next to the login page, which reads nothing, as the baseline of
 * the same run. The mark to stay under is 100 ms per page.
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
    // A busy endpoint: the newest 5,000 events delivered, each after one failed attempt.
    await stack.db.query(
      `INSERT INTO deliveries (id, endpoint_id, event_id, event_type, status, created_at, finished_at)
       SELECT 'dlv_' || id, $1, id, type, 'succeeded', created_at, created_at + interval '1 minute'
       FROM events WHERE product_id = $2 ORDER BY created_at DESC LIMIT 5000`,
      [endpoint.id, product.id],
    );
    await stack.db.query(
      `INSERT INTO delivery_attempts (delivery_id, attempt, attempted_at, status_code, error, duration_ms)
       SELECT id, attempt, created_at + attempt * interval '20 seconds', CASE attempt WHEN 2 THEN 200 END, CASE attempt WHEN 1 THEN 'timeout' END, 120
       FROM deliveries, generate_series(1, 2) AS attempt WHERE endpoint_id = $1`,
      [endpoint.id],
    );
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
