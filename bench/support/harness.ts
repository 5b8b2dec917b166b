import type { AppConfig } from '@app/shared';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort } from '../../test/support/throwaway-redis';
import { waitFor } from '../../test/support/wait';

/** What a benchmark measures: a time (lower is better) or a rate (higher is better). */
export type Measure = { kind: 'time'; ms: number } | { kind: 'rate'; perSecond: number };

export interface Row {
  work: string;
  baseline: string;
  /** The baseline's and the service's medians, as the table prints them (e.g. "1.9 s", "8,400/s"). */
  baselineValue: string;
  serviceValue: string;
  /** The service's cost over the baseline's: time ÷ time, or rate ÷ rate, as the target is written. */
  ratio: number;
  /** The target as the issue writes it, e.g. "≤ 1.5×" or "≥ 0.85×". */
  target: string;
  pass: boolean;
  /** Anything else worth a line under the table (e.g. RSS), or nothing. */
  note?: string;
}

/** Adds a row to the table `npm run bench` prints at the end (bench/support/table-reporter.js). */
export function report(row: Row): void {
  const file = process.env.BENCH_RESULTS;
  if (!file) throw new Error('No results file: run the benchmarks through `npm run bench`');
  appendFileSync(file, `${JSON.stringify(row)}\n`);
}

/** Issue 37's rule for its rows: a target holds on the median of at least five alternating rounds. */
export const TARGET_ROUNDS = 5;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Milliseconds `work` takes. */
export async function timed(work: () => Promise<unknown>): Promise<Measure> {
  const start = performance.now();
  await work();
  return { kind: 'time', ms: performance.now() - start };
}

export interface Rounds {
  baseline: number;
  service: number;
  /** service ÷ baseline of the medians (times or rates alike). */
  ratio: number;
}

/**
 * Runs baseline and service alternately (A B A B …), `rounds` times each, and compares their medians:
 * alternating spreads the machine's noise over both sides.
 */
export async function alternate(rounds: number, baseline: () => Promise<Measure>, service: () => Promise<Measure>): Promise<Rounds> {
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < rounds; round++) {
    a.push(value(await baseline()));
    b.push(value(await service()));
  }
  const [baselineMedian, serviceMedian] = [median(a), median(b)];
  return { baseline: baselineMedian, service: serviceMedian, ratio: serviceMedian / baselineMedian };
}

/** alternate over any number of sides (A B C A B C …): each side's median, by name. */
export async function alternateAll<Side extends string>(rounds: number, sides: Record<Side, () => Promise<Measure>>): Promise<Record<Side, number>> {
  const values = Object.fromEntries(Object.keys(sides).map((side) => [side, [] as number[]])) as Record<Side, number[]>;
  for (let round = 0; round < rounds; round++) {
    for (const side of Object.keys(sides) as Side[]) values[side].push(value(await sides[side]()));
  }
  return Object.fromEntries(Object.entries<number[]>(values).map(([side, measured]) => [side, median(measured)])) as Record<Side, number>;
}

const value = (measure: Measure) => (measure.kind === 'time' ? measure.ms : measure.perSecond);

/** A ratio's target that may be at most `bound` (times, costs): the row's ratio, target and verdict. */
export const atMost = (ratio: number, bound: number) => ({ ratio, target: `≤ ${bound}×`, pass: ratio <= bound });

/** A ratio's target that must be at least `bound` (rates): the row's ratio, target and verdict. */
export const atLeast = (ratio: number, bound: number) => ({ ratio, target: `≥ ${bound}×`, pass: ratio >= bound });

/**
 * A time whose target is a number of seconds rather than a ratio (the issue asks for seconds): the
 * row's ratio still shows the time over its baseline's, what the service adds to it.
 */
export const withinSeconds = (ms: number, baselineMs: number, markSeconds: number) => ({
  ratio: ms / baselineMs,
  target: `≤ ${markSeconds} s`,
  pass: ms <= markSeconds * 1000,
});

export const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
export const perSecond = (rate: number) => `${Math.round(rate).toLocaleString('en-US')}/s`;

/** Stops a baseline's process with SIGTERM and waits for it to exit (so that a --cpu-prof profile gets written). */
export async function stopBaseline(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** The CPU time (user and system) a process has used so far, in ms: /proc counts it in ticks of 10 ms. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A process's resident memory now, in MB. */
function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** A row for a process's resident memory now, against its mark. */
export function reportMemory(work: string, pid: number, markMb: number, note: string): void {
  reportMegabytes(work, rssMb(pid), markMb, note);
}

/** A row for an amount of memory measured by the benchmark, against its mark. */
export function reportMegabytes(work: string, mb: number, markMb: number, note: string): void {
  report({
    work,
    baseline: 'the mark',
    baselineValue: `${markMb} MB`,
    serviceValue: `${Math.round(mb)} MB`,
    ratio: mb / markMb,
    target: `≤ ${markMb} MB`,
    pass: mb <= markMb,
    note: `${note}: ${Math.round(mb)} MB`,
  });
}

const ROOT = join(__dirname, '..', '..');

/**
 * The heap flags an app's start script runs it with (package.json): a baseline that stands for that
 * app's work runs under them too, so that both sides work in the same memory (the bounds are work the
 * operator asks of the app: its resident memory mark).
 */
export function heapBoundsOf(app: 'mailer' | 'webhooks'): string[] {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return scripts[`start:${app}`].split(' ').filter((word) => word.startsWith('--max-'));
}

/** Compiles bench/baseline beside the apps in dist/: the baselines run as compiled child processes. */
export function compileBaselines(): void {
  execFileSync('npx', ['swc', 'bench/baseline', '-d', 'dist', '--config-file', '.swcrc', '--quiet'], { cwd: ROOT });
}

/** The service's CLI (dist/) on the stack's database and Redis, its --json answer parsed. */
export function cliOf(config: AppConfig, env: Record<string, string> = {}) {
  const cliEnv = { PATH: process.env.PATH, DATABASE_URL: config.DATABASE_URL, REDIS_URL: config.REDIS_URL, QUEUE_PREFIX: config.QUEUE_PREFIX, ...env };
  return (...args: string[]) => JSON.parse(execFileSync('node', ['dist/apps/api/src/cli/main.js', ...args, '--json'], { cwd: ROOT, env: cliEnv }).toString());
}

/**
 * bench/baseline/signups-server.ts as a child process on a free port (compileBaselines first): the
 * bare sign-up, and the launch-day benchmark's bare confirmation and invitation routes; or another
 * server of bench/baseline (`file`, e.g. durable-signups-server.js) with `env` added.
 */
export async function startSignupsServer(
  config: AppConfig,
  nodeArgs: string[] = [],
  { file = 'signups-server.js', env = {} }: { file?: string; env?: Record<string, string> } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn('node', [...nodeArgs, join(ROOT, 'dist/bench/baseline', file)], {
    env: { PATH: process.env.PATH, PORT: String(port), DATABASE_URL: config.DATABASE_URL, SMTP_URL: config.SMTP_URL, PUBLIC_BASE_URL: config.PUBLIC_BASE_URL, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await waitFor(() => fetch(`${url}/healthz`).then((response) => response.ok, () => false), 'the baseline server to start', { timeoutMs: 60_000 });
  return { child, url };
}
