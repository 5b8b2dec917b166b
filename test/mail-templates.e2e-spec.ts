import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { MaintenanceService } from '../apps/api/src/maintenance/maintenance.service';
import { ProductsService } from '../apps/api/src/products/products.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { EntryRecord } from '@app/shared';
import { confirmPath, joinLine, signUp } from './support/flows';
import { api } from './support/invitations';
import { Product, Stack } from './support/stack';

const TEMPLATE = {
  subject: 'Hello from {{ product_name }}',
  text: 'Custom text.\nConfirm here: {{ confirm_url }}\n',
  html: '<p>Custom <b>HTML</b> for {{ product_name }}.</p>\n<p><a href="{{ confirm_url }}">Confirm</a></p>',
};

/** A product's own mail templates, through the dashboard, into the mails the mailer sends. */
describe('mail templates', () => {
  let stack: Stack;
  let product: Product;
  let session: { cookie: string; csrf: string };
  let base: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m', MAINTENANCE_INTERVAL: '1h' } });
    product = await stack.createProduct({ name: 'Acme <Labs>' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, product.id);
    session = await signIn(stack, 'ada@example.com');
    base = `/dashboard/${product.id}/live/templates`;
  });
  afterAll(() => stack.stop());

  const post = (url: string, fields: Record<string, string>) =>
    stack.request({
      method: 'POST',
      url,
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ ...fields, _csrf: session.csrf }),
    });
  const page = (url: string) => stack.request({ method: 'GET', url, headers: { cookie: session.cookie } });
  const stored = () => stack.db.query('SELECT kind, locale, subject FROM mail_templates WHERE product_id = $1', [product.id]);

  it('saving refuses a template with its line and column, and keeps nothing', async () => {
    const refused = await post(`${base}/confirmation/all`, { ...TEMPLATE, text: 'No link.\n{{ product_name.constructor }}' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Line 2, column 4 of the text: &quot;product_name.constructor&quot; is not allowed');
    // The form comes back as typed.
    expect(refused.text).toContain('No link.\n{{ product_name.constructor }}</textarea>');
    const noLink = await post(`${base}/confirmation/all`, { ...TEMPLATE, html: '<p>No link</p>' });
    expect(noLink.text).toContain('Line 1, column 15 of the HTML: the HTML never shows {{ confirm_url }}');
    const include = await post(`${base}/confirmation/all`, { ...TEMPLATE, text: '{{ confirm_url }}\n{% include "x" %}' });
    expect(include.text).toContain('Line 2, column 1 of the text: there is no tag &quot;include&quot; here');
    expect(await stored()).toEqual([]);
  });

  it('the preview renders as a real mail would, or says where the template is wrong', async () => {
    const preview = await post(`${base}/confirmation/all/preview`, TEMPLATE);
    expect(preview.status).toBe(200);
    const mail = JSON.parse(preview.text);
    expect(mail.subject).toBe('Hello from Acme <Labs>');
    expect(mail.html).toContain('<p>Custom <b>HTML</b> for Acme &lt;Labs&gt;.</p>');
    expect(mail.text).toMatch(/Confirm here: http:\/\/localhost:3000\/confirm\/sample-confirmation-token\n\nUnsubscribe: http:\/\/localhost:3000\/unsubscribe\/sample-unsubscribe-token\n/);
    const wrong = await post(`${base}/confirmation/all/preview`, { ...TEMPLATE, subject: 'Hi {{ invitation_url }}' });
    expect([wrong.status, JSON.parse(wrong.text).error]).toEqual([
      400,
      expect.objectContaining({ code: 'invalid_request', param: 'subject', line: 1, column: 7, message: expect.stringMatching(/unknown variable "invitation_url"/) }),
    ]);
  });

  it('a saved template makes the sign-up’s confirmation mail, with the unsubscribe link and headers all the same', async () => {
    const saved = await post(`${base}/confirmation/all`, TEMPLATE);
    expect([saved.status, saved.headers.location]).toEqual([303, `${base}/confirmation/all`]);
    expect((await page(`${base}/confirmation/all`)).text).toContain('Saved: the next confirmation mails');

    await signUp(stack, product.keys.live.publishable, 'custom@example.com');
    const mail = await stack.mail.waitFor('custom@example.com');
    expect(mail.subject).toBe('Hello from Acme <Labs>');
    expect(mail.text).toMatch(/^Custom text\.\nConfirm here: http\S+\/confirm\/\S+\n\nUnsubscribe: http\S+\/unsubscribe\/\S+\nSee or delete your data: http\S+\/my-data\n$/);
    expect(mail.html).toContain('<p>Custom <b>HTML</b> for Acme &lt;Labs&gt;.</p>');
    const unsubscribe = /Unsubscribe: (\S+)/.exec(mail.text)![1];
    expect(mail.html).toContain(`<a href="${unsubscribe}" style="color:#59636e">Unsubscribe</a>`);
    expect(mail.headers['list-unsubscribe']).toBe(`<${unsubscribe}>`);
    expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
  });

  it('a test send goes to the signed-in member’s own address, in the language of its mails', async () => {
    const sent = await post(`${base}/confirmation/de/test`, { ...TEMPLATE, subject: 'Test {{ kept_for }}' });
    expect(sent.status).toBe(303);
    const mail = await stack.mail.waitFor('ada@example.com');
    // PENDING_ENTRY_TTL, as the German confirmation mail says it.
    expect(mail.subject).toBe('[Test] Test 14 Tagen');
    expect(mail.text).toMatch(/Confirm here: http\S+\/confirm\/\S+\n\nAbmelden: http\S+\/unsubscribe\/\S+\nIhre Daten ansehen oder löschen: http\S+\/w\/pk_live_\S+\/my-data\n$/);
    expect((await page(`${base}/confirmation/de`)).text).toContain('A test mail went to ada@example.com.');
    // A test send keeps nothing.
    expect(await stored()).toEqual([{ kind: 'confirmation', locale: null, subject: TEMPLATE.subject }]);
  });

  it('the preview and the test send carry what a real mail of the kind, language and product would: a German invitation under a 7-day claim window', async () => {
    await stack.api.get(ProductsService).update(product.id, { claimWindowDays: 7, claimReminderHours: 24, inviteUrl: 'https://acme.example/welcome' });
    const german = {
      subject: 'Einladung zu {{ product_name }}',
      text: 'Der Link gilt {{ valid_for }}, bis {{ expires_at }}: {{ invitation_url }}',
      html: '<p>Der Link gilt {{ valid_for }}, bis {{ expires_at }}: <a href="{{ invitation_url }}">hier</a></p>',
    };
    const previewed = JSON.parse((await post(`${base}/invitation/de/preview`, german)).text);
    expect(previewed.text).toMatch(/^Der Link gilt 7 Tage, bis \d{1,2}\. [A-Za-zä]+ \d{4} um \d\d:\d\d UTC: https:\/\/acme\.example\/welcome\?invite=\S+\n\nAbmelden: /);
    expect(previewed.html).toContain('>Abmelden</a>');
    const reminder = JSON.parse((await post(`${base}/reminder/de/preview`, { subject: 'Noch {{ time_left }}', text: '{{ invitation_url }}', html: '{{ invitation_url }}' })).text);
    // Sent 24 hours before the end, as the real reminder says it.
    expect(reminder.subject).toBe('Noch 1 Tag');

    expect((await post(`${base}/invitation/de/test`, german)).status).toBe(303);
    await stack.mail.waitFor('ada@example.com', 2);
    const mail = stack.mail.to('ada@example.com')[1];
    expect(mail.subject).toBe('[Test] Einladung zu Acme <Labs>');
    expect(mail.text).toMatch(/^Der Link gilt 7 Tage, bis \d{1,2}\. [A-Za-zä]+ \d{4} um \d\d:\d\d UTC: https:\/\/acme\.example\/welcome\?invite=\S+\n\nAbmelden: /);
    await stack.api.get(ProductsService).update(product.id, { claimWindowDays: null, claimReminderHours: null, inviteUrl: null });
  });

  it('an HTML part of the documented size is read and checked, in any script; one character more is refused as too long', async () => {
    const sized = (length: number, filler: string) => {
      const html = `<p>{{ confirm_url }}</p>`;
      return html + filler.repeat(length - [...html].length);
    };
    for (const filler of ['a', 'é', '€', '😀']) {
      const atBound = await post(`${base}/confirmation/all/preview`, { ...TEMPLATE, html: sized(100_000, filler) });
      expect([filler, atBound.status]).toEqual([filler, 200]);
      const past = await post(`${base}/confirmation/all/preview`, { ...TEMPLATE, html: sized(100_001, filler) });
      expect([filler, past.status, JSON.parse(past.text).error]).toEqual([filler, 400, expect.objectContaining({ param: 'html', message: 'In the HTML: it is longer than 100,000 characters.' })]);
    }
    // Every part at its bound at once, in the widest characters a form can carry.
    const widest = { subject: '😀'.repeat(300), text: `{{ confirm_url }}${'😀'.repeat(50_000 - 17)}`, html: sized(100_000, '😀') };
    const saved = await post(`${base}/confirmation/fr`, widest);
    expect(saved.status).toBe(303);
    expect(await stack.db.query(`SELECT length(html) AS html FROM mail_templates WHERE product_id = $1 AND locale = 'fr'`, [product.id])).toEqual([{ html: 100_000 }]);
    await post(`${base}/confirmation/fr/reset`, {});
  });

  it('back to the default asks first, then the next mails are the default again', async () => {
    const editor = (await page(`${base}/confirmation/all`)).text;
    expect(editor).toContain(`href="${base}/confirmation/all/reset">Back to the default</a>`);
    const ask = await page(`${base}/confirmation/all/reset`);
    expect(ask.text).toContain('will be deleted for good');
    expect(await stored()).toHaveLength(1);

    const reset = await post(`${base}/confirmation/all/reset`, {});
    expect(reset.status).toBe(303);
    expect(await stored()).toEqual([]);
    await signUp(stack, product.keys.live.publishable, 'default@example.com');
    const mail = await stack.mail.waitFor('default@example.com');
    expect(mail.subject).toBe('Confirm your address for the Acme <Labs> waitlist');
  });

  it('an invitation template carries the code in invitation_url alone; a German entry gets the German variant, with the date in German', async () => {
    await post(`${base}/invitation/all`, {
      subject: 'Come in to {{ product_name }}',
      text: 'Your link: {{ invitation_url }} (until {{ expires_at }}, {{ valid_for }})',
      html: '<a href="{{ invitation_url }}">In</a>',
    });
    const saved = await post(`${base}/invitation/de`, { subject: 'Willkommen', text: '{{ invitation_url }} (bis {{ expires_at }}, {{ valid_for }})', html: '{{ invitation_url }}' });
    expect(saved.status).toBe(303);
    const entry = await joinLine(stack, product.keys.live.publishable, 'invited@example.com');
    expect((await api(stack, product.keys.live.secret).invite(entry.id)).status).toBe(200);
    // Its confirmation mail, then the invitation.
    await stack.mail.waitFor('invited@example.com', 2);
    const invitation = stack.mail.to('invited@example.com')[1];
    expect(invitation.subject).toBe('Come in to Acme <Labs>');
    expect(invitation.text).toMatch(/^Your link: http\S+invite=[\w-]+ \(until \d{4}-\d\d-\d\d \d\d:\d\d UTC, 30 days\)\n\nUnsubscribe: /);
    expect(invitation.headers['list-unsubscribe']).toMatch(/^<http\S+\/unsubscribe\/\S+>$/);

    const signedUp = await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: product.keys.live.publishable, email: 'lena@example.com', locale: 'de' } });
    expect(signedUp.status).toBe(202);
    await stack.request({ method: 'POST', url: await confirmPath(stack, 'lena@example.com') });
    const german = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'lena@example.com' });
    expect((await api(stack, product.keys.live.secret).invite(german.id)).status).toBe(200);
    await stack.mail.waitFor('lena@example.com', 2);
    const einladung = stack.mail.to('lena@example.com')[1];
    expect(einladung.subject).toBe('Willkommen');
    expect(einladung.text).toMatch(/^http\S+invite=[\w-]+ \(bis \d{1,2}\. [A-Za-zä]+ \d{4} um \d\d:\d\d UTC, 30 Tage\)\n/);
  });

  it('a reminder template makes the claim window’s reminder, with the invitation’s link', async () => {
    await stack.api.get(ProductsService).update(product.id, { claimWindowDays: 2, claimReminderHours: 24 });
    await post(`${base}/reminder/all`, { subject: 'Still yours: {{ product_name }}', text: '{{ time_left }} left: {{ invitation_url }}', html: '<a href="{{ invitation_url }}">In</a>' });
    const entry = await joinLine(stack, product.keys.live.publishable, 'reminded@example.com');
    expect((await api(stack, product.keys.live.secret).invite(entry.id)).status).toBe(200);
    await stack.mail.waitFor('reminded@example.com', 2);
    // As if a day had passed: the reminder is due, and the next maintenance round queues it.
    await stack.db.query(`UPDATE invite_codes SET remind_at = now() - interval '1 minute' WHERE entry_id = $1`, [entry.id]);
    await stack.api.get(MaintenanceService).runOnce();
    await stack.mail.waitFor('reminded@example.com', 3);
    const [, invitation, reminder] = stack.mail.to('reminded@example.com');
    expect(reminder.subject).toBe('Still yours: Acme <Labs>');
    const link = /http\S+invite=[\w-]+/.exec(invitation.text)![0];
    expect(reminder.text).toBe(`2 days left: ${link}\n\nUnsubscribe: ${/Unsubscribe: (\S+)/.exec(reminder.text)![1]}\nSee or delete your data: ${/See or delete your data: (\S+)/.exec(reminder.text)![1]}\n`);
  });
});
