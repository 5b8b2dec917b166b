import { Browser, Page } from 'playwright-core';
import { MyDataLinks } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { LoginHooksService } from '../apps/api/src/login-hooks/login-hooks.service';
import { PersonalDataService } from '../apps/api/src/personal-data/personal-data.service';
import { ReleasesService } from '../apps/api/src/releases/releases.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { Findings, SIZES } from './support/axe';
import { launchBrowser, serve, signInOn } from './support/browser';
import { PASSWORD, signIn } from './support/dashboard';
import { joinLine, signUp } from './support/flows';
import { api, invitationsTo } from './support/invitations';
import { Receiver } from './support/receiver';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

/**
 * axe-core on the pages behind the dashboard's actions and on the hosted pages' other states, at a
 * laptop's and a phone's size: a delivery log with rows, a release and its run, every page that asks
 * before destroying, a deleted entry's old page (410), unsubscribe before and after, and the invitation
 * page used, expired and unknown. No serious or critical violation.
 */
describe('accessibility of the pages behind actions', () => {
  let stack: Stack;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  let acme: Product;
  let dashboardPages: string[];
  let deletedEntry: string;
  let invitationPages: { used: string; expired: string };

  beforeAll(async () => {
    stack = await Stack.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    // The first delivery fails: the log shows one waiting for its retry (with its button) beside one delivered.
    receiver = await new Receiver().start();
    receiver.answer = (index) => (index === 0 ? 500 : 200);
    acme = await stack.createProduct({ name: 'Acme Notes for Teams' });
    const live = { productId: acme.id, mode: 'live' as const };
    await stack.api.get(DashboardAuthService).createUser('ada.lovelace@acme-notes.example', PASSWORD, acme.id);
    const grace = await joinLine(stack, acme.keys.live.publishable, 'grace.hopper@acme-notes.example');
    const alan = await joinLine(stack, acme.keys.live.publishable, 'alan.turing@acme-notes.example', grace.referralCode!);
    const mary = await joinLine(stack, acme.keys.live.publishable, 'mary.jackson@acme-notes.example');
    await joinLine(stack, acme.keys.live.publishable, 'dorothy.vaughan@acme-notes.example');
    const charles = await joinLine(stack, acme.keys.live.publishable, 'charles.babbage@acme-notes.example');
    await stack.api.get(PersonalDataService).delete(new MyDataLinks(stack.config.ENCRYPTION_KEY).sign(charles.id, new Date(Date.now() + 60_000)));

    // Invitations to the hosted page (Acme has no invite URL): alan's is used, grace's expired.
    for (const entry of [alan, grace]) expect((await api(stack, acme.keys.live.secret).invite(entry.id)).status).toBe(200);
    const invitationTo = async (email: string) => {
      await waitFor(() => invitationsTo(stack, email).length === 1, `the invitation mail to ${email}`);
      const url = new URL(linkIn(invitationsTo(stack, email)[0], `${stack.config.PUBLIC_BASE_URL}/invitation?invite=`));
      return { path: url.pathname + url.search, token: url.searchParams.get('invite')! };
    };
    const used = await invitationTo('alan.turing@acme-notes.example');
    expect((await api(stack, acme.keys.live.secret).redeem(used.token)).status).toBe(200);
    const expired = await invitationTo('grace.hopper@acme-notes.example');
    await stack.db.query(`UPDATE invite_codes SET expires_at = now() - interval '1 minute' WHERE entry_id = $1`, [grace.id]);
    invitationPages = { used: used.path, expired: expired.path };

    // A release run now: it invites mary, the front of the line.
    const releases = stack.api.get(ReleasesService);
    const release = await releases.create(live, { count: 1, pattern: '0 9 * * 1-5', timeZone: 'Europe/Berlin' });
    const run = await releases.runNow(live, release.id);

    const hook = await stack.api.get(LoginHooksService).create(live, { provider: 'supabase', failOpen: true });
    const webhooks = stack.api.get(WebhooksService);
    const endpoint = await webhooks.create({ ...live, url: `${receiver.url}/webhooks/waitlist-events` });
    await webhooks.sendTest(endpoint.id);
    await webhooks.sendTest(endpoint.id);
    const at = `/dashboard/${acme.id}/live`;
    const { cookie } = await signIn(stack, 'ada.lovelace@acme-notes.example');
    const log = async () => (await stack.request({ method: 'GET', url: `${at}/webhooks/${endpoint.id}`, headers: { cookie } })).text;
    await waitFor(async () => (await log()).includes('pill succeeded') && (await log()).includes('Retry now'), 'a delivered and a waiting delivery in the log', { intervalMs: 200 });
    const gracePage = await stack.request({ method: 'GET', url: `${at}/entries/${grace.id}`, headers: { cookie } });
    const revokeReferral = /href="([^"]+\/referrals\/[^"]+\/revoke\?back=entry)"/.exec(gracePage.text)![1];
    const [secretKey] = await stack.db.query("SELECT id FROM api_keys WHERE product_id = $1 AND mode = 'live' AND kind = 'secret'", [acme.id]);

    dashboardPages = [
      `${at}/webhooks/${endpoint.id}`,
      `${at}/webhooks/${endpoint.id}/delete`,
      `${at}/webhooks/${endpoint.id}/rotate`,
      `${at}/releases/${release.id}`,
      `${at}/releases/${release.id}/runs/${run.id}`,
      `${at}/releases/${release.id}/run`,
      `${at}/releases/${release.id}/delete`,
      `${at}/entries/${mary.id}`,
      `${at}/entries/${mary.id}/delete`,
      `${at}/entries/bulk?action=delete&ids=${mary.id}`,
      `${at}/entries/bulk?action=move-up&places=3&scope=filter&state=confirmed`,
      `${at}/entries/bulk?action=invite&scope=filter`,
      revokeReferral,
      `${at}/keys/${secretKey.id}/revoke`,
      `${at}/sign-up-hooks/${hook.id}/revoke`,
      `${at}/undeliverable/${grace.id}/clear`,
      `${at}/templates/confirmation/all/reset`,
    ];
    deletedEntry = `${at}/entries/${charles.id}`;
    browser = await launchBrowser();
    // axe-core is a script the pages' strict CSP refuses: this context alone lets it in.
    page = await browser.newPage({ baseURL: await serve(stack), bypassCSP: true });
    page.setDefaultTimeout(10_000);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await stack?.stop();
  });

  let findings: Findings;
  const check = (name: string) => findings.check(name);

  it.each(SIZES)('the dashboard at $width px: a delivery log, a release and its run, the pages that ask first, a deleted entry', async (size) => {
    findings = new Findings(page);
    await page.setViewportSize(size);
    await page.context().clearCookies();
    await signInOn(page, 'ada.lovelace@acme-notes.example', PASSWORD);
    for (const path of dashboardPages) {
      expect([path, (await page.goto(path))?.status()]).toEqual([path, 200]);
      await check(path);
    }
    expect((await page.goto(deletedEntry))?.status()).toBe(410);
    await check("a deleted entry's old page");
    expect(findings.found).toEqual([]);
  }, 120_000);

  it.each(SIZES)('the hosted pages at $width px: unsubscribe before and after, a dead link, the invitation used, expired and unknown', async (size) => {
    findings = new Findings(page);
    await page.setViewportSize(size);
    const email = `katherine.${size.width}@acme-notes.example`;
    await signUp(stack, acme.keys.live.publishable, email);
    const unsubscribe = new URL(linkIn(await stack.mail.waitFor(email, 1), `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`)).pathname;
    await page.goto(unsubscribe);
    await check('unsubscribe, before');
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByRole('heading', { name: "You're unsubscribed" }).waitFor();
    await check('unsubscribe, after');
    await page.goto(unsubscribe);
    await check('a link no longer valid');
    const opens = async (path: string, status: number, heading: string) => {
      expect((await page.goto(path))?.status()).toBe(status);
      await page.getByRole('heading', { name: heading }).waitFor();
      await check(heading);
    };
    await opens(invitationPages.used, 410, 'This invitation was already used');
    await opens(invitationPages.expired, 410, 'This invitation has expired');
    await opens(`/invitation?invite=${'A'.repeat(43)}`, 404, 'This invitation link is not valid');
    expect(findings.found).toEqual([]);
  }, 60_000);
});
