import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { Posts } from './posts';

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
});
