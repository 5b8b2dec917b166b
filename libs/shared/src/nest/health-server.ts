import { createServer, Server } from 'node:http';
import type { Scrape } from '../metrics/metrics';
import { withTimeout } from '../queues/redis';

export type ReadinessChecks = Record<string, () => Promise<unknown>>;

/**
 * /healthz, /readyz and /metrics for the worker apps on HEALTH_PORT (at HOST), answering like the API's: 200
 * when every check answers within two seconds, else 503 naming the ones that did not.
 */
export function startHealthServer({ port, host }: { port: number; host: string }, checks: ReadinessChecks, metrics: (authorization: string | undefined) => Promise<Scrape>): Promise<Server> {
  const server = createServer((request, response) => {
    const reply = (status: number, body: object) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (request.url === '/healthz') return reply(200, { status: 'ok' });
    if (request.url === '/metrics') {
      void metrics(request.headers.authorization).then(({ status, contentType, body }) => response.writeHead(status, { 'content-type': contentType }).end(body));
      return;
    }
    if (request.url !== '/readyz') return reply(404, { error: { code: 'not_found', message: 'No such resource.' } });
    void Promise.all(
      Object.entries(checks).map(async ([name, check]) => [
        name,
        await withTimeout(check(), 2000, name).then(
          () => 'ok',
          () => 'unavailable',
        ),
      ]),
    ).then((results) => {
      const ok = results.every(([, result]) => result === 'ok');
      reply(ok ? 200 : 503, { status: ok ? 'ok' : 'unavailable', checks: Object.fromEntries(results) });
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
