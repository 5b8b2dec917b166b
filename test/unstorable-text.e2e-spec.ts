import { EntryRecord } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/dashboard-auth.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { bearer } from './support/flows';
import { Product, Stack } from './support/stack';

/** The half of an emoji that PostgreSQL's jsonb refuses alone and text turns into U+FFFD. */
const LONE = '\ud83d';

/**
 * Text that PostgreSQL cannot store as sent (a NUL, a lone surrogate) is refused naming its field, or,
 * in a sign-up's attribution, dropped; never a 500, never half-written.
 */
describe('unstorable text', () => {
  let stack: Stack;
  let product: Product;
  let session: { cookie: string; csrf: string };

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    product = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, product.id);
    session = await signIn(stack, 'ada@example.com');
    const questions = 'company | short_text | optional | Company name';
    const saved = await dashboardPost(`/dashboard/${product.id}/live/settings`, { name: 'Acme', senderName: '', inviteUrl: '', signupUrl: '', referralPlaces: '1', leaderboard: 'off', leaderboardSize: '10', claimExpiry: 'back_in_line', referralProtection: 'off', questions });
    expect(saved.status).toBe(303);
  });
  afterAll(() => stack?.stop());

  function dashboardPost(url: string, fields: Record<string, string>) {
    return stack.request({ method: 'POST', url, headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form({ ...fields, _csrf: session.csrf }) });
  }
  const signUp = (body: Record<string, unknown>) => stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: product.keys.live.publishable, ...body } });
  async function attributionOf(email: string) {
    const entry = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email });
    return (await stack.request({ method: 'GET', url: `/api/v1/entries/${entry.id}/profile`, headers: bearer(product.keys.live.secret) })).json().attribution;
  }

  it('a UTM value of emoji is cut by code points, never inside one', async () => {
    const campaign = `x${'😀'.repeat(250)}`;
    const response = await signUp({ email: 'emoji@example.com', attribution: { utm_campaign: campaign, utm_source: `${'😀'.repeat(150)}` } });
    expect(response.status).toBe(202);
    expect(await attributionOf('emoji@example.com')).toEqual({ utm_campaign: `x${'😀'.repeat(199)}`, utm_source: '😀'.repeat(150) });
  });

  it('a lone surrogate or a NUL in attribution is dropped like any other bad character', async () => {
    const response = await signUp({
      email: 'lone-utm@example.com',
      attribution: { utm_source: `news${LONE}letter`, utm_medium: `so\u0000cial`, landing_page: `https://acme.example/join${LONE}?utm_source=x` },
    });
    expect(response.status).toBe(202);
    expect(await attributionOf('lone-utm@example.com')).toEqual({ utm_source: 'newsletter', utm_medium: 'social', landing_page: 'https://acme.example/join?utm_source=x' });
  });

  it('a lone surrogate in an answer is 400 naming it, and nothing is written', async () => {
    const response = await signUp({ email: 'lone-answer@example.com', answers: { company: `Init${LONE}ech` } });
    expect([response.status, response.json().error]).toEqual([400, { code: 'invalid_request', message: expect.stringMatching(/\S/), param: 'answers.company' }]);
    expect(await stack.db.getRepository(EntryRecord).countBy({ email: 'lone-answer@example.com' })).toBe(0);
  });

  it('a NUL in a mail template is refused on the editor, naming the part, and nothing is saved', async () => {
    const template = { subject: 'Hello', text: 'Confirm: {{ confirm_url }}\u0000', html: '<p><a href="{{ confirm_url }}">Confirm</a></p>' };
    const response = await dashboardPost(`/dashboard/${product.id}/live/templates/confirmation/all`, template);
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/role="alert"[^>]*>[^<]*text/i);
    expect(await stack.db.query('SELECT id FROM mail_templates WHERE product_id = $1', [product.id])).toEqual([]);
  });
});
