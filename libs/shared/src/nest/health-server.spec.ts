import { AddressInfo } from 'node:net';
import { startHealthServer } from './health-server';

describe(startHealthServer.name, () => {
  it('answers /healthz, /readyz with 200 or 503 naming the check that failed, and /metrics as its scrape answers', async () => {
    let redisUp = true;
    const server = await startHealthServer(
      { port: 0, host: '127.0.0.1' },
      {
        database: async () => undefined,
        redis: async () => {
          if (!redisUp) throw new Error('down');
        },
      },
      async (authorization) => ({ status: authorization === 'Bearer t' ? 200 : 401, contentType: 'text/plain; version=0.0.4', body: 'up 1\n' }),
    );
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${base}/readyz`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ok', checks: { database: 'ok', redis: 'ok' } }]);
      redisUp = false;
      const notReady = await fetch(`${base}/readyz`);
      expect([notReady.status, await notReady.json()]).toEqual([503, { status: 'unavailable', checks: { database: 'ok', redis: 'unavailable' } }]);
      expect((await fetch(`${base}/nothing`)).status).toBe(404);
      const scraped = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer t' } });
      expect([scraped.status, scraped.headers.get('content-type'), await scraped.text()]).toEqual([200, 'text/plain; version=0.0.4', 'up 1\n']);
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
    } finally {
      server.close();
    }
  });
});
