import type { AppConfig } from '@app/shared';
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { AppName } from './stack';
import { freePort } from './throwaway-redis';
import { waitFor } from './wait';

/**
 * One app of the stack as a real process of its own (built in dist/), for tests that kill it with
 * SIGKILL. It answers /healthz on `port` once it has started.
 */
export class AppProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(name: AppName, config: AppConfig): Promise<AppProcess> {
    const port = await freePort();
    const child = spawn('node', [join(__dirname, '..', '..', 'dist', 'apps', name, 'src', 'main.js')], {
      env: {
        PATH: process.env.PATH,
        [name === 'api' ? 'PORT' : 'HEALTH_PORT']: String(port),
        DATABASE_URL: config.DATABASE_URL,
        REDIS_URL: config.REDIS_URL,
        QUEUE_PREFIX: config.QUEUE_PREFIX,
        SMTP_URL: config.SMTP_URL,
        LOG_LEVEL: 'silent',
      },
      stdio: 'ignore',
    });
    const app = new AppProcess(child, port);
    await waitFor(() => fetch(`${app.url}/healthz`).then((response) => response.ok, () => false), `the ${name} process to start`);
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
    if (!this.running) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
  }
}
