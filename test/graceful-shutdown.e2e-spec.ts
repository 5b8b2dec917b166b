import { Delivery, EntryRecord } from '@app/shared';
import { Not } from 'typeorm';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { bearer } from './support/flows';
import { invitationsTo, seedLine } from './support/invitations';
import { AppProcess } from './support/processes';
import { Receiver } from './support/receiver';
import { AppName, Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

const SIGN_UPS = 100;
const IN_LINE = 300;
const INVITE_NEXT = 5;
/** Each of the 8 sign-up loops waits this long between its sign-ups: at most 80 a second in all. */
const PACE_MS = 100;
interface InviteNext {
  invited: string[];
  failed: string[];
}

const ENV = {
  RATE_LIMIT_SIGNUP: '100000/1m',
  RATE_LIMIT_API: '100000/1s',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  // Generous for a machine busy with other suites: an answer that came too late would be retried, and counted twice.
  WEBHOOK_TIMEOUT: '5s',
  WEBHOOK_RETRY_DELAYS: '1s,1s,1s,1s,1s',
  RECONCILE_INTERVAL: '1s',
  // Long enough for the load balancer (the test) to see /readyz fail and for the requests already sent
  // to the old api to be answered, on a machine busy with other test files.
  SHUTDOWN_GRACE: '5s',
};

/**
 * Each app, a real process, gets SIGTERM in the middle of a burst of sign-ups, invitations and webhook
 * deliveries, and a new one starts in its place (as a deployment rolls): nothing is lost, nothing is
 * sent twice, and every answer the burst got tells the truth.
 */
describe('SIGTERM to each app during a burst', () => {
  let stack: Stack;
  let receiver: Receiver;
  let product: Product;
  const apps = new Map<AppName, AppProcess>();
  let api: () => string;

  beforeAll(async () => {
    // The in-process api sets the product up; the burst goes to the api process.
    stack = await Stack.start({ apps: ['api'], env: ENV });
    receiver = await new Receiver().start();
    product = await stack.createProduct();
    await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'live', url: receiver.url, events: ['entry.created'] });
    for (const name of ['api', 'mailer', 'webhooks'] as const) apps.set(name, await AppProcess.start(name, stack.config, { env: ENV }));
    api = () => apps.get('api')!.url;
  });
  afterAll(async () => {
    await Promise.all([...apps.values()].map((app) => app.kill()));
    await receiver.stop();
    await stack.stop();
  });

  /**
   * A request to the newest api process; one refused at the door (none listening for a moment) is sent
   * again, as it never reached a process. Anything else, a connection cut under a request above all,
   * fails the test: the client could not know whether its request was done.
   */
  async function send<T>(path: string, body: object, headers: Record<string, string> = {}): Promise<{ status: number; json: T }> {
    for (;;) {
      try {
        const answer = await fetch(`${api()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
        return { status: answer.status, json: (await answer.json()) as T };
      } catch (error) {
        const code = (error as { cause?: { code?: string } }).cause?.code;
        if (code !== 'ECONNREFUSED') throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  /**
   * A new process of the app and SIGTERM to the old one, as a rolling deployment does. The api's
   * successor is started first; the burst goes on to the old one until its /readyz fails, as a load
   * balancer's does, and then turns to the successor. The old one then has only the requests already on
   * their way to finish, however long its successor took to start on a busy machine.
   */
  async function roll(name: AppName): Promise<void> {
    const old = apps.get(name)!;
    const next = AppProcess.start(name, stack.config, { env: ENV });
    if (name !== 'api') {
      await Promise.all([old.stop(), next.then((started) => void apps.set(name, started))]);
      return;
    }
    const successor = await next;
    const stopped = old.stop();
    // Draining: still answering, but not ready, and closing each connection after its answer.
    await waitFor(async () => (await fetch(`${old.url}/readyz`)).status === 503, 'the old api to drain');
    const ready = await fetch(`${old.url}/readyz`);
    expect([ready.status, await ready.json(), ready.headers.get('connection')]).toEqual([503, { status: 'draining' }, 'close']);
    apps.set(name, successor);
    await stopped;
  }

  it('loses no sign-up, confirmation mail, invitation or delivery, and sends none twice', async () => {
    const seeded = await seedLine(stack, { productId: product.id, mode: 'live' }, IN_LINE, 'waiting');
    // Each mail takes a moment at the SMTP server, so that some are being handed over at each SIGTERM.
    stack.mail.beforeAccept = () => new Promise((resolve) => setTimeout(resolve, 10));
    let rolling = true;
    const emails: string[] = [];
    const answered: number[] = [];
    const signingUp = Array.from({ length: 8 }, async () => {
      while (rolling || emails.length < SIGN_UPS) {
        const email = `burst-${emails.length}@example.com`;
        emails.push(email);
        answered.push((await send('/public/v1/signups', { key: product.keys.live.publishable, email })).status);
        // A steady stream rather than all the api can take: unpaced, a fast machine signed up 4,000
        // addresses during the rolls, whose mails (each held 10 ms at the server) outlasted the wait below.
        await new Promise((resolve) => setTimeout(resolve, PACE_MS));
      }
    });
    const results: { status: number; json: InviteNext }[] = [];
    const inviting = Array.from({ length: 3 }, async () => {
      while (rolling && results.length < IN_LINE / INVITE_NEXT) results.push(await send<InviteNext>('/api/v1/entries/invite-next', { count: INVITE_NEXT }, bearer(product.keys.live.secret)));
    });

    await waitFor(() => stack.mail.mails.length > 0 && receiver.received.length > 0, 'mails and deliveries to be under way');
    for (const name of ['mailer', 'webhooks', 'api'] as const) {
      const before = answered.length;
      await roll(name);
      // The burst went on while the app stopped and its successor started.
      expect(answered.length).toBeGreaterThan(before);
    }
    rolling = false;
    await Promise.all([...signingUp, ...inviting]);

    // Every sign-up answered, each address mailed once.
    expect(answered.filter((status) => status !== 202)).toEqual([]);
    await waitFor(() => emails.every((email) => stack.mail.to(email).length > 0), 'a confirmation mail to every address', { timeoutMs: 60_000 });
    expect(emails.filter((email) => stack.mail.to(email).length !== 1)).toEqual([]);

    // Every invite-next answer tells the truth: an entry an answer invited has one mail, and no entry was
    // invited twice; one answered failed had no mail of that call and went back in line, where a later call
    // of the burst may have invited it: one that none invited has no mail and is still in line.
    expect(results.filter((result) => result.status !== 200)).toEqual([]);
    const invited = results.flatMap((result) => result.json.invited);
    expect(invited.length).toBeGreaterThan(0);
    expect(new Set(invited).size).toBe(invited.length);
    const failedOnly = results.flatMap((result) => result.json.failed).filter((id) => !invited.includes(id));
    const byId = new Map(seeded.map((entry) => [entry.id, entry]));
    expect(invited.filter((id) => invitationsTo(stack, byId.get(id)!.email).length !== 1)).toEqual([]);
    expect(failedOnly.filter((id) => invitationsTo(stack, byId.get(id)!.email).length !== 0)).toEqual([]);
    const states = await stack.db.getRepository(EntryRecord).findBy(seeded.map((entry) => ({ id: entry.id })));
    expect(states.filter((entry) => (entry.state === 'invited') !== invited.includes(entry.id))).toEqual([]);

    // Every sign-up's entry.created reaches the endpoint, each delivery made once. (The delivery log keeps
    // only the last 100 of an endpoint, and a slow run makes more: the receiver's requests tell.)
    const deliveredTo = () => new Set(receiver.received.map((request) => (JSON.parse(request.body) as { data: { entry: { email: string } } }).data.entry.email));
    await waitFor(() => emails.every((email) => deliveredTo().has(email)), 'an entry.created delivery of every sign-up', { timeoutMs: 60_000 });
    expect(await stack.db.getRepository(Delivery).countBy({ status: Not('succeeded') })).toBe(0);
    const deliveryIds = receiver.received.map((request) => String(request.headers['service-delivery']));
    expect(new Set(deliveryIds).size).toBe(emails.length);
    expect(deliveryIds).toHaveLength(emails.length);
  }, 180_000);
});
