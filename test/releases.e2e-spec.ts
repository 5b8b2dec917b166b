import { EntryRecord, QueueName } from '@app/shared';
import { JobQueues } from '../apps/api/src/common/job-queues';
import { MaintenanceService } from '../apps/api/src/maintenance/maintenance.service';
import { ProductsService } from '../apps/api/src/products/products.service';
import { ReleaseRunner } from '../apps/api/src/releases/release-runner';
import { nextTicks } from '../apps/api/src/releases/release-schedule';
import { ReleaseSchedulers } from '../apps/api/src/releases/release-schedulers';
import { bearer } from './support/flows';
import { invitationStack, seedLine } from './support/invitations';
import { Product, Stack } from './support/stack';
import { parseExposition, valueOf } from './support/prometheus';
import { waitFor } from './support/wait';

describe('releases', () => {
  let stack: Stack;

  beforeAll(async () => {
    ({ stack } = await invitationStack());
  });
  afterAll(() => stack.stop());

  const client = (product: Product) => {
    const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
      stack.request({ method, url: `/api/v1/releases${url}`, body, headers: bearer(product.keys.test.secret) });
    return {
      create: (body: unknown) => call('POST', '', body),
      list: () => call('GET', ''),
      get: (id: string) => call('GET', `/${id}`),
      update: (id: string, body: unknown) => call('PATCH', `/${id}`, body),
      remove: (id: string) => call('DELETE', `/${id}`),
      run: (id: string) => call('POST', `/${id}/run`),
      runs: (id: string) => call('GET', `/${id}/runs`),
    };
  };
  const schedulers = async () => (await stack.api.get(JobQueues).get(QueueName.Releases).getJobSchedulers()).map((scheduler) => scheduler.key);
  const runsOf = (id: string) => stack.db.query(`SELECT tick_at, tick_local::text AS tick_local, invited, failed, finished_at IS NOT NULL AS finished FROM release_runs WHERE release_id = $1 ORDER BY started_at`, [id]);

  it('refuses a bad cron expression, time zone or count with 400 invalid_request naming the field, and makes nothing', async () => {
    const releases = client(await stack.createProduct());
    for (const [body, param, message] of [
      [{ count: 10, pattern: '61 * * * *', timeZone: 'Europe/Berlin' }, 'pattern', /cron expression is not valid/],
      [{ count: 10, pattern: '* *', timeZone: 'Europe/Berlin' }, 'pattern', /five fields/],
      [{ count: 10, pattern: '0 9 * * 1', timeZone: 'Mars/Olympus' }, 'timeZone', /IANA time zone/],
      [{ count: 0, pattern: '0 9 * * 1', timeZone: 'UTC' }, 'count', /whole number from 1 to 1000/],
    ] as const) {
      const answer = await releases.create(body);
      expect(answer.status).toBe(400);
      expect(answer.json().error).toMatchObject({ code: 'invalid_request', param, message: expect.stringMatching(message) });
    }
    expect((await releases.list()).json()).toEqual({ data: [] });
  });

  it('answers bad input to every release route with 400 invalid_request, never a 500', async () => {
    const product = await stack.createProduct();
    const releases = client(product);
    const release = (await releases.create({ count: 1, pattern: '0 9 * * 1', timeZone: 'UTC', paused: true })).json();
    const raw = (method: 'POST' | 'PATCH', url: string, payload: string, type = 'application/json') =>
      stack.request({ method, url: `/api/v1/releases${url}`, payload, headers: { ...bearer(product.keys.test.secret), 'content-type': type } });
    const answers = [
      await raw('POST', '', '{"count":'),
      await raw('POST', '', 'count=1', 'application/x-www-form-urlencoded'),
      await releases.create({ count: '5', pattern: '0 9 * * 1', timeZone: 'UTC' }),
      await releases.create({ count: 5, pattern: 'x'.repeat(101), timeZone: 'UTC' }),
      await releases.update(release.id, { paused: 'yes' }),
      await releases.update(release.id, { pattern: '0 25 * * *' }),
      await raw('PATCH', `/${release.id}`, '[1]'),
      await stack.request({ method: 'GET', url: `/api/v1/releases/${release.id}/runs?limit=1000`, headers: bearer(product.keys.test.secret) }),
    ];
    expect(answers.map((answer) => [answer.status, answer.json().error.code])).toEqual(Array(answers.length).fill([400, 'invalid_request']));
    expect((await releases.get(release.id)).json()).toMatchObject({ count: 1, pattern: '0 9 * * 1', paused: true });
  });

  it('makes, shows with its next run in its zone, pauses, resumes and deletes a release, its scheduler following', async () => {
    const releases = client(await stack.createProduct());
    const made = await releases.create({ count: 100, pattern: '0 9 * * 1', timeZone: 'Europe/Berlin' });
    expect(made.status).toBe(201);
    const release = made.json();
    expect(release).toMatchObject({ count: 100, pattern: '0 9 * * 1', timeZone: 'Europe/Berlin', paused: false, mode: 'test' });
    expect(release.nextRunLocal).toMatch(/^\d{4}-\d\d-\d\dT09:00:00\+0[12]:00$/);
    expect(new Date(release.nextRunAt).getUTCDay()).toBe(1);
    expect(await schedulers()).toContain(release.id);
    expect((await releases.list()).json().data.map((shown: { id: string }) => shown.id)).toEqual([release.id]);

    const paused = (await releases.update(release.id, { paused: true })).json();
    expect(paused).toMatchObject({ paused: true, nextRunAt: null, nextRunLocal: null });
    expect(await schedulers()).not.toContain(release.id);
    expect((await releases.update(release.id, { paused: false, count: 5 })).json()).toMatchObject({ paused: false, count: 5 });
    expect(await schedulers()).toContain(release.id);
    expect((await releases.update(release.id, { timeZone: 'Nowhere' })).json().error).toMatchObject({ code: 'invalid_request', param: 'timeZone' });

    expect((await releases.remove(release.id)).status).toBe(204);
    expect(await schedulers()).not.toContain(release.id);
    expect((await releases.get(release.id)).json().error.code).toBe('not_found');
    // Another product's key does not see it.
    expect((await client(await stack.createProduct()).get(release.id)).status).toBe(404);
  });

  it('run now invites in line order; a failed mail stays in line and is reported in the run', async () => {
    const product = await stack.createProduct();
    const releases = client(product);
    const line = await seedLine(stack, { productId: product.id, mode: 'test' }, 4, `now-${product.id}`);
    stack.mail.refuse.add(line[1].email);
    const release = (await releases.create({ count: 3, pattern: '0 9 * * 1', timeZone: 'UTC', paused: true })).json();
    const run = await releases.run(release.id);
    expect(run.status).toBe(200);
    expect(run.json()).toMatchObject({ tickAt: null, asked: 3, invited: 2, failed: 1, skippedForCapacity: 0, failedEntryIds: [line[1].id], error: null });
    const states = await stack.db.getRepository(EntryRecord).find({ where: line.map(({ id }) => ({ id })) });
    const stateOf = (id: string) => states.find((entry) => entry.id === id)!.state;
    expect(line.map(({ id }) => stateOf(id))).toEqual(['invited', 'confirmed', 'invited', 'confirmed']);
    expect((await releases.runs(release.id)).json().data).toHaveLength(1);
  });

  it('counts runs by outcome, and reports a release whose last two runs failed', async () => {
    const product = await stack.createProduct();
    const releases = client(product);
    const line = await seedLine(stack, { productId: product.id, mode: 'test' }, 2, `failing-${product.id}`);
    for (const entry of line) stack.mail.refuse.add(entry.email);
    const release = (await releases.create({ count: 2, pattern: '0 9 * * 1', timeZone: 'UTC' })).json();
    const scrape = async () => parseExposition((await stack.request({ method: 'GET', url: '/metrics' })).text);
    const failedBefore = valueOf(await scrape(), 'waitlist_release_runs_total', { outcome: 'failed' }) ?? 0;
    expect((await releases.run(release.id)).json()).toMatchObject({ invited: 0, failed: 2, failedEntryIds: line.map((entry) => entry.id) });
    expect(valueOf(await scrape(), 'waitlist_releases_failing')).toBe(0);
    await releases.run(release.id);
    const samples = await scrape();
    expect(valueOf(samples, 'waitlist_releases_failing')).toBe(1);
    expect(valueOf(samples, 'waitlist_release_runs_total', { outcome: 'failed' })).toBe(failedBefore + 2);
    expect(valueOf(samples, 'waitlist_release_entries_total', { result: 'failed' })).toBeGreaterThanOrEqual(4);
    for (const entry of line) stack.mail.refuse.delete(entry.email);
    await releases.update(release.id, { paused: true });
    expect(valueOf(await scrape(), 'waitlist_releases_failing')).toBe(0);
  });

  it('invites min(count, cap − outstanding) and records what the cap left out', async () => {
    const product = await stack.createProduct();
    await stack.api.get(ProductsService).update(product.id, { capacity: 3 });
    const releases = client(product);
    await seedLine(stack, { productId: product.id, mode: 'test' }, 10, `capped-${product.id}`);
    const release = (await releases.create({ count: 5, pattern: '0 9 * * 1', timeZone: 'UTC', paused: true })).json();
    expect((await releases.run(release.id)).json()).toMatchObject({ asked: 5, invited: 3, skippedForCapacity: 2 });
    expect((await releases.run(release.id)).json()).toMatchObject({ asked: 5, invited: 0, skippedForCapacity: 5 });
  });

  it("closes a run of an older api (no request named, no lock) as unknown only once it has had an hour: during a rolling upgrade that api may still run it", async () => {
    const releases = client(await stack.createProduct());
    const release = (await releases.create({ count: 3, pattern: '0 9 * * 1', timeZone: 'UTC' })).json();
    const started = async (msAgo: number) => {
      const [{ id }]: { id: string }[] = await stack.db.query(
        `INSERT INTO release_runs (id, release_id, started_at, asked) VALUES ('run_' || md5(random()::text), $1, now() - make_interval(secs => $2::float / 1000), 3) RETURNING id`,
        [release.id, msAgo],
      );
      return id;
    };
    const [young, old] = [await started(5 * 60_000), await started(61 * 60_000)];
    await stack.api.get(ReleaseRunner).takeOver();
    const runs: { id: string; finished: boolean; error: string | null }[] = await stack.db.query(
      `SELECT id, finished_at IS NOT NULL AS finished, error FROM release_runs WHERE id = ANY($1)`,
      [[young, old]],
    );
    expect(Object.fromEntries(runs.map((run) => [run.id, [run.finished, run.error]]))).toEqual({
      [young]: [false, null],
      [old]: [true, expect.stringMatching(/stopped before it finished/)],
    });
  });

  it('runs a tick once, however often it fires, and only while the release is active', async () => {
    const product = await stack.createProduct();
    await seedLine(stack, { productId: product.id, mode: 'test' }, 10, `guard-${product.id}`);
    const release = (await client(product).create({ count: 1, pattern: '0 * * * *', timeZone: 'Europe/Berlin' })).json();
    const runner = stack.api.get(ReleaseRunner);
    const [tick] = nextTicks('0 * * * *', 'Europe/Berlin', new Date(), 1);
    const fired = await Promise.all([runner.runTick(release.id, tick), runner.runTick(release.id, tick), runner.runTick(release.id, tick)]);
    expect(fired.filter(Boolean)).toHaveLength(1);
    await client(product).update(release.id, { paused: true });
    expect(await runner.runTick(release.id, new Date(tick.getTime() + 3_600_000))).toBeNull();
    expect(await runsOf(release.id)).toHaveLength(1);
  });

  it('runs once in the doubled hour of an autumn night and once in the missing hour of a spring night (Europe/Berlin)', async () => {
    const product = await stack.createProduct();
    await seedLine(stack, { productId: product.id, mode: 'test' }, 20, `dst-${product.id}`);
    const runner = stack.api.get(ReleaseRunner);
    // An hourly release meets 02:00 twice on 31 October 2027; each tick cron-parser computes is fired.
    const hourly = (await client(product).create({ count: 1, pattern: '0 * * * *', timeZone: 'Europe/Berlin' })).json();
    for (const tick of nextTicks('0 * * * *', 'Europe/Berlin', new Date('2027-10-30T22:30:00Z'), 4)) await runner.runTick(hourly.id, tick);
    expect((await runsOf(hourly.id)).map((run: { tick_local: string }) => run.tick_local)).toEqual([
      '2027-10-31 01:00:00',
      '2027-10-31 02:00:00',
      '2027-10-31 03:00:00',
    ]);
    // A daily 02:30 runs at 03:30 on 28 March 2027, once, and as usual on the days around it.
    const daily = (await client(product).create({ count: 1, pattern: '30 2 * * *', timeZone: 'Europe/Berlin' })).json();
    for (const tick of nextTicks('30 2 * * *', 'Europe/Berlin', new Date('2027-03-26T12:00:00Z'), 3)) {
      await runner.runTick(daily.id, tick);
      await runner.runTick(daily.id, tick);
    }
    expect((await runsOf(daily.id)).map((run: { tick_local: string }) => run.tick_local)).toEqual(['2027-03-27 02:30:00', '2027-03-28 03:30:00', '2027-03-29 02:30:00']);
  });

  it('fires on its schedule through BullMQ, and a reconcile puts back a lost scheduler and runs the tick Redis lost', async () => {
    const product = await stack.createProduct();
    await seedLine(stack, { productId: product.id, mode: 'test' }, 20, `sched-${product.id}`);
    const every2s = (await client(product).create({ count: 1, pattern: '*/2 * * * * *', timeZone: 'UTC' })).json();
    await waitFor(async () => (await runsOf(every2s.id)).length >= 2, 'two scheduled runs');
    await client(product).update(every2s.id, { paused: true });

    const hourly = (await client(product).create({ count: 2, pattern: '0 * * * *', timeZone: 'UTC' })).json();
    // As if Redis lost its data an hour ago: the scheduler is gone and the last tick has no run.
    await stack.db.query(`UPDATE releases SET schedule_from = now() - interval '2 hours' WHERE id = $1`, [hourly.id]);
    await stack.api.get(JobQueues).get(QueueName.Releases).removeJobScheduler(hourly.id);
    expect(await stack.api.get(MaintenanceService).runOnce()).toBe(true);
    expect(await schedulers()).toContain(hourly.id);
    await waitFor(async () => (await runsOf(hourly.id)).some((run: { finished: boolean }) => run.finished), 'the owed tick to run');
    const [run] = await runsOf(hourly.id);
    expect(run.tick_at.getTime() % 3_600_000).toBe(0);
    expect(run.invited).toBe(2);
    // A second reconcile owes nothing more.
    expect(await stack.api.get(ReleaseSchedulers).reconcile()).toEqual({ restored: 0, removed: 0, owed: 0 });
    expect(await runsOf(hourly.id)).toHaveLength(1);
  });
});
