import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import Redis from 'ioredis';
import { waitFor } from './wait';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A redis-server of the test's own on a free port, to stop and start at will: fault tests never
 * touch the machine's shared Redis. Only the process this class started is ever killed.
 */
export class ThrowawayRedis {
  private process: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<ThrowawayRedis> {
    const redis = new ThrowawayRedis(await freePort());
    await redis.up();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server unless it is running. */
  async up(): Promise<void> {
    if (this.process && this.process.exitCode === null) return;
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    this.process = child;
    await waitFor(async () => {
      const probe = new Redis({ port: this.port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        probe.disconnect();
      }
    }, `redis-server on port ${this.port}`);
  }

  /** Stops the server as `SHUTDOWN NOSAVE` does: everything it held is gone when it starts again. */
  async shutdownNosave(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const client = new Redis({ port: this.port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    await client.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
    client.disconnect();
    await exited;
    this.process = undefined;
  }

  async down(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.process = undefined;
  }

  /** How many clients are connected, not counting the one that asks. */
  async clients(): Promise<number> {
    const probe = new Redis({ port: this.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
    try {
      const list = (await probe.call('CLIENT', 'LIST')) as string;
      return list.trim().split('\n').length - 1;
    } finally {
      probe.disconnect();
    }
  }
}
