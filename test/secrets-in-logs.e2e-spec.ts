import { DashboardAuthService } from '../apps/api/src/dashboard/dashboard-auth.service';
import { PASSWORD, signIn } from './support/dashboard';
import { bearer, confirmPath, signUp } from './support/flows';
import { Receiver } from './support/receiver';
import { linkIn } from './support/smtp-sink';
import { Stack } from './support/stack';

describe('logs at the most verbose level', () => {
  let stack: Stack;
  const written: string[] = [];
  let restore: () => void;

  beforeAll(async () => {
    const original = process.stdout.write.bind(process.stdout);
    const originalErr = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((chunk: string | Uint8Array) => (written.push(String(chunk)), true)) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
    restore = () => {
      process.stdout.write = original;
      process.stderr.write = originalErr;
    };
    stack = await Stack.start({ env: { LOG_LEVEL: 'trace', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_DELAYS: '100ms,100ms' } });
  });
  afterAll(async () => {
    restore();
    await stack.stop();
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

    const log = written.join('');
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

      const log = written.join('');
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
