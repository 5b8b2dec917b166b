import { AddressInfo } from 'node:net';
import { startHealthServer } from './health-server';

describe(startHealthServer.name, () => {
  it('answers /healthz, and /readyz with 200 or 503 naming the check that failed', async () => {
    let redisUp = true;
    const server = await startHealthServer(0, {
      database: async () => undefined,
      redis: async () => {
        if (!redisUp) throw new Error('down');
      },
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${base}/readyz`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ok', checks: { database: 'ok', redis: 'ok' } }]);
      redisUp = false;
      const notReady = await fetch(`${base}/readyz`);
      expect([notReady.status, await notReady.json()]).toEqual([503, { status: 'unavailable', checks: { database: 'ok', redis: 'unavailable' } }]);
      expect((await fetch(`${base}/nothing`)).status).toBe(404);
    } finally {
      server.close();
    }
  });
});
