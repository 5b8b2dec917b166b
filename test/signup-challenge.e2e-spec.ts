import { Clock } from '@app/shared';
import type { Challenge } from '../apps/api/src/challenges/challenges.dto';
import { solved } from './support/challenges';
import { bearer, productWith } from './support/flows';
import { validatingFetch } from './support/openapi';
import { AppProcess } from './support/processes';
import { parseExposition, valueOf } from './support/prometheus';
import { Product, Stack } from './support/stack';
import { ThrowawayRedis } from './support/throwaway-redis';

const TOKEN = 'metrics-token-0123456789';
const ENV = { RATE_LIMIT_SIGNUP: '10000/1m', METRICS_TOKEN: TOKEN };

/** The public sign-up of a product whose sign-up challenge is on, against two api processes on one Redis. */
describe('the sign-up challenge', () => {
  let stack: Stack;
  let other: AppProcess;
  const fetchChecked = validatingFetch();

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: ENV });
    other = await AppProcess.start('api', stack.config, { env: ENV });
  }, 120_000);
  afterAll(async () => {
    await other?.stop();
    await stack?.stop();
  });

  const challengeFor = async (key: string): Promise<Challenge> => {
    const answer = await stack.request({ method: 'GET', url: `/public/v1/challenge?key=${key}` });
    expect([answer.status, answer.headers['access-control-allow-origin'], answer.headers['cache-control']]).toEqual([200, '*', 'no-store']);
    return answer.json();
  };
  const signUp = (body: Record<string, unknown>) => stack.request({ method: 'POST', url: '/public/v1/signups', body });
  const signUpAtOther = async (body: Record<string, unknown>) => {
    const answer = await fetchChecked(`${other.url}/public/v1/signups`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: answer.status, json: await answer.json() };
  };
  const refusedForChallenge = async () =>
    valueOf(parseExposition((await stack.request({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) })).text), 'waitlist_signups_refused_total', { reason: 'challenge' }) ?? 0;

  it('is off by default: a sign-up without one is taken, and the forms are told so', async () => {
    const product = await stack.createProduct();
    const key = product.keys.test.publishable;
    expect((await signUp({ key, email: 'plain@example.com', challenge: 'anything' })).status).toBe(202);
    expect((await stack.request({ method: 'GET', url: `/public/v1/forms/${key}` })).json().challenge).toBe('off');
    expect((await stack.request({ method: 'GET', url: `/w/${key}` })).text).not.toContain('challenge');
  });

  it('refuses a scripted client without the challenge, takes it with one once, and refuses the solution replayed on another api process', async () => {
    const product = await productWith(stack, { challengeMode: 'required', challengeDifficulty: 2000 });
    const key = product.keys.live.publishable;
    const refusedBefore = await refusedForChallenge();
    expect((await stack.request({ method: 'GET', url: `/public/v1/forms/${key}` })).json().challenge).toBe('required');

    // Without one, or with one that is not a solution: the same 400 for a new address, a known one and a bad one.
    expect((await signUp({ key, email: 'known@example.com', challenge: solved(await challengeFor(key)) })).status).toBe(202);
    const refusals = await Promise.all(
      [
        { key, email: 'new@example.com' },
        { key, email: 'known@example.com' },
        { key, email: 'not an address' },
        { key, email: 'new@example.com', challenge: 'bm90IGEgc29sdXRpb24=' },
        { key, email: 'new@example.com', challenge: 42 },
        { key, email: 'new@example.com', challenge: 'half\ud800' },
      ].map(signUp),
    );
    for (const answer of refusals) {
      expect([answer.status, answer.json()]).toEqual([400, { error: { code: 'challenge_failed', message: expect.any(String), param: 'challenge' } }]);
    }
    expect(new Set(refusals.map((answer) => answer.text)).size).toBe(1);

    // A wrong number for a real challenge.
    const challenge = await challengeFor(key);
    const payload = JSON.parse(Buffer.from(solved(challenge), 'base64').toString());
    const wrong = Buffer.from(JSON.stringify({ ...payload, number: payload.number + 1 })).toString('base64');
    expect((await signUp({ key, email: 'new@example.com', challenge: wrong })).json().error.code).toBe('challenge_failed');

    // Solved: taken once; the same solution at the other api process is refused.
    const solution = solved(challenge);
    expect((await signUp({ key, email: 'new@example.com', challenge: solution })).status).toBe(202);
    expect(await signUpAtOther({ key, email: 'another@example.com', challenge: solution })).toMatchObject({ status: 400, json: { error: { code: 'challenge_failed' } } });
    expect((await signUp({ key, email: 'another@example.com', challenge: solution })).status).toBe(400);
    // A challenge issued by one process is solved for any other.
    expect((await signUpAtOther({ key, email: 'another@example.com', challenge: solved(await challengeFor(key)) })).status).toBe(202);
    expect(await refusedForChallenge()).toBe(refusedBefore + 8);
    // Counted for the overview too, the other process's refusal with them.
    const [{ count }] = await stack.db.query(
      `SELECT COALESCE(sum(count), 0)::int AS count FROM daily_event_counts WHERE product_id = $1 AND mode = 'live' AND type = 'refused:challenge'`,
      [product.id],
    );
    expect(count).toBe(9);
  }, 60_000);

  it("refuses a solution of another product's or mode's challenge, which may be easier", async () => {
    const easy = await productWith(stack, { challengeMode: 'invisible', challengeDifficulty: 1000 });
    const hard: Product = await productWith(stack, { challengeMode: 'invisible' });
    for (const key of [hard.keys.live.publishable, easy.keys.test.publishable]) {
      const answer = await signUp({ key, email: 'swap@example.com', challenge: solved(await challengeFor(easy.keys.live.publishable)) });
      expect(answer.json().error.code).toBe('challenge_failed');
    }
  });

  it('refuses a solution after its challenge expired, 30 minutes after it was issued', async () => {
    const product = await productWith(stack, { challengeMode: 'invisible', challengeDifficulty: 1000 });
    const key = product.keys.test.publishable;
    const [late, inTime] = [solved(await challengeFor(key)), solved(await challengeFor(key))];
    const issued = Date.now();
    const clock = jest.spyOn(stack.api.get(Clock), 'now');
    try {
      clock.mockImplementation(() => new Date(issued + 29 * 60_000));
      expect((await signUp({ key, email: 'in-time@example.com', challenge: inTime })).status).toBe(202);
      clock.mockImplementation(() => new Date(issued + 31 * 60_000));
      expect((await signUp({ key, email: 'late@example.com', challenge: late })).json().error.code).toBe('challenge_failed');
    } finally {
      clock.mockRestore();
    }
  });

  it('issues challenges only for a known key, at the product\'s difficulty', async () => {
    const product = await productWith(stack, { challengeMode: 'invisible', challengeDifficulty: 3000 });
    expect((await challengeFor(product.keys.test.publishable)).maxnumber).toBe(3000);
    const unknown = await stack.request({ method: 'GET', url: '/public/v1/challenge?key=pk_test_unknown' });
    expect([unknown.status, unknown.json().error.code]).toEqual([401, 'unauthorized']);
    expect((await stack.request({ method: 'GET', url: '/public/v1/challenge' })).status).toBe(401);
  });

  it('a hosted form post without the challenge gets a page that says so', async () => {
    const product = await productWith(stack, { challengeMode: 'invisible' });
    const key = product.keys.test.publishable;
    const form = await stack.request({ method: 'GET', url: `/w/${key}` });
    expect(form.text).toContain('<script src="/challenge.js" defer></script>');
    expect(form.text).toContain('<noscript>');
    // Its policy allows our own script alone: nothing inline, no eval, nothing from elsewhere.
    expect(form.headers['content-security-policy']).toBe("default-src 'none';style-src 'unsafe-inline';img-src 'self';form-action 'self';base-uri 'none';script-src 'self';connect-src 'self'");
    const script = await stack.request({ method: 'GET', url: '/challenge.js' });
    expect([script.status, script.headers['content-type'], script.text.includes('function solve(challenge)')]).toEqual([200, 'text/javascript; charset=utf-8', true]);
    const posted = await stack.request({
      method: 'POST',
      url: '/public/v1/signups',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ key, email: 'nojs@example.com' }).toString(),
    });
    expect([posted.status, posted.headers['content-type']]).toEqual([400, 'text/html; charset=utf-8']);
  });
});

describe('the sign-up challenge while Redis is away', () => {
  let redis: ThrowawayRedis;
  let stack: Stack;

  beforeAll(async () => {
    redis = await ThrowawayRedis.start();
    stack = await Stack.start({ apps: ['api'], env: { REDIS_URL: redis.url } });
  }, 60_000);
  afterAll(async () => {
    await redis.up();
    await stack?.stop();
    await redis.down();
  });

  it('sign-ups go on, and this process still refuses a solution it took', async () => {
    const product = await productWith(stack, { challengeMode: 'required', challengeDifficulty: 1000 });
    const key = product.keys.test.publishable;
    const challenge = (await stack.request({ method: 'GET', url: `/public/v1/challenge?key=${key}` })).json() as Challenge;
    await redis.down();
    const solution = solved(challenge);
    const signUp = (email: string) => stack.request({ method: 'POST', url: '/public/v1/signups', body: { key, email, challenge: solution } });
    expect((await signUp('first@example.com')).status).toBe(202);
    expect((await signUp('again@example.com')).json().error.code).toBe('challenge_failed');
  }, 60_000);
});
