import { EntryRecord } from '@app/shared';
import { bearer, confirmPath, joinLine, productWith, signUp } from './support/flows';
import { Ipv6Hosts } from './support/ipv6-hosts';
import { AppProcess } from './support/processes';
import { Stack } from './support/stack';

/** The api as its start script runs it, on the machine's real network stack. */
describe('the api on IPv6', () => {
  let stack: Stack;
  const apis: AppProcess[] = [];
  const startApi = async (env: Record<string, string> = {}) => {
    const api = await AppProcess.start('api', stack.config, { env: { RATE_LIMIT_SIGNUP: '1000/1m', ...env } });
    apis.push(api);
    return api;
  };

  beforeAll(async () => (stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } })));
  afterEach(async () => {
    await Promise.all(apis.splice(0).map((api) => api.stop()));
  });
  afterAll(() => stack.stop());

  const healthz = (host: string, port: number) => fetch(`http://${host}:${port}/healthz`).then((response) => response.status, (error: Error) => (error.cause as { code?: string })?.code ?? error.message);

  it('answers on IPv6 and IPv4 alike where the host has IPv6', async () => {
    const api = await startApi();
    expect(await healthz('[::1]', api.port)).toBe(200);
    expect(await healthz('127.0.0.1', api.port)).toBe(200);
  });

  it('HOST narrows it to one address', async () => {
    const api = await startApi({ HOST: '127.0.0.1' });
    expect(await healthz('127.0.0.1', api.port)).toBe(200);
    expect(await healthz('[::1]', api.port)).toBe('ECONNREFUSED');
  });

  it('a farm of referrals confirmed from one IPv6 /64, straight to the api, is one network for the velocity rule', async () => {
    const farm = [1, 2, 3, 4].map((i) => `fd00:38:1::${i}`);
    const elsewhere = 'fd00:38:2::1';
    const hosts = await Ipv6Hosts.create([...farm, elsewhere]);
    try {
      const product = await productWith(stack, { referralProtection: 'standard', velocityLimit: 3, tooFastSeconds: 0 });
      const farmer = await joinLine(stack, product.keys.test.publishable, 'farmer@example.com');
      const api = await startApi();
      const confirmFrom = async (email: string, source: string) => {
        await signUp(stack, product.keys.test.publishable, email, farmer.referralCode!);
        return hosts.status(source, 'POST', `http://[${Ipv6Hosts.SERVER}]:${api.port}${await confirmPath(stack, email)}`);
      };
      for (const [i, source] of farm.entries()) expect(await confirmFrom(`six-${i}@example.com`, source)).toBe(303);
      expect(await confirmFrom('elsewhere@example.com', elsewhere)).toBe(303);

      const response = await stack.request({ method: 'GET', url: `/api/v1/entries/${farmer.id}/referrals`, headers: bearer(product.keys.test.secret) });
      const states = Object.fromEntries(response.json().data.map((referral: { email: string; state: string; reasons: string[] }) => [referral.email, [referral.state, ...referral.reasons]]));
      expect([0, 1, 2, 3].map((i) => states[`six-${i}@example.com`])).toEqual([['credited'], ['credited'], ['credited'], ['withheld', 'network_velocity']]);
      expect(states['elsewhere@example.com']).toEqual(['credited']);
      expect(await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: farmer.id })).toMatchObject({ referrals: 4 });
    } finally {
      await hosts.remove();
    }
  });
});
