import { ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { waitFor } from './wait';

const ROOT = join(__dirname, '..', '..');
const READY_LINE = 'Waitlist is ready';

/** `npm start` as a terminal runs it: in a process group of its own, stopped by a Ctrl-C to that group. */
export class NpmStart {
  readonly output: string[] = [];
  /** When each chunk of `output` came, in milliseconds from the spawn. */
  private readonly outputMs: number[] = [];

  private constructor(
    readonly npm: ChildProcess,
    readonly base: string,
  ) {}

  /** In this checkout, or in the one at `cwd`. */
  static async start(env: NodeJS.ProcessEnv, port: number, cwd = ROOT): Promise<NpmStart> {
    const spawned = performance.now();
    const npm = spawn('npm', ['start'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const service = new NpmStart(npm, `http://127.0.0.1:${port}`);
    const hear = (chunk: Buffer) => {
      service.output.push(chunk.toString());
      service.outputMs.push(performance.now() - spawned);
    };
    npm.stdout!.on('data', hear);
    npm.stderr!.on('data', hear);
    try {
      await waitFor(() => service.said(READY_LINE) || !service.running, 'npm start to be ready', { timeoutMs: 90_000 });
    } catch (error) {
      // Nothing it started is left behind by a start that never got ready.
      if (service.running) await service.interrupt();
      throw new Error(`${(error as Error).message}: ${service.output.join('')}`);
    }
    if (!service.running) throw new Error(`npm start stopped: ${service.output.join('')}`);
    return service;
  }

  get running(): boolean {
    return this.npm.exitCode === null && this.npm.signalCode === null;
  }

  said(text: string): boolean {
    return this.output.join('').includes(text);
  }

  /** Milliseconds from the spawn until `text` came (timed as it arrived, not when a poll looked), or NaN. */
  saidAtMs(text: string): number {
    let heard = '';
    for (const [i, chunk] of this.output.entries()) {
      heard += chunk;
      if (heard.includes(text)) return this.outputMs[i];
    }
    return Number.NaN;
  }

  /** Milliseconds from the spawn until "Waitlist is ready". */
  get readyMs(): number {
    return this.saidAtMs(READY_LINE);
  }

  /** Every process npm start runs, found through their parents while it runs. */
  descendants(): number[] {
    return descendants(this.npm.pid!);
  }

  /** Ctrl-C as a terminal sends it: to every process of the foreground group; resolves with how long the stop took. */
  async interrupt(): Promise<number> {
    const started = performance.now();
    const exited = new Promise((resolve) => this.npm.once('exit', resolve));
    process.kill(-this.npm.pid!, 'SIGINT');
    await exited;
    return performance.now() - started;
  }

  fetch(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.base}${path}`, { redirect: 'manual', ...init });
  }
}

/** `root` and every process below it now, found through their parents in /proc. */
export function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc').filter((item) => /^\d+$/.test(item))) {
    try {
      // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, parent] of parents) if (parent === found[i]) found.push(pid);
  return found;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
