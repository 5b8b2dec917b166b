import { performance } from 'node:perf_hooks';
import { joinLine, signUp } from '../test/support/flows';
import { Stack } from '../test/support/stack';
import { median, report } from './support/harness';

/** Measurements of 4 × SAMPLES sign-ups each (BENCH_TIMING_ROUNDS, BENCH_TIMING_SAMPLES while iterating). */
const ROUNDS = Number(process.env.BENCH_TIMING_ROUNDS ?? 7);
const SAMPLES = Number(process.env.BENCH_TIMING_SAMPLES ?? 60);
/** A known address may answer this share sooner or later than a new one: issue 27's gap was 19 %. */
const BOUND = 0.15;

/**
 * Whether a sign-up tells by its answer time if the address is on the list already: a sign-up of a
 * confirmed address, and of a pending one (which gets a second mail), each against the two sign-ups of
 * new addresses around it, so that what the machine does meanwhile falls on both alike. The api runs in
 * the jest process, the mailer is stopped (no mail work on the api's machine while it answers).
 */
describe('sign-up timing', () => {
  let stack: Stack;
  let pk: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '100000/1m' } });
    pk = (await stack.createProduct()).keys.test.publishable;
  });
  afterAll(() => stack.stop());

  it('a sign-up of an address on the list takes as long as one of a new address', async () => {
    for (let i = 0; i < SAMPLES; i++) await joinLine(stack, pk, `confirmed-${i}@example.com`);
    for (let i = 0; i < SAMPLES; i++) await signUp(stack, pk, `pending-${i}@example.com`);
    await stack.stopApp('mailer');
    // 64 rounds: every kind's window of SignupPace (its last 64) then holds only these conditions.
    for (let i = 0; i < 64; i++) for (const email of [`warm-${i}@example.com`, `confirmed-${i % SAMPLES}@example.com`, `warm-b${i}@example.com`, `pending-${i % SAMPLES}@example.com`]) await signUp(stack, pk, email);

    const cpuBefore = process.cpuUsage();
    const measure = async (attempt: number) => {
      const timings: Record<'new' | 'pending' | 'confirmed', number[]> = { new: [], pending: [], confirmed: [] };
      const timed = async (kind: keyof typeof timings, email: string) => {
        const started = performance.now();
        await signUp(stack, pk, email);
        timings[kind].push(performance.now() - started);
      };
      for (let i = 0; i < SAMPLES; i++) {
        await timed('new', `new-${attempt}-${i}@example.com`);
        await timed('confirmed', `confirmed-${i}@example.com`);
        await timed('new', `new-b${attempt}-${i}@example.com`);
        await timed('pending', `pending-${i}@example.com`);
      }
      // Each known sign-up against the two new ones around it, as a trimmed mean: robust to the odd slow
      // sign-up, as an observer's estimate would be (SignupPace pads each known one by the difference,
      // so its median moves as much as its mean).
      const paired = (kind: 'pending' | 'confirmed') => trimmedMean(timings[kind].map((ms, i) => ms - (timings.new[2 * i] + timings.new[2 * i + 1]) / 2));
      return { newMs: median(timings.new), pending: paired('pending'), confirmed: paired('confirmed') };
    };
    const results: Awaited<ReturnType<typeof measure>>[] = [];
    for (let attempt = 0; attempt < ROUNDS; attempt++) results.push(await measure(attempt));
    const cpu = process.cpuUsage(cpuBefore);
    const cpuPerSignup = (cpu.user + cpu.system) / (ROUNDS * SAMPLES * 4);

    const newMs = median(results.map((result) => result.newMs));
    for (const kind of ['confirmed', 'pending'] as const) {
      // The median across measurements of each one's gap over its new sign-ups' median time.
      const gap = median(results.map((result) => result[kind] / result.newMs));
      report({
        work: `sign-up of a ${kind} address, answer time, ${ROUNDS} × ${SAMPLES} paired with new ones`,
        baseline: 'sign-ups of new addresses around it',
        baselineValue: `${newMs.toFixed(2)} ms`,
        serviceValue: `${(newMs * (1 + gap)).toFixed(2)} ms`,
        ratio: 1 + gap,
        target: `${1 - BOUND}–${1 + BOUND}×`,
        pass: Math.abs(gap) < BOUND,
        note: `${kind}: gap ${(100 * gap).toFixed(1)} % per measurement ${results.map((result) => `${((100 * result[kind]) / result.newMs).toFixed(1)}`).join(', ')}; CPU of the jest process (api, test client, SMTP sink) ${Math.round(cpuPerSignup)} µs per sign-up`,
      });
    }
  });
});

/** The mean of the middle 60 %: the tails a busy machine adds at either end left out. */
function trimmedMean(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const kept = sorted.slice(Math.floor(sorted.length * 0.2), Math.ceil(sorted.length * 0.8));
  return kept.reduce((sum, value) => sum + value, 0) / kept.length;
}
