import { EntryRecord, EventRecord, redisOptions } from '@app/shared';
import Redis from 'ioredis';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { SignupPace, SignupWrite } from '../apps/api/src/signups/signup-pace';
import { joinLine, signUp } from './support/flows';
import { Stack } from './support/stack';
import { waitFor } from './support/wait';

describe('sign-up limits', () => {
  let stack: Stack;
  let pk: string;

  beforeAll(async () => {
    stack = await Stack.start({
      apps: ['api', 'mailer'],
      env: { RATE_LIMIT_SIGNUP: '4/1m', RATE_LIMIT_SIGNUP_ADDRESS: '2/1h' },
    });
    pk = (await stack.createProduct()).keys.live.publishable;
  });
  afterAll(() => stack.stop());

  it('a pending address gets at most RATE_LIMIT_SIGNUP_ADDRESS mails; further sign-ups answer the same', async () => {
    for (let i = 0; i < 3; i++) await signUp(stack, pk, 'flood@example.com');
    await stack.mail.waitFor('flood@example.com', 2);
    await signUp(stack, pk, 'after-flood@example.com');
    await stack.mail.waitFor('after-flood@example.com');
    expect(stack.mail.to('flood@example.com')).toHaveLength(2);
  });

  it('Redis holds no address: the per-address and login limits are kept under a keyed hash of it', async () => {
    await expect(stack.api.get(DashboardAuthService).logIn('flood@example.com', 'not the password', '198.51.100.7')).rejects.toMatchObject({ code: 'unauthorized' });
    const redis = new Redis(redisOptions(stack.config.REDIS_URL));
    try {
      const keys: string[] = [];
      for await (const batch of redis.scanStream({ match: `${stack.config.QUEUE_PREFIX}:rl:*` }) as AsyncIterable<string[]>) keys.push(...batch);
      expect(keys.filter((key) => key.includes(':rl:signup-address:'))).toHaveLength(2);
      expect(keys.filter((key) => key.includes(':rl:login:email:'))).toHaveLength(1);
      expect(keys.filter((key) => /flood|@/.test(key))).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });

  it('sign-ups from one IP over RATE_LIMIT_SIGNUP get 429 with Retry-After in whole seconds', async () => {
    const response = await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: pk, email: 'late@example.com' } });
    expect(response.status).toBe(429);
    expect(response.json().error.code).toBe('rate_limited');
    expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(await stack.db.getRepository(EntryRecord).findOneBy({ email: 'late@example.com' })).toBeNull();
  });
});

describe('sign-up limits per address variant', () => {
  let stack: Stack;
  let pk: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m', RATE_LIMIT_SIGNUP_ADDRESS: '2/1h' } });
    pk = (await stack.createProduct()).keys.live.publishable;
  });
  afterAll(() => stack.stop());

  it('plus-tag and Gmail dot variants share one address’s RATE_LIMIT_SIGNUP_ADDRESS mails', async () => {
    const variants = ['flood@gmail.com', 'flood+r1@gmail.com', 'f.l.o.o.d@googlemail.com', 'flood+r3@gmail.com'];
    for (const email of variants) await signUp(stack, pk, email);
    const mailed = () => stack.mail.mails.filter((mail) => variants.includes(mail.to));
    await waitFor(() => mailed().length >= 2, 'two confirmation mails');
    await signUp(stack, pk, 'after-flood@gmail.com');
    await stack.mail.waitFor('after-flood@gmail.com');
    expect(mailed().map((mail) => mail.to).sort()).toEqual(variants.slice(0, 2).sort());
    // Every variant is on the list as typed.
    expect(await stack.db.getRepository(EntryRecord).countBy({ state: 'pending' })).toBe(5);
  });

  it('createdAt moves with each confirmation mail a repeated sign-up is sent, and stays when none is', async () => {
    const createdAt = async () => (await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'stamp@example.com' })).createdAt.getTime();
    await signUp(stack, pk, 'stamp@example.com');
    await stack.mail.waitFor('stamp@example.com');
    const first = await createdAt();
    await signUp(stack, pk, 'stamp@example.com');
    await stack.mail.waitFor('stamp@example.com', 2);
    const second = await createdAt();
    expect(second).toBeGreaterThan(first);
    // The address has had its RATE_LIMIT_SIGNUP_ADDRESS mails: no mail, and no new createdAt.
    await signUp(stack, pk, 'stamp@example.com');
    expect(await createdAt()).toBe(second);
    await signUp(stack, pk, 'after-stamp@example.com');
    await stack.mail.waitFor('after-stamp@example.com');
    expect(stack.mail.to('stamp@example.com')).toHaveLength(2);
  });

  it('sign-ups of a confirmed address take none of its mailbox’s RATE_LIMIT_SIGNUP_ADDRESS mails', async () => {
    await joinLine(stack, pk, 'kept@gmail.com');
    for (let i = 0; i < 3; i++) await signUp(stack, pk, 'kept@gmail.com');
    await signUp(stack, pk, 'kept+again@gmail.com');
    await stack.mail.waitFor('kept+again@gmail.com');
    expect(stack.mail.to('kept@gmail.com')).toHaveLength(1);
  });
});

