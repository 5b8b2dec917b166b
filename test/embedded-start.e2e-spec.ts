import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { alive, NpmStart } from './support/npm-start';
import { freePort } from './support/throwaway-redis';
import { waitFor } from './support/wait';

const ROOT = join(__dirname, '..');

/** The link in the newest development-inbox mail to `email` whose subject matches, by `pattern`. */
async function linkInMail(service: NpmStart, email: string, subject: RegExp, pattern: RegExp): Promise<string> {
  let link: string | undefined;
  await waitFor(async () => {
    const inbox = await (await service.fetch('/dev/mail')).text();
    const mails = [...inbox.matchAll(/<a href="\/dev\/mail\/([^"]+)">([^<]*)<\/a><br><span class="muted">to ([^ ]+) /g)];
    const mail = mails.find(([, , title, to]) => to === email && subject.test(title));
    if (!mail) return false;
    link = (await (await service.fetch(`/dev/mail/${mail[1]}`)).text()).match(pattern)?.[0];
    return link !== undefined;
  }, `a mail to ${email}`);
  return link!.replace(/&amp;/g, '&');
}

describe('npm start with nothing configured', () => {
  const dataDir = join(ROOT, '.data', `start-test-${randomBytes(4).toString('hex')}`);
  let service: NpmStart | undefined;

  afterAll(async () => {
    if (service?.running) await service.interrupt();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the whole service on an embedded PostgreSQL and Redis, stops on Ctrl-C leaving no process, and finds everything at the next start', async () => {
    const port = await freePort();
    // Only what a newcomer's shell has: no DATABASE_URL, REDIS_URL or SMTP_URL.
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), EMBEDDED_DATA_DIR: dataDir };
    service = await NpmStart.start(env, port);
    expect(service.said(`PostgreSQL: embedded, data in`)).toBe(true);
    expect(service.said(`Redis: redis-server from PATH, data in`)).toBe(true);
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-keys.json'), 'utf8')) as { keys: { test: { secret: string; publishable: string } } };
    const auth = { authorization: `Bearer ${demo.keys.test.secret}`, 'content-type': 'application/json' };

    const email = 'newcomer@example.com';
    const signup = await service.fetch('/public/v1/signups', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: demo.keys.test.publishable, email }) });
    expect(signup.status).toBe(202);
    const confirm = new URL(await linkInMail(service, email, /confirm/i, /https?:\/\/[^\s"<]+\/confirm\/[^\s"<]+/));
    expect((await service.fetch(confirm.pathname, { method: 'POST' })).status).toBe(303);

    const listed = (await (await service.fetch(`/api/v1/entries?email=${email}`, { headers: auth })).json()) as { data: { id: string; state: string }[] };
    const id = listed.data[0].id;
    expect(listed.data[0].state).toBe('confirmed');
    expect((await service.fetch(`/api/v1/entries/${id}/invite`, { method: 'POST', headers: auth, body: '{}' })).status).toBe(200);
    const invitation = await linkInMail(service, email, /invit/i, /https?:\/\/[^\s"<]+[?&]invite=[A-Za-z0-9_-]+/);
    // The demo product has no invite URL: the link, as written, opens the service's own invitation page.
    expect(invitation.startsWith(`http://localhost:${port}/invitation?invite=`)).toBe(true);
    const page = await fetch(invitation);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const text = await page.text();
    expect(text).toContain("<h1>You're invited to Demo</h1>");
    expect(text).toContain(`This invitation is for <strong>${email}</strong>`);
    const code = new URL(invitation).searchParams.get('invite')!;
    const redeemed = await service.fetch('/api/v1/invites/redeem', { method: 'POST', headers: auth, body: JSON.stringify({ token: code }) });
    expect(await redeemed.json()).toMatchObject({ valid: true });

    const processes = service.descendants();
    // npm, its shell, the supervisor, three apps, the servers' host, PostgreSQL (and its workers), redis-server.
    expect(processes.length).toBeGreaterThanOrEqual(8);
    const stopTook = await service.interrupt();
    expect(stopTook).toBeLessThan(15_000);
    await waitFor(() => processes.every((pid) => !alive(pid)), 'every process npm start ran to be gone', { timeoutMs: 2000 });

    service = await NpmStart.start(env, port);
    const again = (await (await service.fetch(`/api/v1/entries/${id}`, { headers: auth })).json()) as { state: string };
    expect(again.state).toBe('redeemed');
    const secondProcesses = service.descendants();
    expect((await service.interrupt()) < 15_000).toBe(true);
    await waitFor(() => secondProcesses.every((pid) => !alive(pid)), 'every process of the second start to be gone', { timeoutMs: 2000 });
  }, 240_000);
});
