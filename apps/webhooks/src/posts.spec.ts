import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { Answer, Posts } from './posts';

describe('Posts', () => {
  let server: Server;
  let agent: Agent;
  let origin: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      if (request.url === '/hang') return;
      if (request.url === '/long') return void response.end('x'.repeat(100_000));
      if (request.url === '/late-body') {
        response.writeHead(200);
        response.write('a');
        return;
      }
      response.writeHead(request.url === '/missing' ? 404 : 200).end('ok');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    agent = new Agent({ connect: { timeout: 300 } });
  });
  afterAll(async () => {
    await agent.close().catch(() => undefined);
    server.closeAllConnections();
    server.close();
  });

  it('answers with the status code, on one kept connection', async () => {
    const posts = new Posts(agent, 300);
    let connections = 0;
    const count = () => connections++;
    server.on('connection', count);
    try {
      for (const path of ['/ok', '/missing', '/ok']) {
        const answer = await posts.send({ origin, path }, { 'content-type': 'application/json' }, '{}');
        expect(answer).toEqual({ statusCode: path === '/missing' ? 404 : 200, error: null });
      }
      expect(connections).toBeLessThanOrEqual(1);
    } finally {
      server.off('connection', count);
      posts.close();
    }
  });

  it('ends a POST without an answer at its deadline, and one whose answer began with its status code', async () => {
    const posts = new Posts(agent, 300);
    try {
      const [hung, late, long] = await Promise.all(['/hang', '/late-body', '/long'].map((path) => posts.send({ origin, path }, {}, '{}')));
      // Ended by the deadline's sweep (its error), not by the connection or the server.
      expect(hung).toEqual({ statusCode: null, error: expect.objectContaining({ name: 'TimeoutError', message: 'No answer within 300 ms' }) });
      expect(late).toEqual({ statusCode: 200, error: null });
      expect(long).toEqual({ statusCode: 200, error: null });
    } finally {
      posts.close();
    }
  });

  it('ends a POST without an answer at most one tick (a twentieth of the timeout) after its deadline', async () => {
    const requests: unknown[] = [];
    const seen = (request: unknown) => requests.push(request);
    server.on('request', seen);
    // Only the clock and its timers are fake: the sockets, and undici's turns of the event loop, stay real.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'hrtime'] });
    const posts = new Posts(agent, 1000);
    const ended: (Answer | undefined)[] = [undefined, undefined];
    const send = (i: number) => void posts.send({ origin, path: '/hang' }, {}, '{}').then((answer) => (ended[i] = answer));
    try {
      // The timer starts with the first POST; the second begins between two of its ticks (deadline 1025 ms).
      send(0);
      await until(() => requests.length === 1);
      await jest.advanceTimersByTimeAsync(25);
      send(1);
      await until(() => requests.length === 2);

      await jest.advanceTimersByTimeAsync(999);
      await until(() => ended[0] !== undefined);
      await turns();
      expect(ended[1]).toBeUndefined();

      await jest.advanceTimersByTimeAsync(50);
      await until(() => ended[1] !== undefined);
      expect(ended).toEqual([timedOut, timedOut]);
    } finally {
      posts.close();
      jest.useRealTimers();
      server.off('request', seen);
    }
  });
});

const timedOut = { statusCode: null, error: expect.objectContaining({ name: 'TimeoutError' }) };

const turns = () => new Promise((resolve) => setImmediate(resolve));

/** Waits, on real turns of the event loop, until the condition holds or 5 real seconds went by. */
async function until(condition: () => boolean): Promise<void> {
  const end = process.hrtime.bigint() + 5_000_000_000n;
  while (!condition() && process.hrtime.bigint() < end) await turns();
}
