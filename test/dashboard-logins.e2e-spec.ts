import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { logIn, PASSWORD } from './support/dashboard';
import { Stack } from './support/stack';

/** How many answers of each status, e.g. { 401: 10, 429: 70 }. */
const tally = (statuses: number[]): Record<number, number> =>
  statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

describe('dashboard logins: ten checked guesses per address and per IP, however they arrive', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'] });
    for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com']) await stack.api.get(DashboardAuthService).createUser(email, PASSWORD, null);
  });
  afterAll(() => stack.stop());

  /** Each test guesses from an IP of its own, so that no test spends another's points. */
  const guesses = (count: number, email: (i: number) => string, ip: string) =>
    Promise.all(Array.from({ length: count }, async (_, i) => (await logIn(stack, email(i), `wrong guess ${i}!!`, ip)).response.status));

  it('80 parallel wrong passwords for one address from one IP: 10 are checked (401), the rest 429', async () => {
    expect(tally(await guesses(80, () => 'ada@example.com', '192.0.2.1'))).toEqual({ 401: 10, 429: 70 });
    // The address is spent from every IP now, the right password too.
    const limited = (await logIn(stack, 'ada@example.com', PASSWORD, '192.0.2.2')).response;
    expect([limited.status, limited.headers['retry-after']]).toEqual([429, expect.stringMatching(/^\d+$/)]);
  });

  it('80 parallel wrong passwords for 80 addresses from one IP: 10 are checked, the rest 429', async () => {
    expect(tally(await guesses(80, (i) => `someone-${i}@example.com`, '192.0.2.3'))).toEqual({ 401: 10, 429: 70 });
    expect((await logIn(stack, 'bob@example.com', PASSWORD, '192.0.2.3')).response.status).toBe(429);
    // Guesses refused at the IP's limit cost their address nothing: it still has its ten elsewhere.
    expect(tally(await guesses(10, () => 'bob@example.com', '192.0.2.3'))).toEqual({ 429: 10 });
    expect(tally(await guesses(12, () => 'bob@example.com', '192.0.2.4'))).toEqual({ 401: 10, 429: 2 });
  });

  it('the right password after failures signs in and gives back its point: ten failures still fit around it', async () => {
    const ip = '192.0.2.5';
    const fail = async (times: number) => {
      for (let i = 0; i < times; i++) expect((await logIn(stack, 'cy@example.com', `wrong ${i} password`, ip)).response.status).toBe(401);
    };
    await fail(3);
    const signedIn = await logIn(stack, 'cy@example.com', PASSWORD, ip);
    expect([signedIn.response.status, signedIn.response.headers.location, signedIn.cookie]).toEqual([303, '/dashboard', expect.stringMatching(/^wl_session=/)]);
    // Five parallel right passwords take five points at once and give them all back.
    expect(tally(await Promise.all(Array.from({ length: 5 }, async () => (await logIn(stack, 'cy@example.com', PASSWORD, ip)).response.status)))).toEqual({ 303: 5 });
    await fail(7);
    expect((await logIn(stack, 'cy@example.com', PASSWORD, ip)).response.status).toBe(429);
  });
});
