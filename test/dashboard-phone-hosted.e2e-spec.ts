import { Browser, Page } from 'playwright-core';
import { launchBrowser, serve } from './support/browser';
import { confirmPath, joinLine } from './support/flows';
import { api, invitationsTo } from './support/invitations';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';
import { phoneChecks, PHONE } from './support/phone';

/** Every hosted page at a phone's size, clicked through in Debian's chromium (the dashboard's pages: dashboard-phone-pages). */
describe('hosted pages on a phone', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let acme: Product;

  beforeAll(async () => {
    stack = await Stack.start();
    acme = await stack.createProduct({ name: 'Acme Notes for Teams' });
    const grace = await joinLine(stack, acme.keys.live.publishable, 'grace.hopper@acme-notes.example');
    await joinLine(stack, acme.keys.live.publishable, 'alan.turing@acme-notes.example', grace.referralCode!);
    browser = await launchBrowser();
    page = await browser.newPage({ baseURL: await serve(stack), viewport: PHONE });
    // Far below the test's own timeout, so that a missing element is reported by name.
    page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const { problems, fits } = phoneChecks(() => page);

  it('every hosted page fits a 390×844 screen: sign-up, check your inbox, confirm before and after, invited, unsubscribe before and after, a dead link, the invitation page with a valid, used, expired and unknown code', async () => {
    problems.length = 0;
    const grace = await stack.db.query(`SELECT id, referral_code FROM entries WHERE email = 'grace.hopper@acme-notes.example'`);
    await page.goto(`/w/${acme.keys.live.publishable}?ref=${grace[0].referral_code}`);
    await fits('sign-up form');
    await page.getByLabel('Email address').fill('katherine.johnson@acme-notes.example');
    await page.getByRole('button', { name: 'Join the waitlist' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await fits('check your inbox');

    await page.goto(await confirmPath(stack, 'katherine.johnson@acme-notes.example'));
    await fits('confirm, before');
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page.getByText('Share your link').waitFor();
    await page.getByRole('button', { name: 'Copy', exact: true }).waitFor();
    await fits('confirm, after: place, referral link, copy button and share links');

    const alan = await stack.db.query(`SELECT id FROM entries WHERE email = 'alan.turing@acme-notes.example'`);
    expect((await api(stack, acme.keys.live.secret).invite(alan[0].id)).status).toBe(200);
    // The confirmation mail, the first of two now.
    await page.goto(new URL(linkIn(stack.mail.to('alan.turing@acme-notes.example')[0], `${stack.config.PUBLIC_BASE_URL}/confirm/`)).pathname);
    await page.getByRole('heading', { name: "You're invited" }).waitFor();
    await fits('confirm, invited');

    const mail = await stack.mail.waitFor('katherine.johnson@acme-notes.example', 1);
    const unsubscribe = new URL(linkIn(mail, `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`)).pathname;
    await page.goto(unsubscribe);
    await fits('unsubscribe, before');
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByRole('heading', { name: "You're unsubscribed" }).waitFor();
    await fits('unsubscribe, after');
    await page.goto(unsubscribe);
    await fits('a link no longer valid');

    // Acme has no invite URL, so an invitation mail links to the hosted invitation page.
    const invitationTo = async (email: string) => {
      await waitFor(() => invitationsTo(stack, email).length === 1, `the invitation mail to ${email}`);
      return new URL(linkIn(invitationsTo(stack, email)[0], `${stack.config.PUBLIC_BASE_URL}/invitation?invite=`));
    };
    const opens = async (url: URL | string, status: number, heading: string) => {
      const answer = await page.goto(typeof url === 'string' ? url : url.pathname + url.search);
      expect(answer?.status()).toBe(status);
      await page.getByRole('heading', { name: heading }).waitFor();
    };
    const alanInvitation = await invitationTo('alan.turing@acme-notes.example');
    await opens(alanInvitation, 200, "You're invited to Acme Notes for Teams");
    for (const shown of ['alan.turing@acme-notes.example', 'For developers: Acme Notes for Teams has no invite URL', 'curl -X POST']) {
      await page.getByText(shown).first().waitFor();
    }
    await fits('invitation, valid: address, product, developer note and curl line');
    expect((await api(stack, acme.keys.live.secret).redeem(alanInvitation.searchParams.get('invite')!)).json()).toMatchObject({ valid: true });
    await opens(alanInvitation, 410, 'This invitation was already used');
    await fits('invitation, used');

    expect((await api(stack, acme.keys.live.secret).invite(grace[0].id)).status).toBe(200);
    const graceInvitation = await invitationTo('grace.hopper@acme-notes.example');
    await stack.db.query(`UPDATE invite_codes SET expires_at = now() - interval '1 minute' WHERE entry_id = $1`, [grace[0].id]);
    await opens(graceInvitation, 410, 'This invitation has expired');
    await fits('invitation, expired');

    await opens(`/invitation?invite=${'A'.repeat(43)}`, 404, 'This invitation link is not valid');
    await fits('invitation, unknown code');
    expect(problems).toEqual([]);
  }, 60_000);
});