describe('pending entries', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { PENDING_ENTRY_TTL: '1s', MAINTENANCE_INTERVAL: '100ms' } });
  });
  afterAll(() => stack.stop());

  it('are deleted after PENDING_ENTRY_TTL without an event; confirmed ones stay', async () => {
    const pk = (await stack.createProduct()).keys.test.publishable;
    const kept = await joinLine(stack, pk, 'kept@example.com');
    await signUp(stack, pk, 'forgotten@example.com');
    const eventsBefore = await stack.db.getRepository(EventRecord).count();
    const entries = stack.db.getRepository(EntryRecord);
    await waitFor(async () => (await entries.findOneBy({ email: 'forgotten@example.com' })) === null, 'the purge');
    expect(await entries.findOneBy({ id: kept.id })).not.toBeNull();
    expect(await stack.db.getRepository(EventRecord).count()).toBe(eventsBefore);
    // The mail says how long an unconfirmed address stays, as configured.
    expect((await stack.mail.waitFor('forgotten@example.com')).text).toContain('without confirmation the address is removed in 1 second.');
  });
});

/**
 * The sign-up's answer waits for SignupPace (apps/api/src/signups/signup-pace.ts), told what the
 * sign-up wrote, so that a known address answers as late as a new one. The pace's arithmetic is tested
 * on a fake clock beside it; the real gap is measured in bench/signup-timing.bench.ts.
 */
describe('sign-up timing', () => {
  let stack: Stack;
  let pk: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'] });
    pk = (await stack.createProduct()).keys.test.publishable;
  });
  afterAll(() => stack.stop());

  it('every sign-up answers only once its pace, told what it wrote, lets it', async () => {
    await joinLine(stack, pk, 'known@example.com');
    await signUp(stack, pk, 'pending@example.com');
    const told: SignupWrite[] = [];
    let release!: () => void;
    const start = SignupPace.prototype.start;
    const held = jest.spyOn(SignupPace.prototype, 'start').mockImplementation(function (this: SignupPace) {
      const answer = start.call(this);
      return async (write) => {
        told.push(write);
        await new Promise<void>((resolve) => (release = resolve));
        return answer(write);
      };
    });
    try {
      for (const [email, write] of [['new@example.com', 'created'], ['pending@example.com', 'mailed'], ['known@example.com', 'unchanged']] as const) {
        let answered = false;
        const response = signUp(stack, pk, email).then(() => (answered = true));
        await waitFor(() => told.length > 0, `the pace of ${email}'s sign-up`);
        expect([told.shift(), answered]).toEqual([write, false]);
        release();
        await response;
      }
    } finally {
      held.mockRestore();
    }
  });
});
