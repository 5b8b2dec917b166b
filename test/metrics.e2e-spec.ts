import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { bearer, joinLine, signUp } from './support/flows';
import { AppProcess } from './support/processes';
import { toolPath } from './support/debian-tools';
import { declaredNames, parseExposition, Sample, valueOf } from './support/prometheus';
import { Receiver } from './support/receiver';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

const TOKEN = 'metrics-token-0123456789';
const OPERATIONS = join(__dirname, '..', 'docs', 'operations');

/** No label may carry an address, a code or key, an entry id or a URL. */
function expectNothingPersonal(samples: Sample[]): void {
  const values = samples.flatMap((sample) => Object.values(sample.labels));
  expect(values.filter((value) => /@|ent_|sk_|pk_|whsec_|:\/\/|\?/.test(value))).toEqual([]);
}

async function scrapeApi(stack: Stack): Promise<Sample[]> {
  const answer = await stack.request({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) });
  expect(answer.status).toBe(200);
  return parseExposition(answer.text);
}

describe('the api’s metrics', () => {
  let stack: Stack;
  let product: Product;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { METRICS_TOKEN: TOKEN, RATE_LIMIT_SIGNUP: '4/1m' } });
    product = await stack.createProduct();
  });
  afterAll(() => stack.stop());

  it('answer only with METRICS_TOKEN, in the Prometheus text format, with the process’s metrics', async () => {
    expect((await stack.request({ method: 'GET', url: '/metrics' })).status).toBe(401);
    expect((await stack.request({ method: 'GET', url: '/metrics', headers: bearer(`${TOKEN}x`) })).status).toBe(401);
    // The router decodes the path, so a proxy matching the raw path would pass this one on: the token still holds.
    expect((await stack.api.inject({ method: 'GET', url: '/%6detrics' })).statusCode).toBe(401);
    const answer = await stack.request({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseExposition(answer.text);
    expect(valueOf(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(valueOf(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('count requests by method, route template and status, an unknown path as unmatched, with their latency', async () => {
    const { secret } = product.keys.live;
    for (let i = 0; i < 3; i++) {
      expect((await stack.request({ method: 'POST', url: '/api/v1/invited', headers: bearer(secret), body: { email: `someone-${i}@example.com` } })).status).toBe(200);
    }
    expect((await stack.request({ method: 'GET', url: '/api/v1/entries/ent_0123456789abcdef01234567', headers: bearer(secret) })).status).toBe(404);
    expect((await stack.request({ method: 'GET', url: '/no/such/page?email=someone@example.com' })).status).toBe(404);

    const samples = await scrapeApi(stack);
    const count = (method: string, route: string, status: string) => valueOf(samples, 'waitlist_http_request_duration_seconds_count', { method, route, status });
    expect(count('POST', '/api/v1/invited', '200')).toBe(3);
    expect(count('GET', '/api/v1/entries/:id', '404')).toBe(1);
    expect(count('GET', 'unmatched', '404')).toBe(1);
    expect(valueOf(samples, 'waitlist_http_request_duration_seconds_bucket', { method: 'POST', route: '/api/v1/invited', status: '200', le: '+Inf' })).toBe(3);
    expectNothingPersonal(samples);
  });

  it('count rate-limit rejections by limit and invitations by outcome, and show the queues and the outbox', async () => {
    const { secret, publishable } = product.keys.live;
    const invited = await joinLine(stack, publishable, 'invited@example.com');
    const refused = await joinLine(stack, publishable, 'refused@example.com');
    stack.mail.refuse.add('refused@example.com');
    expect((await stack.request({ method: 'POST', url: `/api/v1/entries/${invited.id}/invite`, headers: bearer(secret) })).status).toBe(200);
    expect((await stack.request({ method: 'POST', url: `/api/v1/entries/${refused.id}/invite`, headers: bearer(secret) })).status).toBe(502);
    // Two sign-ups above; the limit is four per minute.
    await signUp(stack, publishable, 'third@example.com');
    await signUp(stack, publishable, 'fourth@example.com');
    expect((await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: publishable, email: 'fifth@example.com' } })).status).toBe(429);

    const samples = await scrapeApi(stack);
    expect(valueOf(samples, 'waitlist_invitations_total', { outcome: 'invited' })).toBe(1);
    expect(valueOf(samples, 'waitlist_invitations_total', { outcome: 'mail_failed' })).toBe(1);
    expect(valueOf(samples, 'waitlist_rate_limit_rejections_total', { limit: 'signup' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'waitlist_queue_collected')).toBe(1);
    for (const queue of ['invitations', 'deliveries']) {
      for (const state of ['waiting', 'active', 'delayed', 'failed']) expect(valueOf(samples, 'waitlist_queue_jobs', { queue, state })).toBeGreaterThanOrEqual(0);
    }
    // The stack's mailer.
    expect(valueOf(samples, 'waitlist_queue_workers', { queue: 'invitations' })).toBe(1);
    expect(valueOf(samples, 'waitlist_outbox_collected')).toBe(1);
    // No webhooks app runs: every event's fan-out waits in the outbox.
    expect(valueOf(samples, 'waitlist_outbox_rows', { queue: 'webhooks' })).toBeGreaterThan(0);
    expect(valueOf(samples, 'waitlist_outbox_oldest_age_seconds', { queue: 'webhooks' })).toBeGreaterThan(0);
    expectNothingPersonal(samples);
  });
});

describe('the workers’ metrics on HEALTH_PORT', () => {
  let stack: Stack;
  let receiver: Receiver;
  const workers: AppProcess[] = [];

  beforeAll(async () => {
    const env = { METRICS_TOKEN: TOKEN, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
    stack = await Stack.start({ apps: ['api'], env: { ...env, RATE_LIMIT_SIGNUP: '100/1m' } });
    receiver = await new Receiver().start();
    workers.push(await AppProcess.start('mailer', stack.config, { env }), await AppProcess.start('webhooks', stack.config, { env }));
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await receiver.stop();
    await stack.stop();
  });

  async function scrape(worker: AppProcess): Promise<Sample[]> {
    const answer = await fetch(`${worker.url}/metrics`, { headers: bearer(TOKEN) });
    expect(answer.status).toBe(200);
    return parseExposition(await answer.text());
  }

  it('count mails by kind and outcome, and delivery attempts by number and outcome with their latency', async () => {
    const [mailer, webhooks] = workers;
    expect((await fetch(`${mailer.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${webhooks.url}/metrics`)).status).toBe(401);
    const product = await stack.createProduct();
    await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: receiver.url, events: ['entry.created'] });
    receiver.answer = (index) => (index === 0 ? 500 : 200);
    stack.mail.refuse.add('refused@example.com');
    await signUp(stack, product.keys.test.publishable, 'mailed@example.com');
    await signUp(stack, product.keys.test.publishable, 'refused@example.com');
    await stack.mail.waitFor('mailed@example.com');
    await receiver.waitFor(2);

    await waitFor(async () => valueOf(await scrape(mailer), 'waitlist_mails_total', { kind: 'confirmation', outcome: 'refused' }) === 1, 'the refusal to be counted');
    const mails = await scrape(mailer);
    expect(valueOf(mails, 'waitlist_mails_total', { kind: 'confirmation', outcome: 'handed_over' })).toBe(1);
    expect(valueOf(mails, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expectNothingPersonal(mails);

    await waitFor(async () => valueOf(await scrape(webhooks), 'waitlist_delivery_latency_seconds_count') === 1, 'the first 2xx to be counted');
    const deliveries = await scrape(webhooks);
    // The receiver failed the first POST: that delivery waits for its retry.
    expect(valueOf(deliveries, 'waitlist_delivery_attempts_total', { attempt: '1', outcome: 'retrying' })).toBe(1);
    expect(valueOf(deliveries, 'waitlist_delivery_attempts_total', { attempt: '1', outcome: 'succeeded' })).toBe(1);
    expect(valueOf(deliveries, 'waitlist_delivery_latency_seconds_sum')).toBeGreaterThan(0);
    expectNothingPersonal(deliveries);
  });

  it('the alert rules and the dashboard query only metrics the apps declare, in PromQL that promtool reads; the rules pass their unit tests', async () => {
    const texts = await Promise.all([
      stack.request({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) }).then((answer) => answer.text),
      ...workers.map((worker) => fetch(`${worker.url}/metrics`, { headers: bearer(TOKEN) }).then((answer) => answer.text())),
    ]);
    const declared = new Set(['up', ...texts.flatMap((text) => [...declaredNames(text)])]);
    const rules = readFileSync(join(OPERATIONS, 'alerts.yml'), 'utf8');
    const dashboard = JSON.parse(readFileSync(join(OPERATIONS, 'grafana-dashboard.json'), 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
    const queries = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
    const named = (text: string) => text.match(/\b(waitlist_\w+|process_\w+|nodejs_\w+|up)(?=[{[\s)]|$)/g) ?? [];
    expect([...named(rules), ...queries.flatMap(named)].filter((name) => !declared.has(name))).toEqual([]);
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(12);

    const promtool = toolPath('promtool');
    execFileSync(promtool, ['check', 'rules', 'alerts.yml'], { cwd: OPERATIONS });
    execFileSync(promtool, ['test', 'rules', 'alerts.test.yml'], { cwd: OPERATIONS });
    // promtool reads PromQL in rule files: the dashboard's queries as recording rules.
    const scratch = mkdtempSync(join(tmpdir(), 'dashboard-'));
    try {
      const recorded = queries.map((expr, i) => `      - record: dashboard:query_${i}\n        expr: ${JSON.stringify(expr)}`).join('\n');
      writeFileSync(join(scratch, 'queries.yml'), `groups:\n  - name: dashboard\n    rules:\n${recorded}\n`);
      execFileSync(promtool, ['check', 'rules', join(scratch, 'queries.yml')]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
