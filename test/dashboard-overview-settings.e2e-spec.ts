import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { bearer, joinLine, signUp } from './support/flows';
import { api, codeIn, invitationsTo } from './support/invitations';
import { Product, Stack } from './support/stack';
import { form, PASSWORD, signIn } from './support/dashboard';

describe('dashboard: overview and product settings', () => {
  let stack: Stack;
  let acme: Product;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ cookie, csrf } = await signIn(stack, 'ada@example.com'));
  });
  afterAll(() => stack.stop());

  const show = async (url: string) => (await stack.request({ method: 'GET', url, headers: { cookie } })).text;
  /** A settings section's form: the line's, valid but for the fields given, or another section's fields as given. */
  const save = (fields: Record<string, string>, section = 'line') =>
    stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/live/settings/${section}`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ _csrf: csrf, ...(section === 'line' ? { name: 'Acme', inviteUrl: '', signupUrl: '', referralPlaces: '1' } : {}), ...fields }),
    });
  const tile = (page: string, label: string) => new RegExp(`${label}</div><div class="count">([\\d,]+)<`).exec(page)?.[1];
  const total = (page: string, label: string) => new RegExp(`${label}: <strong>(\\d+)</strong>`).exec(page)?.[1];

  it('the overview counts entries by state and, per day from the events, what happened in this mode', async () => {
    const pk = acme.keys.live.publishable;
    const [first] = [await joinLine(stack, pk, 'one@example.com'), await joinLine(stack, pk, 'two@example.com')];
    await signUp(stack, pk, 'pending@example.com');
    const gone = await joinLine(stack, pk, 'gone@example.com');
    const client = api(stack, acme.keys.live.secret);
    expect((await client.invite(first.id)).status).toBe(200);
    expect((await client.redeem(codeIn(invitationsTo(stack, 'one@example.com')[0]))).status).toBe(200);
    expect((await client.invite(gone.id)).status).toBe(200);
    await stack.request({ method: 'DELETE', url: `/api/v1/entries/${gone.id}`, headers: bearer(acme.keys.live.secret) });
    await joinLine(stack, acme.keys.test.publishable, 'test-mode@example.com');
    // Days before the chart's 30 are left out.
    await stack.db.query(
      "INSERT INTO daily_event_counts (product_id, mode, day, type, count) VALUES ($1, 'live', (now() AT TIME ZONE 'UTC')::date - 30, 'entry.created', 5)",
      [acme.id],
    );

    // The day counts move with the events, in the same transactions.
    const counted = "SELECT type, sum(count)::int AS n FROM daily_event_counts WHERE product_id = $1 AND day > (now() AT TIME ZONE 'UTC')::date - 30 GROUP BY type ORDER BY type";
    const recorded = 'SELECT type, count(*)::int AS n FROM events WHERE product_id = $1 GROUP BY type ORDER BY type';
    expect(await stack.db.query(counted, [acme.id])).toEqual(await stack.db.query(recorded, [acme.id]));

    const page = await show(`/dashboard/${acme.id}/live/overview`);
    expect([tile(page, 'Entries'), tile(page, 'Waiting for confirmation'), tile(page, 'In line'), tile(page, 'Invited'), tile(page, 'Redeemed')]).toEqual(['3', '1', '1', '0', '1']);
    expect([total(page, 'sign-ups'), total(page, 'confirmations'), total(page, 'invitations'), total(page, 'redemptions')]).toEqual(['4', '3', '2', '1']);
    const today = new Date().toISOString().slice(0, 10);
    expect(page).toContain(`<title>${today}: 4 sign-ups</title>`);
    expect(page.match(/<rect /g)).toHaveLength(4 * 30);
    const test = await show(`/dashboard/${acme.id}/test/overview`);
    expect([tile(test, 'Entries'), total(test, 'sign-ups')]).toEqual(['1', '1']);
  });

  it('settings change the name, the mail sender, the invite URL and the line’s referral places', async () => {
    const pk = acme.keys.test.publishable;
    const early = await joinLine(stack, pk, 'early@example.com');
    // With 1 place per referral friendly (key 3 − 1) passes middle (2) but not early (1).
    await joinLine(stack, pk, 'middle@example.com');
    const friendly = await joinLine(stack, pk, 'friendly@example.com');
    await joinLine(stack, pk, 'friend@example.com', friendly.referralCode!);
    const line = async () =>
      [...(await show(`/dashboard/${acme.id}/test/line`)).matchAll(/<a href="[^"]+">([^<]+@example\.com)<\/a>/g)]
        .map((match) => match[1])
        .filter((email) => ['early@example.com', 'friendly@example.com'].includes(email));
    expect(await line()).toEqual(['early@example.com', 'friendly@example.com']);

    const saved = await save({ name: 'Acme <b>2</b>', inviteUrl: 'https://acme.example/join', referralPlaces: '5' });
    expect([saved.status, saved.headers.location]).toEqual([303, `/dashboard/${acme.id}/live/settings/line`]);
    const page = await show(String(saved.headers.location));
    expect(page).toContain('Saved.');
    expect(page).toContain('Acme &lt;b&gt;2&lt;/b&gt;');
    const sender = await save({ senderName: 'The Acme Team' }, 'mail');
    expect([sender.status, sender.headers.location]).toEqual([303, `/dashboard/${acme.id}/live/settings/mail`]);
    expect(await line()).toEqual(['friendly@example.com', 'early@example.com']);
    const [row] = await stack.db.query('SELECT line_key, confirmation_seq FROM entries WHERE id = $1', [friendly.id]);
    expect(Number(row.line_key)).toBe(Number(row.confirmation_seq) - 5);

    expect((await api(stack, acme.keys.test.secret).invite(early.id)).status).toBe(200);
    const [mail] = invitationsTo(stack, 'early@example.com');
    expect(mail.from).toContain('The Acme Team');
    expect(codeIn(mail)).toBeTruthy();
    expect(mail.text).toContain('https://acme.example/join?invite=');
    expect(mail.subject).toContain('Acme <b>2</b>');
  });

  it('settings refuse what is not valid, in words, and change nothing', async () => {
    const before = await stack.db.query('SELECT * FROM products WHERE id = $1', [acme.id]);
    const sender = await save({ senderName: 'Evil\r\nBcc: victim@example.com' }, 'mail');
    expect([sender.status, sender.text]).toEqual([400, expect.stringContaining('control characters')]);
    for (const [fields, words] of [
      [{ name: '' }, 'The name cannot be empty'],
      [{ name: 'x'.repeat(101) }, 'The name is at most 100 characters'],
      [{ inviteUrl: 'javascript:alert(1)' }, 'The invite URL must be an http(s) URL'],
      [{ signupUrl: 'not a url' }, 'The sign-up page URL must be an http(s) URL'],
      [{ referralPlaces: '-1' }, 'Referral places must be a whole number from 0 to 9999'],
      [{ referralPlaces: '1.5' }, 'Referral places must be a whole number from 0 to 9999'],
      [{ referralPlaces: '' }, 'Referral places must be a whole number from 0 to 9999'],
      [{ referralPlaces: '10000' }, 'Referral places must be a whole number from 0 to 9999'],
    ] as [Record<string, string>, string][]) {
      const refused = await save(fields);
      expect([fields, refused.status]).toEqual([fields, 400]);
      expect(refused.text).toContain(words.replace(/'/g, '&#39;'));
    }
    expect(await stack.db.query('SELECT * FROM products WHERE id = $1', [acme.id])).toEqual(before);
  });
});
