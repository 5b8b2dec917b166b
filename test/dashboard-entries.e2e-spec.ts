import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { EntryRecord, EventRecord } from '@app/shared';
import { joinLine, signUp } from './support/flows';
import { invitationsTo } from './support/invitations';
import { seedHistory } from './support/seed';
import { waitFor } from './support/wait';
import { Product, Stack } from './support/stack';
import { PASSWORD, signIn } from './support/dashboard';

describe('dashboard: entry actions through the API’s services', () => {
  let stack: Stack;
  let acme: Product;
  let other: Product;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    acme = await stack.createProduct();
    other = await stack.createProduct({ name: 'Other' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ cookie, csrf } = await signIn(stack, 'ada@example.com'));
  });
  afterAll(() => stack.stop());

  const act = (id: string, action: string, fields: Record<string, string> = {}, productId = acme.id) =>
    stack.request({
      method: 'POST',
      url: `/dashboard/${productId}/test/entries/${id}/${action}`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    });
  const show = async (url: string) => (await stack.request({ method: 'GET', url, headers: { cookie } })).text;

  it('invite from the entry page hands the mail over and emits entry.invited, like the API', async () => {
    const entry = await joinLine(stack, acme.keys.test.publishable, 'guest@example.com');
    const page = await show(`/dashboard/${acme.id}/test/entries/${entry.id}`);
    expect(page).toContain('Place in line: <strong>#1</strong>');
    const response = await act(entry.id, 'invite');
    expect(response.status).toBe(303);
    expect(await show(String(response.headers.location))).toContain('the entry is invited');
    expect(invitationsTo(stack, 'guest@example.com')).toHaveLength(1);
    expect(await stack.db.getRepository(EventRecord).countBy({ type: 'entry.invited' })).toBe(1);
    const again = await act(entry.id, 'invite');
    expect(await show(String(again.headers.location))).toContain('already invited');
  });

  it('move up, errors in words, delete; another product’s entries are out of reach', async () => {
    const [first, second] = [await joinLine(stack, acme.keys.test.publishable, 'first@example.com'), await joinLine(stack, acme.keys.test.publishable, 'second@example.com')];
    expect(await show(String((await act(second.id, 'move-up', { places: '5' })).headers.location))).toContain('moved up');
    expect(await show(`/dashboard/${acme.id}/test/entries/${second.id}`)).toContain('Place in line: <strong>#1</strong>');
    expect(await show(String((await act(second.id, 'move-up', { places: 'lots' })).headers.location))).toContain('whole number');
    await signUp(stack, acme.keys.test.publishable, 'unconfirmed@example.com');
    const pending = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'unconfirmed@example.com' });
    expect(await show(String((await act(pending.id, 'invite')).headers.location))).toContain('has not confirmed');

    const deleted = await act(first.id, 'delete');
    expect([deleted.status, deleted.headers.location]).toEqual([303, `/dashboard/${acme.id}/test/entries`]);
    expect(await stack.db.getRepository(EntryRecord).existsBy({ id: first.id })).toBe(false);
    expect(await stack.db.getRepository(EventRecord).countBy({ type: 'entry.deleted' })).toBe(1);

    const foreign = await joinLine(stack, other.keys.test.publishable, 'foreign@example.com');
    expect((await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/test/entries/${foreign.id}`, headers: { cookie } })).status).toBe(404);
    expect((await act(foreign.id, 'delete')).status).toBe(404);
    expect((await act(foreign.id, 'delete', {}, other.id)).status).toBe(404);
    expect(await stack.db.getRepository(EntryRecord).existsBy({ id: foreign.id })).toBe(true);
    const noToken = await stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/test/entries/${second.id}/delete`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(noToken.status).toBe(403);
    expect(await stack.db.getRepository(EntryRecord).existsBy({ id: second.id })).toBe(true);
  });

  it('the line shows waiting entries in line order; invite the next N from there', async () => {
    const line = await show(`/dashboard/${acme.id}/test/line`);
    const emails = [...line.matchAll(/<td>#(\d+)<\/td><td><a [^>]+>([^<]+)<\/a>/g)].map((match) => [Number(match[1]), match[2]]);
    expect(emails).toEqual([[1, 'second@example.com']]);
    await joinLine(stack, acme.keys.test.publishable, 'third@example.com');
    const response = await stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/test/line/invite-next`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, count: '2' }).toString(),
    });
    expect([response.status, response.headers.location]).toEqual([303, `/dashboard/${acme.id}/test/line`]);
    const after = await show(String(response.headers.location));
    expect(after).toContain('2 invited');
    expect(after).toContain('Nobody is waiting');
    expect(invitationsTo(stack, 'second@example.com')).toHaveLength(1);
    expect(invitationsTo(stack, 'third@example.com')).toHaveLength(1);

    const refused = await stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/test/line/invite-next`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, count: '1001' }).toString(),
    });
    expect([refused.status, refused.text]).toEqual([400, expect.stringContaining('Invite from 1 to 1,000 people at a time.')]);
  });

  it('exports the filtered entries as CSV, every page of them', async () => {
    const csv = await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/test/entries.csv?state=invited`, headers: { cookie } });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toContain('attachment');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('id,email,state,createdAt,confirmedAt,invitedAt,redeemedAt,referralCode,referrals,locale,utm_source,utm_medium,utm_campaign,utm_term,utm_content,referrer,landing_page,answers');
    expect(lines.slice(1).map((line) => line.split(',')[1]).sort()).toEqual(['guest@example.com', 'second@example.com', 'third@example.com']);
    expect((await stack.request({ method: 'GET', url: `/dashboard/${other.id}/test/entries.csv`, headers: { cookie } })).status).toBe(404);

    // Thousands of entries: streamed page after page, each once, newest first.
    const big = await stack.createProduct({ name: 'Big' });
    await seedHistory(stack.db, { productId: big.id, mode: 'live' }, 2500, 'csv');
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, big.id);
    const all = (await stack.request({ method: 'GET', url: `/dashboard/${big.id}/live/entries.csv`, headers: { cookie } })).text.trim().split('\r\n').slice(1);
    expect(all).toHaveLength(2500);
    expect(new Set(all.map((line) => line.split(',')[0])).size).toBe(2500);
    const created = all.map((line) => line.split(',')[3]);
    expect(created).toEqual([...created].sort().reverse());
    const pending = (await stack.request({ method: 'GET', url: `/dashboard/${big.id}/live/entries.csv?state=pending&email=csv-1`, headers: { cookie } })).text;
    expect(pending.trim().split('\r\n').slice(1).every((line) => line.includes(',pending,') && line.includes('csv-1'))).toBe(true);
  });

  it('API keys: a new pair shows its secret once and works; revoking makes it 401; last use is shown', async () => {
    const created = await stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/test/keys`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(created.status).toBe(303);
    const secret = /<code data-secret>(sk_test_[A-Za-z0-9_-]+)<\/code>/.exec(await show(String(created.headers.location)))![1];
    const list = () => stack.request({ method: 'GET', url: '/api/v1/entries', headers: { authorization: `Bearer ${secret}` } });
    expect((await list()).status).toBe(200);
    await waitFor(async () => (await stack.db.query(`SELECT 1 FROM api_keys WHERE hint LIKE $1 AND last_used_at IS NOT NULL`, [`${secret.slice(0, 12)}%`])).length === 1, 'last use to be recorded');
    const page = await show(`/dashboard/${acme.id}/test/keys`);
    const row = page.split('<tr>').find((part) => part.includes(secret.slice(0, 12)))!;
    expect(row).toMatch(/<td>secret<\/td><td>[\d-]+ [\d:]+ UTC<\/td><td>[\d-]+ [\d:]+ UTC<\/td>/);
    expect(page).not.toContain(secret);
    expect(page).toContain(secret.slice(0, 12));
    const [key] = await stack.db.query(`SELECT id FROM api_keys WHERE hint LIKE $1`, [`${secret.slice(0, 12)}%`]);
    const revoked = await stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/test/keys/${key.id}/revoke`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(revoked.status).toBe(303);
    expect((await list()).status).toBe(401);
    expect(await show(`/dashboard/${acme.id}/test/keys`)).toContain('revoked');
    // Another product's key cannot be revoked from here.
    const [foreignKey] = await stack.db.query(`SELECT id FROM api_keys WHERE product_id = $1 AND kind = 'secret' LIMIT 1`, [other.id]);
    const refused = await stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/test/keys/${foreignKey.id}/revoke`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(refused.status).toBe(404);
    expect((await stack.request({ method: 'GET', url: '/api/v1/entries', headers: { authorization: `Bearer ${other.keys.test.secret}` } })).status).toBe(200);
  });
});
