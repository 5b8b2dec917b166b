import { Product as ProductRecord } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { confirmPath, events, joinLine } from './support/flows';
import { Product, Stack } from './support/stack';

/** Questions' and milestones' words in each language, set in the settings' builders, for a visitor of that language. */
describe('questions and milestones in the visitor’s language', () => {
  let stack: Stack;
  let acme: Product;
  let pk: string;
  let shown: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    acme = await stack.createProduct({ name: 'Acme' });
    pk = acme.keys.live.publishable;
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    const { cookie, csrf } = await signIn(stack, 'ada@example.com');
    const save = async (section: string, fields: Record<string, string>) => {
      const saved = await stack.request({ method: 'POST', url: `/dashboard/${acme.id}/live/settings/${section}`, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form({ _csrf: csrf, ...fields }) });
      expect([section, saved.status, saved.text]).toEqual([section, 303, '']);
    };
    await save('questions', {
      ...{ 'questions.0.key': 'role', 'questions.0.type': 'single_choice', 'questions.0.need': 'optional', 'questions.0.label': 'Your role', 'questions.0.choices': 'Founder\nEngineer' },
      ...{ 'questions.0.label.de': 'Deine Rolle', 'questions.0.choices.de': 'Gründerin\nEntwickler', 'questions.0.label.fr': 'Votre rôle' },
    });
    shown = (await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/live/settings/questions`, headers: { cookie } })).text;
    await save('leaderboard', { leaderboard: 'off', leaderboardSize: '10', 'milestones.0.referrals': '1', 'milestones.0.name': 'First friend', 'milestones.0.message': 'Thank you!', 'milestones.0.name.de': 'Erste Freundin', 'milestones.0.message.de': 'Danke!' });
  });
  afterAll(() => stack?.stop());

  it('stores the words beside the default ones, and the builder shows them again', async () => {
    const product = await stack.db.getRepository(ProductRecord).findOneByOrFail({ id: acme.id });
    expect(product.questions).toEqual([
      { key: 'role', type: 'single_choice', required: false, label: 'Your role', choices: ['Founder', 'Engineer'], labels: { de: { label: 'Deine Rolle', choices: ['Gründerin', 'Entwickler'] }, fr: { label: 'Votre rôle' } } },
    ]);
    expect(shown).toContain('<details open><summary>In other languages</summary>');
    expect(shown).toContain('name="questions.0.label.de" type="text" value="Deine Rolle"');
    expect(product.milestones).toEqual([{ referrals: 1, name: 'First friend', places: 0, message: 'Thank you!', labels: { de: { name: 'Erste Freundin', message: 'Danke!' } } }]);
  });

  it('a German visitor is asked in German on the hosted form, an English one in English; the answer is the choice itself', async () => {
    const german = (await stack.request({ method: 'GET', url: `/w/${pk}`, headers: { 'accept-language': 'de-DE,de;q=0.9' } })).text;
    expect(german).toContain('Deine Rolle');
    expect(german).toContain('<option value="Founder">Gründerin</option>');
    const english = (await stack.request({ method: 'GET', url: `/w/${pk}`, headers: { 'accept-language': 'en' } })).text;
    expect(english).toContain('Your role');
    expect(english).toContain('<option value="Founder">Founder</option>');
  });

  it('the script-tag form’s words: the label in German and the choices’ words beside the choices; none beside them where there are none', async () => {
    const german = await stack.request({ method: 'GET', url: `/public/v1/forms/${pk}`, headers: { 'accept-language': 'de' } });
    expect(german.json().questions).toEqual([{ key: 'role', type: 'single_choice', required: false, label: 'Deine Rolle', choices: ['Founder', 'Engineer'], choiceLabels: ['Gründerin', 'Entwickler'] }]);
    const french = await stack.request({ method: 'GET', url: `/public/v1/forms/${pk}`, headers: { 'accept-language': 'fr' } });
    expect(french.json().questions).toEqual([{ key: 'role', type: 'single_choice', required: false, label: 'Votre rôle', choices: ['Founder', 'Engineer'] }]);
  });

  it('a German referrer’s status page names the milestone in German; the webhook’s milestone keeps its fields', async () => {
    // An endpoint, so that the event keeps its body (in the outbox: no webhooks process runs here).
    await stack.api.get(WebhooksService).create({ productId: acme.id, mode: 'live', url: 'https://93.184.216.34/hook', events: ['entry.milestone'] });
    const signed = await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: pk, email: 'greta@example.com', locale: 'de' } });
    expect(signed.status).toBe(202);
    const confirm = await confirmPath(stack, 'greta@example.com');
    expect((await stack.request({ method: 'POST', url: confirm })).status).toBe(303);
    const greta = await stack.db.query("SELECT referral_code FROM entries WHERE email = 'greta@example.com'");
    await joinLine(stack, pk, 'friend@example.com', greta[0].referral_code);
    const status = (await stack.request({ method: 'GET', url: confirm })).text;
    expect(status).toContain('<strong>Erste Freundin</strong>: Danke!');
    const event = (await events(stack)).find((each) => each.type === 'entry.milestone') as unknown as { data: { milestone: unknown } };
    expect(event.data.milestone).toEqual({ referrals: 1, name: 'First friend', places: 0, message: 'Thank you!' });
  });
});
