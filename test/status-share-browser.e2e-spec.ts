import { EntryRecord } from '@app/shared';
import { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { launchBrowser, serve } from './support/browser';
import { confirmPath, joinLine } from './support/flows';
import { Product, Stack } from './support/stack';

/** What the page's scripts read of the browser (the tests compile without the DOM's types). */
interface InPage {
  navigator: { clipboard: { readText(): Promise<string> }; share?: (data: unknown) => Promise<void> };
  shared?: unknown;
}

/** The networks' share links, by the words of their accessible names in English and German, and where each goes. */
const NETWORKS = [
  ['X', 'https://twitter.com/intent/tweet?'],
  ['LinkedIn', 'https://www.linkedin.com/sharing/share-offsite/?'],
  ['Facebook', 'https://www.facebook.com/sharer/sharer.php?'],
  ['WhatsApp', 'https://wa.me/?'],
  ['Telegram', 'https://t.me/share/url?'],
  ['Reddit', 'https://www.reddit.com/submit?'],
] as const;

/** The status page's copy and share buttons in Debian's chromium, as the person on the list uses them. */
describe("the status page's share buttons", () => {
  let stack: Stack;
  let browser: Browser;
  let base: string;
  let acme: Product;
  let context: BrowserContext;
  const refused: string[] = [];

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'] });
    acme = await stack.createProduct({ name: 'Acme' });
    browser = await launchBrowser();
    base = await serve(stack);
  }, 60_000);
  afterEach(() => context?.close());
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  /** A confirmed person's status page, in a fresh context with these options; the referral link its entry has. */
  async function statusPage(email: string, options: BrowserContextOptions = {}): Promise<{ page: Page; link: string }> {
    const entry: EntryRecord = await joinLine(stack, acme.keys.live.publishable, email);
    context = await browser.newContext({ baseURL: base, ...options });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('console', (message) => {
      if (/Content Security Policy|Refused/i.test(message.text())) refused.push(message.text());
    });
    await page.goto(await confirmPath(stack, email));
    return { page, link: `${stack.config.PUBLIC_BASE_URL}/w/${acme.keys.live.publishable}?ref=${entry.referralCode}` };
  }

  /** Each share link carries the referral link (in the query, where the network reads it), and opens apart from the page. */
  async function expectLinks(page: Page, link: string, mailName: string, shareOn: (network: string) => string): Promise<void> {
    const links = [[mailName, 'mailto:?'], ...NETWORKS.map(([network, start]) => [shareOn(network), start])];
    for (const [name, start] of links) {
      const anchor = page.getByRole('link', { name, exact: true });
      const href = (await anchor.getAttribute('href'))!;
      expect([name, href.startsWith(start)]).toEqual([name, true]);
      expect([name, decodeURIComponent(href)]).toEqual([name, expect.stringContaining(link)]);
      expect([name, await anchor.getAttribute('rel'), await anchor.getAttribute('target')]).toEqual([name, 'noopener', '_blank']);
    }
  }

  it('copy puts the referral link on the clipboard, and the links for mail and the networks carry it (English)', async () => {
    const { page, link } = await statusPage('ada@example.com', { permissions: ['clipboard-read', 'clipboard-write'] });
    expect(await page.getByLabel('Your referral link').inputValue()).toBe(link);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('button', { name: 'Copied', exact: true }).waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as InPage).navigator.clipboard.readText())).toBe(link);
    // Chromium on Linux has no share sheet: no button that would do nothing.
    expect(await page.getByRole('button', { name: 'Share', exact: true }).count()).toBe(0);
    await expectLinks(page, link, 'Send by mail', (network) => `Share on ${network}`);
    const mail = new URL((await page.getByRole('link', { name: 'Send by mail' }).getAttribute('href'))!.replace('mailto:', 'mailto://x'));
    expect(mail.searchParams.get('subject')).toBe('Join the Acme waitlist');
    expect(refused).toEqual([]);
  }, 60_000);

  it('in German once the person switches: the buttons, the links and the words they send', async () => {
    const { page, link } = await statusPage('grete@example.com', { permissions: ['clipboard-read', 'clipboard-write'] });
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('button', { name: 'Change language' }).click();
    await page.getByLabel('Ihr Empfehlungslink').waitFor();
    await page.getByRole('button', { name: 'Kopieren', exact: true }).click();
    await page.getByRole('button', { name: 'Kopiert', exact: true }).waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as InPage).navigator.clipboard.readText())).toBe(link);
    await expectLinks(page, link, 'Per E-Mail senden', (network) => `Auf ${network} teilen`);
    const tweet = new URL((await page.getByRole('link', { name: 'Auf X teilen' }).getAttribute('href'))!);
    expect(tweet.searchParams.get('text')).toBe('Für die Warteliste von Acme anmelden');
    expect(refused).toEqual([]);
  }, 60_000);

  it('where the system has a share sheet, Share opens it with the link', async () => {
    // Chromium on Linux has none: a stand-in that keeps what it was given, as the system's sheet would show it.
    context = await browser.newContext({ baseURL: base });
    await context.addInitScript(() => {
      const inPage = globalThis as unknown as InPage;
      inPage.navigator.share = (data) => Promise.resolve(void (inPage.shared = data));
    });
    const entry = await joinLine(stack, acme.keys.live.publishable, 'sheet@example.com');
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(await confirmPath(stack, 'sheet@example.com'));
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    expect(await page.evaluate(() => (globalThis as unknown as InPage).shared)).toEqual({
      title: 'Join the Acme waitlist',
      url: `${stack.config.PUBLIC_BASE_URL}/w/${acme.keys.live.publishable}?ref=${entry.referralCode}`,
    });
  }, 60_000);

  it('without JavaScript: the plain links for mail and the networks, and no copy button', async () => {
    const { page, link } = await statusPage('noscript@example.com', { javaScriptEnabled: false });
    expect(await page.getByLabel('Your referral link').inputValue()).toBe(link);
    expect(await page.getByRole('button', { name: 'Copy', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Share', exact: true }).count()).toBe(0);
    await expectLinks(page, link, 'Send by mail', (network) => `Share on ${network}`);
  }, 60_000);
});
