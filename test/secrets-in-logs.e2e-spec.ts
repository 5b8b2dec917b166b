import { bearer, confirmPath, signUp } from './support/flows';
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
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { LOG_LEVEL: 'trace' } });
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
});
