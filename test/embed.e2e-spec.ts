import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { Browser, Page } from 'playwright-core';
import { customerPage, launchBrowser, serve } from './support/browser';
import { confirmPath, joinLine, productWith } from './support/flows';
import { Clock, EntryRecord } from '@app/shared';
import { Product, Stack } from './support/stack';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { PASSWORD, signIn } from './support/dashboard';

const WATCH = 'q3V9w2xZr8mN4bK7tY1pLc';

/** The snippet the dashboard's keys page gives to paste, as copied from the page, for the service at `base`. */
async function dashboardSnippet(stack: Stack, product: Product, base: string): Promise<string> {
  const email = `team-${product.id}@example.com`;
  await stack.api.get(DashboardAuthService).createUser(email, PASSWORD, product.id);
  const { cookie } = await signIn(stack, email);
  const page = (await stack.request({ method: 'GET', url: `/dashboard/${product.id}/test/keys`, headers: { cookie } })).text;
  const code = /<pre class="scroll"[^>]*><code>([^<]*)<\/code><\/pre>/.exec(page)![1];
  return code.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&').replaceAll(stack.config.PUBLIC_BASE_URL, base);
}

describe('the script-tag form', () => {
  let stack: Stack;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '10000/1m' } });
    base = await serve(stack);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('signs up from a page of another origin under a strict CSP, then shows the place and the referral link once the mail is confirmed', async () => {
    const product = await productWith(stack, { leaderboard: 'test' });
    const key = product.keys.test.publishable;
    const referrer = await joinLine(stack, key, 'grace@example.com');
    const customer = await customerPage(base, await dashboardSnippet(stack, product, base));
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(15_000);
      const refused: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused/i.test(message.text())) refused.push(message.text());
      });
      await page.goto(customer.url + referrer.referralCode);
      await page.getByLabel('Email address').fill('ada@example.com');
      await page.getByRole('button', { name: 'Join the waitlist' }).click();
      await page.getByText('Check your inbox').waitFor();
      // The person confirms from the mail, in another tab: the form learns it on its own.
      expect((await stack.request({ method: 'POST', url: await confirmPath(stack, 'ada@example.com') })).status).toBe(303);
      await page.getByText('Your place in line:').waitFor();
      expect(await page.locator('.place').textContent()).toBe('#2');
      expect(await page.getByLabel('Your referral link').inputValue()).toMatch(/[?&]ref=[a-z2-9]{12}$/);
      // Copy puts the link on the clipboard and says so; Share is there beside it.
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(await page.getByLabel('Your referral link').inputValue());
      await page.getByRole('button', { name: 'Share' }).waitFor();
      await page.getByText('Leaderboard').waitFor();
      expect(await page.locator('li').first().textContent()).toMatch(/^g•••@e•••\.com: 1$/);
      // The referral went through the page's ?ref=.
      expect((await stack.request({ method: 'GET', url: `/api/v1/entries/${referrer.id}`, headers: { authorization: `Bearer ${product.keys.test.secret}` } })).json().referrals).toBe(1);
      // Back on the page later (a reload), the place shows at once.
      await page.reload();
      await page.getByText('Your place in line:').waitFor();
      expect(refused).toEqual([]);
    } finally {
      customer.server.close();
    }
  }, 60_000);

  it("speaks the browser's language, and the entry keeps it for its mails", async () => {
    const product = await productWith(stack, {});
    const customer = await customerPage(base, await dashboardSnippet(stack, product, base));
    try {
      const context = await browser.newContext({ locale: 'de-DE' });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(customer.url);
      await page.getByLabel('E-Mail-Adresse').fill('lena@example.com');
      await page.getByRole('button', { name: 'Auf die Warteliste setzen' }).click();
      await page.getByText('Bitte prüfen Sie Ihr Postfach').waitFor();
      expect((await stack.mail.waitFor('lena@example.com')).subject).toMatch(/Bestätigen/);
      await stack.request({ method: 'POST', url: await confirmPath(stack, 'lena@example.com') });
      await page.getByText('Ihr Platz in der Warteschlange:').waitFor();
      await context.close();
    } finally {
      customer.server.close();
    }
  }, 60_000);

  it("asks the product's questions and keeps the answers with the page's UTM parameters", async () => {
    const product = await productWith(stack, {});
    const questions = [
      { key: 'role', type: 'single_choice', required: true, label: 'Your role', choices: ['Founder', 'Engineer'] },
      { key: 'tools', type: 'multiple_choice', required: false, label: 'Tools you use', choices: ['Slack', 'Linear', 'Jira'] },
      { key: 'story', type: 'long_text', required: false, label: 'What brings you here?' },
      { key: 'consent', type: 'checkbox', required: true, label: 'I agree to be mailed about the launch' },
    ];
    await stack.db.query('UPDATE products SET questions = $1 WHERE id = $2', [JSON.stringify(questions), product.id]);
    const customer = await customerPage(base, await dashboardSnippet(stack, product, base));
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(15_000);
      const landing = customer.url.replace('?ref=', '?utm_source=news&utm_campaign=launch');
      await page.goto(landing);
      await page.getByLabel('Email address').fill('grace@example.com');
      await page.getByLabel('Your role').selectOption('Engineer');
      await page.getByLabel('Linear').check();
      await page.getByLabel('I agree to be mailed about the launch').check();
      await page.getByRole('button', { name: 'Join the waitlist' }).click();
      await page.getByText('Check your inbox').waitFor();
      const entry = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'grace@example.com', productId: product.id });
      const profile = await stack.request({ method: 'GET', url: `/api/v1/entries/${entry.id}/profile`, headers: { authorization: `Bearer ${product.keys.test.secret}` } });
      expect(profile.json()).toEqual({
        id: entry.id,
        locale: 'en',
        answers: { role: 'Engineer', tools: ['Linear'], consent: true },
        attribution: { utm_source: 'news', utm_campaign: 'launch', landing_page: landing },
      });
    } finally {
      customer.server.close();
    }
  }, 60_000);

  it('with the bot signals on, carries a honeypot no person meets and drops the bot that fills it or signs up too soon', async () => {
    const product = await productWith(stack, { signupHoneypot: true, signupMinFillSeconds: 5 });
    const customer = await customerPage(base, await dashboardSnippet(stack, product, base));
    const clock = jest.spyOn(stack.api.get(Clock), 'now');
    try {
      const visit = async (): Promise<Page> => {
        clock.mockImplementation(() => new Date());
        const page = await browser.newPage();
        page.setDefaultTimeout(15_000);
        await page.goto(customer.url);
        await page.getByLabel('Email address').waitFor();
        return page;
      };
      const join = async (page: Page, email: string) => {
        await page.getByLabel('Email address').fill(email);
        await page.getByRole('button', { name: 'Join the waitlist' }).click();
        await page.getByText('Check your inbox').waitFor();
      };
      const person = await visit();
      // Out of the accessibility tree (a screen reader does not announce it) and of the tab order.
      expect(await person.getByRole('textbox').count()).toBe(1);
      expect(await person.locator('input[name="website"]').getAttribute('tabindex')).toBe('-1');
      await person.keyboard.press('Tab');
      expect(await person.evaluate('document.activeElement.shadowRoot.activeElement.id')).toBe('waitlist-email');
      const quick = await visit();
      await join(quick, 'too-quick@example.com');
      clock.mockImplementation(() => new Date(Date.now() + 10_000));
      await join(person, 'a-person@example.com');
      const bot = await visit();
      clock.mockImplementation(() => new Date(Date.now() + 10_000));
      await bot.locator('input[name="website"]').fill('http://spam.example', { force: true });
      await join(bot, 'a-bot@example.com');
      const kept = async (email: string) => stack.db.getRepository(EntryRecord).countBy({ email, productId: product.id });
      expect([await kept('a-person@example.com'), await kept('too-quick@example.com'), await kept('a-bot@example.com')]).toEqual([1, 0, 0]);
    } finally {
      clock.mockRestore();
      customer.server.close();
    }
  }, 60_000);

  it("is a link to the hosted form without JavaScript, as the dashboard's snippet gives it", async () => {
    const product = await productWith(stack, {});
    const key = product.keys.test.publishable;
    const customer = await customerPage(base, await dashboardSnippet(stack, product, base));
    try {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(customer.url);
      expect(await page.getByRole('link', { name: 'Join the waitlist' }).getAttribute('href')).toBe(`${base}/w/${key}`);
      await context.close();
    } finally {
      customer.server.close();
    }
  });

  it('is under 12 KB gzipped and served to any page', async () => {
    const response = await fetch(`${base}/embed.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    // Node's fetch unzips on its own: the bytes as sent, through node:http.
    const body = await new Promise<Buffer>((resolve, reject) =>
      get(`${base}/embed.js`, { headers: { 'accept-encoding': 'gzip' } }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => resolve(Buffer.concat(chunks)));
      }).on('error', reject),
    );
    process.stdout.write(`embed.js: ${body.length} bytes gzipped\n`);
    expect(body.length).toBeLessThan(12 * 1024);
    expect(gunzipSync(body).toString()).toContain('attachShadow');
    expect(response.headers.get('cross-origin-resource-policy')).toBeNull();
  });

  it("tells a watch nothing of an address that was on the list already, nor of another product's entry", async () => {
    const product = await productWith(stack, {});
    const other = await productWith(stack, {});
    const key = product.keys.test.publishable;
    await joinLine(stack, key, 'known@example.com');
    const status = (watch: string, statusKey = key) => stack.request({ method: 'POST', url: '/public/v1/signups/status', body: { key: statusKey, watch } });
    // A confirmed address signed up again with a watch: its page keeps waiting, as for any new address.
    expect((await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key, email: 'known@example.com', watch: WATCH } })).status).toBe(202);
    expect((await status(WATCH)).json()).toEqual({ state: 'pending' });
    // A new address, confirmed: its own product's key sees it, another product's does not.
    const watch = `${WATCH}x`;
    expect((await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key, email: 'new@example.com', watch } })).status).toBe(202);
    expect((await status(watch)).json()).toEqual({ state: 'pending' });
    await stack.request({ method: 'POST', url: await confirmPath(stack, 'new@example.com') });
    expect((await status(watch)).json()).toMatchObject({ state: 'confirmed', place: 2 });
    expect((await status(watch, other.keys.test.publishable)).json()).toEqual({ state: 'pending' });
    // Bad input: a clear 400 and an unknown key 401.
    expect((await status('short')).status).toBe(400);
    expect((await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key, email: 'x@example.com', watch: 'no spaces allowed here!' } })).status).toBe(400);
    expect((await status(WATCH, 'pk_test_unknown')).status).toBe(401);
  });
});
