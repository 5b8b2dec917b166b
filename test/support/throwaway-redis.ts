import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
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

  private constructor(
    readonly port: number,
    private readonly password?: string,
  ) {}

  /** `password`: the server asks every client for it (requirepass). */
  static async start(options: { password?: string } = {}): Promise<ThrowawayRedis> {
    const redis = new ThrowawayRedis(await freePort(), options.password);
    await redis.up();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server unless it is running. */
  async up(): Promise<void> {
    if (this.process && this.process.exitCode === null) return;
    const auth = this.password ? ['--requirepass', this.password] : [];
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...auth], {
      stdio: 'ignore',
    });
    this.process = child;
    await waitFor(async () => {
      const probe = new Redis({ port: this.port, host: '127.0.0.1', password: this.password, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
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

/**
 * A Redis Cluster of the test's own: `masters` redis-servers in cluster mode on free ports, their
 * slots assigned by `redis-cli --cluster create`, their state in a temporary folder removed at stop.
 */
export class ThrowawayCluster {
  private constructor(
    readonly ports: number[],
    private readonly folder: string,
    private readonly processes: ChildProcess[],
  ) {}

  static async start(masters = 3): Promise<ThrowawayCluster> {
    // Each node also listens on a bus port for the others, by default its port + 10000, which may be taken.
    const [ports, busPorts] = await Promise.all([0, 1].map(() => Promise.all(Array.from({ length: masters }, () => freePort()))));
    const folder = await mkdtemp(join(tmpdir(), 'wl-cluster-'));
    const processes = ports.map((port, index) =>
      spawn(
        'redis-server',
        [
          ...['--port', String(port), '--cluster-port', String(busPorts[index]), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
          ...['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--dir', folder],
        ],
        { stdio: 'ignore' },
      ),
    );
    const cluster = new ThrowawayCluster(ports, folder, processes);
    try {
      await Promise.all(ports.map((port) => waitFor(() => cluster.ask(port, 'PING').then((answer) => answer === 'PONG'), `redis-server on port ${port}`)));
      await promisify(execFile)('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-yes']);
      await Promise.all(ports.map((port) => waitFor(() => cluster.ask(port, 'CLUSTER', 'INFO').then((info) => info.includes('cluster_state:ok')), `the cluster as node ${port} sees it`)));
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** The keys matching `pattern` on each master, in the order of `ports`. */
  async keysByNode(pattern: string): Promise<string[][]> {
    return Promise.all(this.ports.map((port) => this.ask(port, 'KEYS', pattern).then((answer) => (answer ? answer.split('\n') : []))));
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.processes.filter((child) => child.exitCode === null).map((child) => new Promise((resolve) => child.once('exit', resolve).kill('SIGKILL'))),
    );
    await rm(this.folder, { recursive: true, force: true });
  }

  private async ask(port: number, ...command: string[]): Promise<string> {
    const { stdout } = await promisify(execFile)('redis-cli', ['-p', String(port), ...command]).catch(() => ({ stdout: '' }));
    return stdout.trim();
  }
}
