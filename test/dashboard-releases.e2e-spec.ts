import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { seedLine } from './support/invitations';
import { Product, Stack } from './support/stack';

describe("the dashboard's releases and capacity", () => {
  let stack: Stack;
  let product: Product;
  let session: { cookie: string; csrf: string };
  let base: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'] });
    product = await stack.createProduct();
    await stack.api.get(DashboardAuthService).createUser('waves@example.com', PASSWORD, product.id);
    session = await signIn(stack, 'waves@example.com');
    base = `/dashboard/${product.id}/live`;
  });
  afterAll(() => stack.stop());

  const get = (url: string) => stack.request({ method: 'GET', url, headers: { cookie: session.cookie } });
  const post = (url: string, fields: Record<string, string> = {}) =>
    stack.request({ method: 'POST', url, headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form({ _csrf: session.csrf, ...fields }) });
  const followed = async (url: string, fields?: Record<string, string>) => {
    const answer = await post(url, fields);
    expect(answer.status).toBe(303);
    return (await get(String(answer.headers.location))).text;
  };

  it('schedules a release, shows its next run in its zone, pauses, resumes, runs it now and shows the run', async () => {
    expect((await get(`${base}/releases`)).text).toContain('No releases yet.');
    const refused = await post(`${base}/releases`, { count: '10', pattern: '0 9 * *', timeZone: 'Europe/Berlin' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('five fields');
    expect(refused.text).toContain('value="0 9 * *"');

    const listed = await followed(`${base}/releases`, { count: '2', pattern: '0 9 * * 1', timeZone: 'Europe/Berlin' });
    expect(listed).toMatch(/Invite 2 every Monday at 09:00 in Europe\/Berlin<br><span class="muted">cron <code>0 9 \* \* 1<\/code>/);
    expect(listed).toMatch(/\d{4}-\d\d-\d\dT09:00:00\+0[12]:00/);
    const id = /releases\/(rel_[0-9a-f]+)\/run/.exec(listed)![1];

    expect(await followed(`${base}/releases/${id}/pause`)).toContain('>paused<');
    expect(await followed(`${base}/releases/${id}/resume`)).toContain('>active<');
    await seedLine(stack, { productId: product.id, mode: 'live' }, 3, `dash-${product.id}`);
    expect(await followed(`${base}/releases/${id}/run`)).toContain('The run invited 2.');
    const runs = (await get(`${base}/releases/${id}`)).text;
    expect(runs).toContain('run now');
    expect(runs).toMatch(/<td>2<\/td><td>2<\/td>/);
  });

  it('asks before deleting a release, then deletes it', async () => {
    const listed = await followed(`${base}/releases`, { count: '5', pattern: '0 * * * *', timeZone: 'UTC' });
    const id = [...listed.matchAll(/releases\/(rel_[0-9a-f]+)\/delete/g)].at(-1)![1];
    expect(listed).toContain(`href="${base}/releases/${id}/delete"`);
    const ask = await get(`${base}/releases/${id}/delete`);
    expect(ask.text).toContain('Delete this release?');
    expect(ask.text).toContain(`action="${base}/releases/${id}/delete"`);
    expect(await followed(`${base}/releases/${id}/delete`)).not.toContain(id);
    expect((await get(`${base}/releases/${id}`)).status).toBe(404);
  });

  it('makes a release from a plain form of choices, asks before running it now, and lists whom a run invited', async () => {
    const choice = { count: '1', kind: 'weekdays', day: '1', at: '08:30', hours: '6', pattern: '', timeZone: 'America/New_York' };
    const refused = await post(`${base}/releases`, { ...choice, kind: 'hours', hours: '5' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Choose every 1, 2, 3, 4, 6, 8, 12 hours.');
    expect((await post(`${base}/releases`, { ...choice, at: 'nine\u0000' })).status).toBe(400);
    const listed = await followed(`${base}/releases`, choice);
    expect(listed).toContain('Invite 1 every weekday at 08:30 in America/New_York');
    const [{ id, pattern }] = await stack.db.query(`SELECT id, pattern FROM releases WHERE product_id = $1 AND time_zone = 'America/New_York'`, [product.id]);
    expect(pattern).toBe('30 8 * * 1-5');
    expect((await get(`${base}/releases/${id}`)).text).toMatch(/<ol aria-label="The next five runs"[^>]*>(<li>(Monday|Tuesday|Wednesday|Thursday|Friday) \d+ \w+, 08:30 \(America\/New_York\)<\/li>){5}<\/ol>/);

    await seedLine(stack, { productId: product.id, mode: 'live' }, 1, `choice-${product.id}`);
    const ask = (await get(`${base}/releases/${id}/run`)).text;
    expect(ask).toContain('This run will invite 1 person now: the release asks for 1; at least 1 person is waiting in line.');
    expect(ask).toContain(`action="${base}/releases/${id}/run"`);
    await followed(`${base}/releases/${id}/run`);
    const [run] = await stack.db.query(`SELECT id, invited_entry_ids FROM release_runs WHERE release_id = $1`, [id]);
    const [entry] = await stack.db.query(`SELECT email FROM entries WHERE id = $1`, [run.invited_entry_ids[0]]);
    expect((await get(`${base}/releases/${id}/runs/${run.id}`)).text).toContain(`<ul aria-label="Invited" class="wrap"><li><a href="${base}/entries/${run.invited_entry_ids[0]}">${entry.email}</a></li></ul>`);
    expect((await get(`${base}/releases/${id}/runs/run_unknown`)).status).toBe(404);
  });

  it('saves the capacity cap in the settings, and an empty one turns it off', async () => {
    const section = `${base}/settings/claim-window`;
    const settings = (await get(section)).text;
    expect(settings).toContain('name="capacity"');
    const fields = { claimExpiry: 'back_in_line' };
    await followed(section, { ...fields, capacity: '250' });
    expect((await stack.db.query('SELECT capacity FROM products WHERE id = $1', [product.id]))[0].capacity).toBe(250);
    expect((await post(section, { ...fields, capacity: '0' })).text).toContain('The capacity must be a whole number from 1');
    await followed(section, { ...fields, capacity: '' });
    expect((await stack.db.query('SELECT capacity FROM products WHERE id = $1', [product.id]))[0].capacity).toBeNull();
  });
});
