import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { PASSWORD, signIn } from './support/dashboard';
import { bearer, confirmPath, joinLine, signUp } from './support/flows';
import { Receiver } from './support/receiver';
import { linkIn } from './support/smtp-sink';
import { Stack } from './support/stack';
import { waitFor } from './support/wait';

describe('logs at the most verbose level', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ env: { LOG_LEVEL: 'trace', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_DELAYS: '100ms,100ms' } });
  });
  afterAll(() => stack.stop());

  /** Every line of the three apps so far, parsed: each must be one JSON object. */
  const lines = () => stack.logs.map((line) => JSON.parse(line) as Record<string, unknown>);

  it('are one JSON line per event, each with its app, level and time', async () => {
    await stack.request({ method: 'GET', url: '/healthz' });
    const parsed = lines();
    expect(new Set(parsed.map((line) => line.app))).toEqual(new Set(['api', 'mailer', 'webhooks']));
    for (const line of parsed) {
      expect(line).toEqual(expect.objectContaining({ level: expect.stringMatching(/^(trace|debug|info|warn|error|fatal)$/), time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }));
    }
    expect(stack.logs.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
  });

  it('carry the X-Request-Id a request sent, or one made for it, which its answer returns, into the mailer’s lines about its mails', async () => {
    const product = await stack.createProduct();
    const sent = await stack.request({ method: 'POST', url: '/public/v1/signups', headers: { 'x-request-id': 'signup-trace-1' }, body: { key: product.keys.test.publishable, email: 'traced@example.com' } });
    expect(sent.headers['x-request-id']).toBe('signup-trace-1');
    await stack.mail.waitFor('traced@example.com');
    const made = await stack.request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'a line\nforged' } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);

    const traced = () => lines().filter((line) => line.requestId === 'signup-trace-1');
    // One process runs the three apps here, and Nest's Logger writes through the app created last: the
    // mailer's lines are told by their context (each app is a process of its own in production).
    await waitFor(() => traced().some((line) => line.context === 'MailSender'), 'the mailer to log the handover');
    expect(traced().map((line) => [line.context ?? line.app, line.msg])).toEqual(
      expect.arrayContaining([
        ['api', 'request completed'],
        ['MailSender', expect.stringMatching(/^The confirmation mail to ent_\w+ was handed over$/)],
      ]),
    );
    expect(lines().find((line) => line.requestId === made.headers['x-request-id'])).toMatchObject({ app: 'api', url: '/healthz', status: 200 });

    const entry = await joinLine(stack, product.keys.test.publishable, 'invited@example.com');
    const invited = await stack.request({ method: 'POST', url: `/api/v1/entries/${entry.id}/invite`, headers: { ...bearer(product.keys.test.secret), 'x-request-id': 'invite-trace-1' } });
    expect([invited.status, invited.headers['x-request-id']]).toEqual([200, 'invite-trace-1']);
    expect(lines().filter((line) => line.requestId === 'invite-trace-1').map((line) => line.msg)).toContain(`The invitation mail to ${entry.id} was handed over`);
    expect(stack.logs.join('')).not.toMatch(/(traced|invited)@example\.com/);
  });

  it('never show keys, confirmation or unsubscribe tokens, or addresses from query strings', async () => {
    const product = await stack.createProduct();
    await signUp(stack, product.keys.test.publishable, 'private@example.com');
    const confirm = await confirmPath(stack, 'private@example.com');
    const unsubscribe = new URL(linkIn(await stack.mail.waitFor('private@example.com'), `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`)).pathname;
    await stack.request({ method: 'GET', url: confirm });
    await stack.request({ method: 'POST', url: confirm });
    await stack.request({ method: 'GET', url: '/api/v1/invited?email=private@example.com', headers: bearer(product.keys.test.secret) });
    await stack.request({ method: 'GET', url: '/api/v1/entries', headers: bearer('sk_test_wrong-key-value') });
    await stack.request({ method: 'GET', url: unsubscribe });
    await stack.request({ method: 'POST', url: unsubscribe });

    const log = stack.logs.join('');
    expect(log).toContain('/confirm/[redacted]'); // the request log is on, and redacted
    for (const secret of [
      confirm.split('/').pop()!,
      unsubscribe.split('/').pop()!,
      product.keys.test.secret,
      'sk_test_wrong-key-value',
      'private@example.com',
    ]) {
      expect(log).not.toContain(secret);
    }
  });

  it('never show webhook signing secrets of either format, made in the dashboard, rotated, shown or signing a delivery', async () => {
    const product = await stack.createProduct();
    await stack.api.get(DashboardAuthService).createUser('hooks@example.com', PASSWORD, product.id);
    const { cookie, csrf } = await signIn(stack, 'hooks@example.com');
    const base = `/dashboard/${product.id}/test/webhooks`;
    const post = (url: string, fields: Record<string, string> = {}) =>
      stack.request({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString() });
    const shownSecret = async () => /<code data-secret>(whsec_[^<]+)<\/code>/.exec((await stack.request({ method: 'GET', url: base, headers: { cookie } })).text)![1];
    const receiver = await new Receiver().start();
    // Two failed attempts in all: whichever endpoint gets them, each delivery is retried and ends delivered.
    receiver.answer = (index) => (index < 2 ? 500 : 200);
    try {
      const secrets: string[] = [];
      for (const signatureFormat of ['service', 'standard']) {
        await post(base, { url: `${receiver.url}/${signatureFormat}`, events: 'entry.created', signatureFormat });
        secrets.push(await shownSecret());
        const [{ id }] = await stack.db.query('SELECT id FROM webhook_endpoints WHERE url = $1', [`${receiver.url}/${signatureFormat}`]);
        await post(`${base}/${id}/rotate`);
        secrets.push(await shownSecret());
        await post(`${base}/${id}/test`);
      }
      await receiver.waitFor(4);

      const log = stack.logs.join('');
      expect(log).toContain(`${base}/`); // the dashboard's requests are logged
      for (const secret of secrets) {
        expect(log).not.toContain(secret);
        expect(log).not.toContain(secret.slice('whsec_'.length));
      }
    } finally {
      await receiver.stop();
    }
  });
});
