import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { CommandQueue, QueueName, redisOptions } from '@app/shared';
import { Worker } from 'bullmq';
import { waitFor } from './support/wait';
import { Stack } from './support/stack';
import { form, logIn as logInAs, PASSWORD, twoTeams } from './support/dashboard';

describe('dashboard: Bull Board at /admin/queues, for operators', () => {
  let stack: Stack;

  beforeAll(async () => {
    ({ stack } = await twoTeams());
  });
  afterAll(() => stack.stop());

  const logIn = (email: string, password = PASSWORD) => logInAs(stack, email, password);

  async function page(url: string, cookie: string) {
    return stack.request({ method: 'GET', url, headers: { cookie } });
  }

  it('Bull Board at /admin/queues: no session goes to the login, a team member gets 404, an operator sees every queue', async () => {
    for (const url of ['/admin/queues', '/admin/queues/api/queues']) {
      const anonymous = await page(url, '');
      expect([anonymous.status, anonymous.headers.location]).toEqual([303, '/dashboard/login']);
    }
    // To a user of a team the board is not there: the same answer as any unknown path, reads and writes alike.
    const { cookie } = await logIn('ada@example.com');
    const unknown = await page('/admin/nothing-here', cookie);
    for (const url of ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/api/queues?activeQueue=mail']) {
      const refused = await page(url, cookie);
      expect([url, refused.status, refused.text]).toEqual([url, 404, unknown.text]);
    }
    for (const url of ['/admin/queues/api/queues/mail/pause', '/admin/queues/api/queues/mail/retry/failed']) {
      expect([url, (await stack.request({ method: 'PUT', url, headers: { cookie } })).status]).toEqual([url, 404]);
    }
    expect((await page('/dashboard', cookie)).text).not.toContain('/admin/queues');

    await stack.api.get(DashboardAuthService).createUser('ops@example.com', PASSWORD, null, { operator: true });
    const { cookie: operator } = await logIn('ops@example.com');
    expect((await page('/dashboard', operator)).text).toContain('<a href="/admin/queues"');
    const board = await page('/admin/queues', operator);
    expect(board.status).toBe(200);
    expect(board.text).toContain('<div id="root">');
    const queues = await page('/admin/queues/api/queues', operator);
    expect(queues.status).toBe(200);
    expect(queues.json().queues.map((queue: { name: string }) => queue.name).sort()).toEqual(['deliveries', 'invitations', 'releases']);
  });

  it('an operator retries and cleans failed jobs through the board', async () => {
    await stack.api.get(DashboardAuthService).createUser('ops@example.com', PASSWORD, null, { operator: true });
    const { cookie } = await logIn('ops@example.com');
    const queue = CommandQueue.open(QueueName.Deliveries, stack.config);
    // No webhooks app runs here: a worker of the test's own fails three jobs.
    const worker = new Worker(QueueName.Deliveries, async () => { throw new Error('the receiver is down'); }, {
      connection: { ...redisOptions(stack.config.REDIS_URL), maxRetriesPerRequest: null },
      prefix: stack.config.QUEUE_PREFIX,
    });
    try {
      for (const id of ['dlv_one', 'dlv_two', 'dlv_three']) await queue.add('deliver', { deliveryId: id }, { jobId: id, attempts: 1 });
      await waitFor(async () => (await queue.getFailedCount()) === 3, 'three failed jobs');
      await worker.close();
      // As the board's page sends them: a browser puts the page's Origin on every write.
      const origin = new URL(stack.config.PUBLIC_BASE_URL).origin;
      const put = (url: string) => stack.request({ method: 'PUT', url: `/admin/queues/api/queues/deliveries/${url}`, headers: { cookie, origin } });
      const listed = (await page('/admin/queues/api/queues?activeQueue=deliveries&status=failed', cookie)).json();
      const deliveries = listed.queues.find((candidate: { name: string }) => candidate.name === 'deliveries');
      expect(deliveries.readOnlyMode).toBe(false);
      expect(deliveries.jobs.map((job: { id: string }) => job.id).sort()).toEqual(['dlv_one', 'dlv_three', 'dlv_two']);

      expect((await put('dlv_one/retry')).status).toBe(204);
      expect(await queue.getJobState('dlv_one')).toBe('waiting');
      expect((await put('dlv_two/clean')).status).toBe(204);
      expect(await queue.getJob('dlv_two')).toBeUndefined();
      expect((await put('retry/failed')).status).toBe(200);
      expect(await queue.getJobState('dlv_three')).toBe('waiting');
      expect(await queue.getFailedCount()).toBe(0);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('Bull Board takes writes only from the service’s own origin: a foreign Origin or Referer, or neither, is 403 and changes nothing', async () => {
    await stack.api.get(DashboardAuthService).createUser('ops@example.com', PASSWORD, null, { operator: true });
    const { cookie } = await logIn('ops@example.com');
    const own = new URL(stack.config.PUBLIC_BASE_URL).origin;
    // No webhooks app runs here, so a job added to deliveries would stay to be seen.
    const queue = CommandQueue.open(QueueName.Deliveries, stack.config);
    const board = (method: 'POST' | 'PUT', action: string, headers: Record<string, string>, payload?: string) =>
      stack.request({ method, url: `/admin/queues/api/queues/deliveries/${action}`, headers: { cookie, ...headers }, payload });
    const json = { 'content-type': 'application/json' };
    const forged = async () => (await queue.getJobs(['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'])).filter((job) => job.name === 'forged');
    try {
      const elsewhere: Record<string, string>[] = [
        { origin: 'https://attacker.example' },
        { origin: `${own}.attacker.example` },
        { origin: 'null' },
        { referer: 'https://attacker.example/admin/queues' },
        { referer: 'not a url' },
        { origin: 'https://attacker.example', referer: `${own}/admin/queues` },
        {},
      ];
      for (const headers of elsewhere) {
        const add = await board('POST', 'add', { ...headers, ...json }, JSON.stringify({ name: 'forged', data: { deliveryId: 'dlv_forged' } }));
        // What a form on another site can post without any script.
        const formPost = await board('POST', 'add', { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, form({ name: 'forged' }));
        const pause = await board('PUT', 'pause', headers);
        expect([headers, add.status, formPost.status, pause.status]).toEqual([headers, 403, 403, 403]);
        expect(add.json()).toEqual({ error: { code: 'forbidden', message: expect.stringContaining('did not come from') } });
      }
      expect(await forged()).toEqual([]);
      expect(await queue.isPaused()).toBe(false);

      // Reads need neither header; the board's own page sends its writes with the service's Origin (or a Referer of it).
      expect((await page('/admin/queues/api/queues?activeQueue=deliveries', cookie)).status).toBe(200);
      expect((await board('PUT', 'pause', { origin: own })).status).toBe(200);
      expect(await queue.isPaused()).toBe(true);
      expect((await board('PUT', 'resume', { referer: `${own}/admin/queues/queue/deliveries` })).status).toBe(200);
      expect(await queue.isPaused()).toBe(false);
      expect((await board('POST', 'add', { origin: own, ...json }, JSON.stringify({ name: 'forged', data: { deliveryId: 'dlv_own' } }))).status).toBe(200);
      expect((await forged()).map((job) => job.data)).toEqual([{ deliveryId: 'dlv_own' }]);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
