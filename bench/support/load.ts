import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

/** `count` runs of `work`, `concurrency` at a time, each runner taking the next index when it is free. */
export async function inParallel(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await work(i);
    }),
  );
}

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The value below which a share `p` (0 … 1) of the values lie (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/**
 * Sends `count` requests, `concurrency` at a time, each on its own connection to `origin` (as many
 * browsers or clients), and fails on any answer other than `status`. Each request's latency in ms, by index.
 */
export async function load(origin: string, count: number, concurrency: number, request: (i: number) => Request, status: number): Promise<number[]> {
  const pool = new Pool(origin, { connections: concurrency });
  const latencies: number[] = new Array(count);
  try {
    await inParallel(count, concurrency, async (i) => {
      const { method, path, body, headers } = request(i);
      const start = performance.now();
      const response = await pool.request({
        method,
        path,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.body.text();
      latencies[i] = performance.now() - start;
      if (response.statusCode !== status) throw new Error(`${method} ${path} answered ${response.statusCode}: ${text}`);
    });
  } finally {
    await pool.close();
  }
  return latencies;
}
