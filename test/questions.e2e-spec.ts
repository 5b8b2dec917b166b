import { EntryRecord } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { bearer } from './support/flows';
import { Product, Stack } from './support/stack';

const QUESTIONS = [
  'company | short_text | required | Company name',
  'story | long_text | optional | Tell us more',
  'role | single_choice | optional | Your role | Founder; Engineer; Other',
  'tools | multiple_choice | optional | Tools you use | Slack; Jira; Linear',
  'consent | checkbox | required | I agree to be contacted',
].join('\n');

/** The questions' builder's fields for questions written one a line, `key | type | need | label | choice; choice`. */
const builderRows = (questions: string): Record<string, string> =>
  Object.fromEntries(
    questions.split('\n').flatMap((line, row) => {
      const [key = '', type = '', need = '', label = '', choices = ''] = line.split('|').map((part) => part.trim());
      const fields = { key, type, need, label, choices: choices.split(';').map((choice) => choice.trim()).join('\n') };
      return Object.entries(fields).map(([field, value]) => [`questions.${row}.${field}`, value]);
    }),
  );

describe('sign-up questions and attribution', () => {
  let stack: Stack;
  let acme: Product;
  let plain: Product;
  let pk: string;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    acme = await stack.createProduct({ name: 'Acme' });
    plain = await stack.createProduct({ name: 'Plain' });
    pk = acme.keys.live.publishable;
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ cookie, csrf } = await signIn(stack, 'ada@example.com'));
  });
  afterAll(() => stack.stop());

  /** The questions' section with the builder's rows for questions written `key | type | need | label | choice; choice`, one a line. */
  const saveSettings = (questions: string) =>
    stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/live/settings/questions`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ _csrf: csrf, ...builderRows(questions) }),
    });
  const signUp = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: pk, ...body }, headers });
  const entryOf = (email: string) => stack.db.getRepository(EntryRecord).findOneByOrFail({ email });
  const profile = async (email: string, secret = acme.keys.live.secret) =>
    stack.request({ method: 'GET', url: `/api/v1/entries/${(await entryOf(email)).id}/profile`, headers: bearer(secret) });
  const good = { company: 'Initech', consent: true };

  it('the settings take questions through the builder’s rows, and refuse bad ones in words', async () => {
    for (const [questions, words] of [
      ['Role | short_text | required | Role', 'Question 1 needs a key'],
      ['role | essay | required | Role', 'Question 1 has an unknown type'],
      ['role | short_text | maybe | Role', 'Question 1 must say required or optional'],
      [`role | short_text | required | ${'x'.repeat(201)}`, 'Question 1 needs a label of 1 to 200 characters'],
      ['role | single_choice | required | Role | Only', 'Question 1 needs 2 to 20 choices'],
      [`role | single_choice | required | Role | a; ${'b'.repeat(101)}`, 'Question 1 has a choice over 100 characters'],
      ['a | checkbox | optional | A\na | checkbox | optional | B', 'Each question needs a key of its own'],
      [Array.from({ length: 11 }, (_, i) => `q${i} | short_text | optional | Q${i}`).join('\n'), 'A product asks at most 10 questions'],
    ]) {
      const refused = await saveSettings(questions);
      expect([questions, refused.status]).toEqual([questions, 400]);
      expect(refused.text).toContain(words);
    }
    expect((await saveSettings(QUESTIONS)).status).toBe(303);
    const page = (await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/live/settings/questions`, headers: { cookie } })).text;
    expect(page).toContain('name="questions.2.label" type="text" value="Your role"');
    expect(page).toContain('name="questions.2.choices" rows="3" aria-describedby="questions.2.choices-hint">Founder\nEngineer\nOther</textarea>');
  });

  it('a required question left out is 400 naming it; so is an unknown key', async () => {
    const missing = await signUp({ email: 'missing@example.com', answers: { consent: true } });
    expect([missing.status, missing.json().error]).toEqual([400, { code: 'invalid_request', message: 'body field answers.company: "Company name" needs an answer.', param: 'answers.company' }]);
    const none = await signUp({ email: 'none@example.com' });
    expect([none.status, none.json().error.param]).toEqual([400, 'answers.company']);
    const unknown = await signUp({ email: 'unknown@example.com', answers: { ...good, colour: 'red' } });
    expect([unknown.status, unknown.json().error.param]).toEqual([400, 'answers.colour']);
    expect(await stack.db.getRepository(EntryRecord).countBy({ productId: acme.id })).toBe(0);
  });

  it.each<[string, unknown, string]>([
    ['company', 42, 'expected text'],
    ['company', 'x'.repeat(201), 'is at most 200 characters'],
    ['story', 'x'.repeat(2001), 'is at most 2,000 characters'],
    ['role', 'CEO', 'is not one of the choices offered'],
    ['tools', ['Slack', 'Trello'], 'holds a choice that is not offered'],
    ['tools', 'Slack', 'expected a list of the choices'],
    ['consent', false, '"I agree to be contacted" must be ticked'],
    ['consent', 'yes', 'expected true or false'],
  ])('a bad answer to %s is refused (%#)', async (key, value, message) => {
    const response = await signUp({ email: 'bad@example.com', answers: { ...good, [key]: value } });
    expect([response.status, response.json().error]).toEqual([400, { code: 'invalid_request', message: `body field answers.${key}: ${message}.`, param: `answers.${key}` }]);
  });

  it('keeps the answers and the attribution given; the profile route answers them; a second sign-up keeps the first', async () => {
    const answers = { company: ' Initech ', story: 'Line one\nline two', role: 'Founder', tools: ['Slack', 'Linear'], consent: true };
    const attribution = { utm_source: 'newsletter', utm_campaign: 'launch', gclid: 'dropped', referrer: 'https://news.example/12' };
    expect((await signUp({ email: 'kept@example.com', answers, attribution })).status).toBe(202);
    expect((await signUp({ email: 'kept@example.com', answers: { company: 'Other', consent: true }, attribution: { utm_source: 'later' } })).status).toBe(202);
    const response = await profile('kept@example.com');
    expect([response.status, response.json()]).toEqual([
      200,
      {
        id: (await entryOf('kept@example.com')).id,
        locale: 'en',
        answers: { company: 'Initech', story: 'Line one\nline two', role: 'Founder', tools: ['Slack', 'Linear'], consent: true },
        attribution: { utm_source: 'newsletter', utm_campaign: 'launch', referrer: 'https://news.example/12' },
      },
    ]);
    // The Entry object keeps exactly its fields.
    const entry = await stack.request({ method: 'GET', url: `/api/v1/entries/${(await entryOf('kept@example.com')).id}`, headers: bearer(acme.keys.live.secret) });
    expect(Object.keys(entry.json()).sort()).toEqual(['confirmedAt', 'createdAt', 'email', 'id', 'invitedAt', 'redeemedAt', 'referralCode', 'referrals', 'state']);
    // Same key check and 404 as GET /api/v1/entries/{id}.
    expect((await profile('kept@example.com', acme.keys.test.secret)).status).toBe(404);
    expect((await profile('kept@example.com', plain.keys.live.secret)).status).toBe(404);
    expect((await stack.request({ method: 'GET', url: '/api/v1/entries/ent_nope/profile', headers: bearer(acme.keys.live.secret) })).status).toBe(404);
    expect((await stack.request({ method: 'GET', url: `/api/v1/entries/${(await entryOf('kept@example.com')).id}/profile` })).status).toBe(401);
  });

  it('the API takes UTM and the landing page from the Referer when no attribution is sent', async () => {
    const referer = 'https://acme.example/join?utm_source=twitter&utm_medium=social&utm_campaign=spring&x=1';
    expect((await signUp({ email: 'referer@example.com', answers: good }, { referer })).status).toBe(202);
    expect((await profile('referer@example.com')).json().attribution).toEqual({ utm_source: 'twitter', utm_medium: 'social', utm_campaign: 'spring', landing_page: referer });
  });

  it('the hosted form asks the questions and carries the page’s UTM and Referer to its post', async () => {
    const page = await stack.request({ method: 'GET', url: `/w/${pk}?utm_source=podcast&utm_campaign=ep7`, headers: { referer: 'https://podcast.example/ep7' } });
    expect(page.status).toBe(200);
    for (const field of ['answers[company]', 'answers[story]', 'answers[role]', 'answers[tools]', 'answers[consent]']) expect(page.text).toContain(`name="${field}"`);
    const hidden = Object.fromEntries([...page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(([, name, value]) => [name, value.replace(/&amp;/g, '&')]));
    expect(hidden).toEqual({ key: pk, utm_source: 'podcast', utm_campaign: 'ep7', referrer: 'https://podcast.example/ep7', landing_page: `${stack.config.PUBLIC_BASE_URL}/w/${pk}?utm_source=podcast&utm_campaign=ep7` });
    const fields: [string, string][] = [...Object.entries(hidden), ['email', 'form@example.com'], ['answers[company]', 'Hooli'], ['answers[role]', ''], ['answers[tools]', 'Slack'], ['answers[tools]', 'Jira'], ['answers[consent]', 'yes']];
    const posted = await stack.request({ method: 'POST', url: '/public/v1/signups', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form(fields) });
    expect(posted.status).toBe(303);
    expect((await profile('form@example.com')).json()).toMatchObject({
      answers: { company: 'Hooli', tools: ['Slack', 'Jira'], consent: true },
      attribution: { utm_source: 'podcast', utm_campaign: 'ep7', referrer: 'https://podcast.example/ep7', landing_page: hidden.landing_page },
    });
    const unticked = fields.filter(([name]) => name !== 'answers[consent]').map(([name, value]): [string, string] => [name, name === 'email' ? 'unticked@example.com' : value]);
    const refused = await stack.request({ method: 'POST', url: '/public/v1/signups', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form(unticked) });
    expect([refused.status, refused.headers['content-type']]).toEqual([400, expect.stringContaining('text/html')]);
    expect(refused.text).toContain('must be ticked');
  });

  it('the dashboard filters entries by utm_source, utm_campaign and an answer, and shows them on the entry page', async () => {
    const emails = async (query: string) =>
      [...(await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/live/entries?${query}`, headers: { cookie } })).text.matchAll(/>([^<>]+@example\.com)<\/a>/g)].map((match) => match[1]).sort();
    expect(await emails('utm_source=newsletter')).toEqual(['kept@example.com']);
    expect(await emails('utm_campaign=ep7')).toEqual(['form@example.com']);
    expect(await emails('question=tools&answer=Slack')).toEqual(['form@example.com', 'kept@example.com']);
    expect(await emails('question=role&answer=Founder')).toEqual(['kept@example.com']);
    expect(await emails('question=consent&answer=true')).toEqual(['form@example.com', 'kept@example.com', 'referer@example.com']);
    expect(await emails('question=consent&answer=yes')).toEqual(['form@example.com', 'kept@example.com', 'referer@example.com']);
    expect(await emails('utm_source=nobody')).toEqual([]);
    const page = (await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/live/entries/${(await entryOf('kept@example.com')).id}`, headers: { cookie } })).text;
    expect(page).toContain('<th>Your role</th><td style="white-space:pre-wrap">Founder</td>');
    expect(page).toContain('<th>utm_campaign</th><td>launch</td>');
  });

  it('a bulk action on every matching entry keeps the filter on answers and attribution', async () => {
    const ask = await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/live/entries/bulk?action=move-up&places=1&scope=filter&question=role&answer=Founder`, headers: { cookie } });
    expect(ask.text).toContain('Move up 1 entry by 1 place each?');
    expect(ask.text).toContain('<input type="hidden" name="question" value="role"><input type="hidden" name="answer" value="Founder">');
    const page = (await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/live/entries?utm_source=newsletter`, headers: { cookie } })).text;
    expect(page).toContain('<input type="hidden" name="utm_source" value="newsletter">');
  });

  it('the CSV export ends with the attribution columns and the answers', async () => {
    const csv = (await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/live/entries.csv?utm_source=newsletter`, headers: { cookie } })).text.trim().split('\r\n');
    expect(csv[0]).toBe('id,email,state,createdAt,confirmedAt,invitedAt,redeemedAt,referralCode,referrals,locale,utm_source,utm_medium,utm_campaign,utm_term,utm_content,referrer,landing_page,answers');
    expect(csv).toHaveLength(2);
    expect(csv[1]).toContain(',newsletter,,launch,,,https://news.example/12,,"{');
    expect(csv[1]).toContain('""company"":""Initech""');
  });

  it('a product without questions is unchanged: no answers or {} taken, anything else refused, no details row without attribution', async () => {
    const key = plain.keys.live.publishable;
    const post = (body: Record<string, unknown>) => stack.request({ method: 'POST', url: '/public/v1/signups', body: { key, ...body } });
    expect((await post({ email: 'p1@example.com' })).status).toBe(202);
    expect((await post({ email: 'p2@example.com', answers: {} })).status).toBe(202);
    const refused = await post({ email: 'p3@example.com', answers: { company: 'x' } });
    expect([refused.status, refused.json().error.param]).toEqual([400, 'answers.company']);
    expect([(await post({ email: 'p4@example.com', answers: 'x' })).status, (await post({ email: 'p4@example.com', answers: null })).status]).toEqual([400, 400]);
    const [{ count }] = await stack.db.query('SELECT count(*)::int AS count FROM entry_details d JOIN entries e ON e.id = d.entry_id WHERE e.product_id = $1', [plain.id]);
    expect(count).toBe(0);
    expect((await profile('p1@example.com', plain.keys.live.secret)).json()).toEqual({ id: (await entryOf('p1@example.com')).id, locale: 'en', answers: {}, attribution: {} });
  });

  it('a question added or removed elsewhere (another process, the database) applies to the next sign-up of every process', async () => {
    const key = plain.keys.live.publishable;
    const post = (email: string, answers?: object) => stack.request({ method: 'POST', url: '/public/v1/signups', body: { key, email, answers } });
    const ask = (questions: object[]) => stack.db.query('UPDATE products SET questions = $2 WHERE id = $1', [plain.id, JSON.stringify(questions)]);
    const team = { key: 'team', type: 'short_text', label: 'Team' };
    expect((await post('c1@example.com')).status).toBe(202);
    await ask([{ ...team, required: false }]);
    expect((await post('c2@example.com')).status).toBe(202);
    expect((await post('c3@example.com', { team: 'Blue' })).status).toBe(202);
    await ask([{ ...team, required: true }]);
    const missing = await post('c4@example.com');
    expect([missing.status, missing.json().error.param]).toEqual([400, 'answers.team']);
    await ask([]);
    expect((await post('c5@example.com')).status).toBe(202);
    const unknown = await post('c6@example.com', { team: 'Blue' });
    expect([unknown.status, unknown.json().error.param]).toEqual([400, 'answers.team']);
    const entries: { email: string }[] = await stack.db.query('SELECT email FROM entries WHERE product_id = $1 ORDER BY email', [plain.id]);
    expect(entries.map((entry) => entry.email).filter((email) => email.startsWith('c'))).toEqual(['c1@example.com', 'c2@example.com', 'c3@example.com', 'c5@example.com']);
    expect((await profile('c3@example.com', plain.keys.live.secret)).json().answers).toEqual({ team: 'Blue' });
  });
});
