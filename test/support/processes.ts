import type { AppConfig } from '@app/shared';
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { scripts } from '../../package.json';
import { AppName } from './stack';
import { freePort } from './throwaway-redis';
import { waitFor } from './wait';

/**
 * One app of the stack as a real process of its own (built in dist/), for tests that kill it with
 * SIGKILL. It answers /healthz on `port` once it has started.
 */
export class AppProcess {
  /** What it wrote to stdout and stderr, when started with `capture`. */
  readonly output: string[] = [];

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {}

  /** `env`: variables beyond the config's connections (e.g. rate limits); `nodeArgs`: e.g. --cpu-prof. */
  static async start(name: AppName, config: AppConfig, options: { env?: Record<string, string>; nodeArgs?: string[]; capture?: boolean } = {}): Promise<AppProcess> {
    const port = await freePort();
    // As its start script runs it (the workers' heap limits are there), with the test's own node arguments first.
    const [node, ...args] = scripts[`start:${name}`].split(' ');
    const child = spawn(node, [...(options.nodeArgs ?? []), ...args], {
      cwd: join(__dirname, '..', '..'),
      env: {
        PATH: process.env.PATH,
        [name === 'api' ? 'PORT' : 'HEALTH_PORT']: String(port),
        DATABASE_URL: config.DATABASE_URL,
        REDIS_URL: config.REDIS_URL,
        QUEUE_PREFIX: config.QUEUE_PREFIX,
        SMTP_URL: config.SMTP_URL,
        LOG_LEVEL: 'silent',
        ...options.env,
      },
      stdio: ['ignore', options.capture ? 'pipe' : 'ignore', options.capture ? 'pipe' : 'ignore'],
    });
    const app = new AppProcess(child, port);
    for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => app.output.push(chunk.toString()));
    // A loaded machine (other test files starting processes too) can take many seconds; one that exited will not start.
    await waitFor(
      () => {
        if (!app.running) throw new Error(`The ${name} process exited (${child.exitCode ?? child.signalCode}) before it started`);
        return fetch(`${app.url}/healthz`).then((response) => response.ok, () => false);
      },
      `the ${name} process to start`,
      { timeoutMs: 60_000 },
    );
    return app;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** kill -9, resolved once the process is gone. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  /** A graceful stop (SIGTERM), resolved once the process is gone; a --cpu-prof profile is written then. */
  async stop(): Promise<void> {
    await this.signal('SIGTERM');
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    if (!this.running) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill(signal);
    await exited;
  }
}
