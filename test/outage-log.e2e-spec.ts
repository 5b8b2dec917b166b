import { AppName, Stack } from './support/stack';
import { AppProcess } from './support/processes';
import { TcpProxy } from './support/tcp-proxy';
import { waitFor } from './support/wait';

const APPS: AppName[] = ['api', 'mailer', 'webhooks'];

/** The three apps as real processes, each reaching PostgreSQL and Redis through a proxy of the test's own. */
describe('a server that goes away while the apps run', () => {
  let stack: Stack;
  let postgres: TcpProxy;
  let redis: TcpProxy;
  const apps = new Map<AppName, AppProcess>();

  beforeAll(async () => {
    stack = await Stack.start({ apps: [] });
    const at = (url: string, port: number) => ({ host: new URL(url).hostname, port: Number(new URL(url).port || port) });
    [postgres, redis] = await Promise.all([TcpProxy.start(at(stack.config.DATABASE_URL, 5432)), TcpProxy.start(at(stack.config.REDIS_URL, 6379))]);
    const config = { ...stack.config, DATABASE_URL: postgres.through(stack.config.DATABASE_URL), REDIS_URL: redis.through(stack.config.REDIS_URL) };
    for (const name of APPS) apps.set(name, await AppProcess.start(name, config, { capture: true, env: { LOG_LEVEL: 'warn', RECONCILE_INTERVAL: '1s' } }));
  }, 60_000);
  afterAll(async () => {
    for (const app of apps.values()) await app.stop();
    await Promise.all([postgres?.stop(), redis?.stop()]);
    await stack?.stop();
  });

  /** Lines of one app's output since `from` (an index into its output). */
  const linesOf = (name: AppName, from = 0) =>
    apps
      .get(name)!
      .output.slice(from)
      .join('')
      .split('\n')
      .filter((line) => line.trim());
  const said = (name: AppName, pattern: RegExp, from = 0) => linesOf(name, from).filter((line) => pattern.test(line));
  const marks = () => new Map(APPS.map((name) => [name, apps.get(name)!.output.length]));

  it.each([
    { server: 'Redis', proxy: () => redis },
    { server: 'PostgreSQL', proxy: () => postgres },
  ])('$server: each app logs the outage once and its end once, with no stack trace, and works again', async ({ server, proxy }) => {
    const from = marks();
    proxy().cut();
    // The api learns of it from a request that needs the server, or from its queues' connections.
    const poke = () => fetch(`${apps.get('api')!.url}/api/v1/entries`, { headers: { authorization: 'Bearer sk_test_nobody' } }).catch(() => undefined);
    await waitFor(
      async () => {
        await poke();
        return APPS.every((name) => said(name, new RegExp(`${server} cannot be reached`), from.get(name)).length > 0);
      },
      `each app to log that ${server} cannot be reached`,
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    // Every app tries again and again meanwhile (BullMQ's workers once a second): wait for a good many tries.
    const refusedBefore = proxy().refused;
    await waitFor(
      async () => {
        await poke();
        return proxy().refused >= refusedBefore + 100;
      },
      'a hundred more tries of the apps',
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    proxy().open();
    await waitFor(() => APPS.every((name) => said(name, new RegExp(`${server} is back after`), from.get(name)).length > 0), `each app to log that ${server} is back`, {
      timeoutMs: 20_000,
    });

    for (const name of APPS) {
      const lines = linesOf(name, from.get(name));
      expect({ name, outage: said(name, /cannot be reached/, from.get(name)).length, back: said(name, / is back after /, from.get(name)).length }).toEqual({ name, outage: 1, back: 1 });
      // Nothing else: no warning per job, round or request, and no stack trace.
      expect({ name, lines }).toEqual({ name, lines: lines.filter((line) => /cannot be reached| is back after /.test(line)) });
      expect(lines.every((line) => JSON.parse(line).level === 'warn')).toBe(true);
    }
    await waitFor(async () => (await fetch(`${apps.get('api')!.url}/readyz`)).status === 200, 'the api to be ready again');
    for (const name of ['mailer', 'webhooks'] as const) {
      await waitFor(async () => (await fetch(`${apps.get(name)!.url}/readyz`)).status === 200, `the ${name} to be ready again`);
    }
  }, 90_000);
});
