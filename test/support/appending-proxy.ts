import { createServer, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP reverse proxy as nginx is usually set up (`X-Forwarded-For $proxy_add_x_forwarded_for`), and as
 * most cloud load balancers behave: it keeps the X-Forwarded-For the client sent and appends the address
 * the client connected from.
 */
export class AppendingProxy {
  private constructor(private readonly server: Server) {}

  static async start(target: string): Promise<AppendingProxy> {
    const upstream = new URL(target);
    const server = createServer((incoming, answer) => {
      const sent = incoming.headers['x-forwarded-for'];
      const forwardedFor = [sent, incoming.socket.remoteAddress].filter(Boolean).join(', ');
      const outgoing = request(
        { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, 'x-forwarded-for': forwardedFor } },
        (response) => {
          answer.writeHead(response.statusCode!, response.headers);
          response.pipe(answer);
        },
      );
      outgoing.on('error', () => answer.destroy());
      incoming.pipe(outgoing);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new AppendingProxy(server);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
