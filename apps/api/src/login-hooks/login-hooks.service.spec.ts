import { AppConfig, Clock, LoginHook, SecretBox } from '@app/shared';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { InviteCodesService } from '../invitations/invite-codes.service';
import { HOOK_BUDGET_MS, LOGIN_HOOK_SECRETS, LoginHooksService } from './login-hooks.service';
import { LOGIN_SYSTEMS, REFUSALS } from './login-systems';

// The promise is an answer within a second. The wall clock of a busy test machine cannot hold a test
// to that, so this holds the mechanism to it: on a fake clock the answer comes at the budget, not after.
describe('a sign-up hook whose database does not answer', () => {
  const key = randomBytes(32);
  const secret = 'lhsec_the-hooks-own-secret';
  const never = () => new Promise<never>(() => undefined);
  const row = (failOpen: boolean): LoginHook =>
    ({ id: 'lh_0123456789abcdef01234567', productId: 'p', mode: 'live', provider: 'kratos', secret: new SecretBox([key], LOGIN_HOOK_SECRETS).seal(secret), failOpen, createdAt: new Date(), revokedAt: null }) as LoginHook;

  function service(read: () => Promise<LoginHook | null>, invited: () => Promise<{ invited: boolean }>) {
    const db = { getRepository: () => ({ findOneBy: read }) } as unknown as DataSource;
    const codes = { isInvited: invited } as unknown as InviteCodesService;
    return new LoginHooksService(db, { ENCRYPTION_KEY: [key], PUBLIC_BASE_URL: 'http://localhost' } as AppConfig, new Clock(), codes);
  }

  /** Calls the hook and tells how many fake milliseconds its answer took. */
  async function answerTime(hooks: LoginHooksService) {
    let answer: unknown;
    void hooks
      .check(LOGIN_SYSTEMS.kratos, 'lh_0123456789abcdef01234567', { headers: { authorization: `Bearer ${secret}` }, rawBody: undefined, body: { email: 'someone@example.com' } })
      .then((given) => (answer = given));
    for (let ms = 0; ms <= 2000; ms++) {
      await jest.advanceTimersByTimeAsync(ms === 0 ? 0 : 1);
      if (answer) return { ms, answer };
    }
    throw new Error('no answer within two seconds of the fake clock');
  }

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('leaves the answer room within a second', () => {
    expect(HOOK_BUDGET_MS).toBeLessThanOrEqual(800);
  });

  it('refuses at the budget when the check hangs and the hook fails closed', async () => {
    const { ms, answer } = await answerTime(service(async () => row(false), never));
    expect(ms).toBe(HOOK_BUDGET_MS);
    expect(answer).toEqual({ status: 403, body: expect.objectContaining({ messages: [expect.objectContaining({ messages: [expect.objectContaining({ text: REFUSALS.unavailable })] })] }) });
  });

  it('lets through at the budget when the check hangs and the hook fails open', async () => {
    expect(await answerTime(service(async () => row(true), never))).toEqual({ ms: HOOK_BUDGET_MS, answer: { status: 200, body: {} } });
  });

  it('counts the hook’s own slow read against the same budget', async () => {
    const slowRead = () => new Promise<LoginHook>((resolve) => setTimeout(() => resolve(row(true)), 500));
    expect((await answerTime(service(slowRead, never))).ms).toBe(HOOK_BUDGET_MS);
  });

  it('refuses at the budget a hook it cannot read and never read before', async () => {
    const { ms, answer } = await answerTime(service(never, never));
    expect(ms).toBe(HOOK_BUDGET_MS);
    expect(JSON.stringify(answer)).toContain(REFUSALS.unavailable);
  });
});
