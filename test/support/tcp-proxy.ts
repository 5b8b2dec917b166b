import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';

interface Pair {
  client: Socket;
  upstream: Socket;
  piped: boolean;
}

/**
 * A TCP proxy of the test's own in front of a shared server (PostgreSQL), so that a test can make
 * that server unreachable or slow for one app without touching the server itself.
 */
export class TcpProxy {
  private readonly pairs = new Set<Pair>();
  private state: 'open' | 'held' | 'cut' = 'open';
  /** Connections dropped as they came while cut: how often the apps tried again. */
  refused = 0;

  private constructor(
    private readonly server: Server,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server, target);
    server.on('connection', (client) => proxy.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.port);
    return proxied.toString();
  }

  /** Unreachable: every connection is dropped, and new ones are dropped as they come. */
  cut(): void {
    this.state = 'cut';
    for (const pair of this.pairs) this.drop(pair);
  }

  /** Slow beyond any bound: nothing passes either way, on old and new connections, until open(). */
  hold(): void {
    this.state = 'held';
    for (const pair of this.pairs) {
      pair.client.unpipe(pair.upstream);
      pair.upstream.unpipe(pair.client);
      pair.piped = false;
    }
  }

  /** Everything passes again; what was held goes on its way. */
  open(): void {
    this.state = 'open';
    for (const pair of this.pairs) this.pipe(pair);
  }

  async stop(): Promise<void> {
    for (const pair of this.pairs) this.drop(pair);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.state === 'cut') {
      this.refused++;
      client.destroy();
      return;
    }
    const pair = { client, upstream: connect(this.target.port, this.target.host), piped: false };
    this.pairs.add(pair);
    for (const socket of [pair.client, pair.upstream]) socket.on('error', () => this.drop(pair)).on('close', () => this.drop(pair));
    if (this.state === 'open') this.pipe(pair);
  }

  // Piping a pair twice would send every byte twice: PostgreSQL reads that as a broken protocol.
  private pipe(pair: Pair): void {
    if (pair.piped) return;
    pair.client.pipe(pair.upstream);
    pair.upstream.pipe(pair.client);
    pair.piped = true;
  }

  private drop(pair: Pair): void {
    this.pairs.delete(pair);
    pair.client.destroy();
    pair.upstream.destroy();
  }
}
