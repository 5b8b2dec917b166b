import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { Challenge } from '../apps/api/src/challenges/challenges.dto';
import { solved } from '../test/support/challenges';
import { AppProcess } from '../test/support/processes';
import { Stack } from '../test/support/stack';
import { alternate, atLeast, Measure, perSecond, report } from './support/harness';

const SIGNUPS = Number(process.env.BENCH_CHALLENGE_SIGNUPS ?? 5_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP = 300;
/** Requests in flight at once, each on its own connection, as many browsers posting the form. */
const CONCURRENCY = 50;
const ROOT = join(__dirname, '..');
const LIMITS = { RATE_LIMIT_SIGNUP: '10000000/1m', RATE_LIMIT_SIGNUP_ADDRESS: '5/1h' };

/**
 * Public sign-ups per second with the sign-up challenge verified (a product whose challenge is
 * required, each sign-up with a solution of its own) next to the same sign-ups of a product whose
 * challenge is off, in the same run, against the same api process. The solving is the client's: every
 * solution is fetched and solved before the clock runs (at the lowest difficulty, since the api's check
 * is one SHA-256 and one HMAC whatever the difficulty); the clock runs from the first request to the last answer.
 */
describe('public sign-ups with the sign-up challenge', () => {
  let stack: Stack;
  let api: AppProcess;
  const keys = { off: '', required: '' };
  let round = 0;

  beforeAll(async () => {
    stack = await Stack.start({ apps: [], env: LIMITS });
    const env = { PATH: process.env.PATH, DATABASE_URL: stack.config.DATABASE_URL, REDIS_URL: stack.config.REDIS_URL, QUEUE_PREFIX: stack.config.QUEUE_PREFIX };
    const cli = (...args: string[]) => JSON.parse(execFileSync('node', ['dist/apps/api/src/cli/main.js', ...args, '--json'], { cwd: ROOT, env }).toString());
    keys.off = cli('products', 'create', '--name', 'Open').keys.test.publishable;
    const guarded = cli('products', 'create', '--name', 'Guarded');
    cli('products', 'update', '--product', guarded.id, '--challenge-mode', 'required', '--challenge-difficulty', '1000');
    keys.required = guarded.keys.test.publishable;
    api = await AppProcess.start('api', stack.config, { env: LIMITS });
  }, 120_000);
  afterAll(async () => {
    await api?.stop();
    await stack?.stop();
  });

  /** `count` solutions for the guarded product, as browsers would bring them. */
  async function solutions(count: number): Promise<string[]> {
    const pool = new Pool(api.url, { connections: CONCURRENCY });
    const found = await Promise.all(
      Array.from({ length: count }, async () => {
        const answer = await pool.request({ method: 'GET', path: `/public/v1/challenge?key=${keys.required}` });
        return solved((await answer.body.json()) as Challenge);
      }),
    );
    await pool.close();
    return found;
  }

  /** Signs up `count` new addresses `CONCURRENCY` at a time, each with its solution when given; every answer a 202. */
  async function signUps(key: string, count: number, challenges?: string[]): Promise<Measure> {
    const prefix = `r${round++}-`;
    const pool = new Pool(api.url, { connections: CONCURRENCY });
    const start = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < count; i = next++) {
          const body = JSON.stringify({ key, email: `${prefix}${i}@example.com`, challenge: challenges?.[i] });
          const response = await pool.request({ method: 'POST', path: '/public/v1/signups', headers: { 'content-type': 'application/json' }, body });
          const text = await response.body.text();
          if (response.statusCode !== 202) throw new Error(`A sign-up answered ${response.statusCode}: ${text}`);
        }
      }),
    );
    const ms = performance.now() - start;
    await pool.close();
    process.stdout.write(`${challenges ? 'challenge' : 'off      '} ${count} sign-ups answered in ${(ms / 1000).toFixed(2)} s, ${perSecond((count / ms) * 1000)}\n`);
    return { kind: 'rate', perSecond: (count / ms) * 1000 };
  }

  it(`reports ${SIGNUPS.toLocaleString('en-US')} sign-ups per second with the challenge verified against the same sign-ups without it`, async () => {
    const prepared: string[][] = [];
    for (let i = 0; i <= ROUNDS; i++) prepared.push(await solutions(i === 0 ? WARM_UP : SIGNUPS));
    await signUps(keys.off, WARM_UP);
    await signUps(keys.required, WARM_UP, prepared.shift());

    const result = await alternate(ROUNDS, () => signUps(keys.off, SIGNUPS), () => signUps(keys.required, SIGNUPS, prepared.shift()));
    report({
      work: `public sign-up with the challenge verified (each solution once, a Redis SET NX), ${SIGNUPS.toLocaleString('en-US')} sign-ups, ${CONCURRENCY} connections`,
      baseline: 'the same sign-ups of a product whose challenge is off, same api process',
      baselineValue: perSecond(result.baseline),
      serviceValue: perSecond(result.service),
      ...atLeast(result.ratio, 0.9),
    });
  }, 1_800_000);
});
