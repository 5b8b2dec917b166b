import { Browser, Page } from 'playwright-core';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { Findings, SIZES } from './support/axe';
import { launchBrowser, serve, signInOn } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { confirmPath, joinLine } from './support/flows';
import { api, invitationsTo } from './support/invitations';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

/** axe-core on the hosted pages and the dashboard's main pages, at a laptop's and a phone's size: no serious or critical violation. */
describe('accessibility of the hosted and dashboard pages', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let acme: Product;
  let publicPages: string[];
  let dashboardPages: string[];

  beforeAll(async () => {
    stack = await Stack.start();
    acme = await stack.createProduct({ name: 'Acme Notes for Teams' });
    await stack.api.get(DashboardAuthService).createUser('ada.lovelace@acme-notes.example', PASSWORD, acme.id);
    const grace = await joinLine(stack, acme.keys.live.publishable, 'grace.hopper@acme-notes.example');
    const alan = await joinLine(stack, acme.keys.live.publishable, 'alan.turing@acme-notes.example', grace.referralCode!);
    expect((await api(stack, acme.keys.live.secret).invite(alan.id)).status).toBe(200);
    await waitFor(() => invitationsTo(stack, 'alan.turing@acme-notes.example').length === 1, 'the invitation mail');
    const invitation = new URL(linkIn(invitationsTo(stack, 'alan.turing@acme-notes.example')[0], `${stack.config.PUBLIC_BASE_URL}/invitation?invite=`));
    const key = acme.keys.live.publishable;
    publicPages = [`/w/${key}`, await confirmPath(stack, 'grace.hopper@acme-notes.example'), invitation.pathname + invitation.search, `/w/${key}/my-data`];
    const at = `/dashboard/${acme.id}/live`;
    dashboardPages = [
      '/dashboard',
      `${at}/overview`,
      `${at}/entries`,
      `${at}/entries/${grace.id}`,
      `${at}/entries/import`,
      `${at}/line`,
      `${at}/referrals`,
      `${at}/releases`,
      `${at}/webhooks`,
      `${at}/keys`,
      `${at}/templates`,
      `${at}/templates/confirmation/all`,
      `${at}/sign-up-hooks`,
      `${at}/undeliverable`,
      `${at}/settings`,
      `${at}/settings/line`,
    ];
    browser = await launchBrowser();
    // axe-core is a script the pages' strict CSP refuses: this context alone lets it in.
    page = await browser.newPage({ baseURL: await serve(stack), bypassCSP: true });
    page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  let findings: Findings;
  const check = (name: string) => findings.check(name);

  it.each(SIZES)('the hosted pages at $width px: sign-up, check your inbox, confirm, the status page, invitation, my data', async (size) => {
    findings = new Findings(page);
    await page.setViewportSize(size);
    for (const path of publicPages) {
      await page.goto(path);
      await check(path);
    }
    await page.goto(publicPages[0]);
    await page.getByLabel('Email address').fill(`katherine.${size.width}@acme-notes.example`);
    await page.getByRole('button', { name: 'Join the waitlist' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await check('check your inbox');
    await page.goto(await confirmPath(stack, `katherine.${size.width}@acme-notes.example`));
    await check('confirm, before');
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page.getByText('Share your link').waitFor();
    await check('status, after confirming');
    expect(findings.found).toEqual([]);
  }, 60_000);

  it.each(SIZES)('the dashboard at $width px: sign-in and its main pages', async (size) => {
    findings = new Findings(page);
    await page.setViewportSize(size);
    await page.context().clearCookies();
    await page.goto('/dashboard/login');
    await check('sign-in');
    await signInOn(page, 'ada.lovelace@acme-notes.example', PASSWORD);
    for (const path of dashboardPages) {
      await page.goto(path);
      await check(path);
    }
    expect(findings.found).toEqual([]);
  }, 120_000);
});
