import { ConfirmationsFromOutbox1763892000000 } from '../libs/shared/src/database/migrations/1763892000000-confirmations-from-outbox';
import { signUp } from './support/flows';
import { Stack } from './support/stack';

describe(ConfirmationsFromOutbox1763892000000.name, () => {
  let stack: Stack;

  beforeAll(async () => (stack = await Stack.start({ apps: ['api'] })));
  afterAll(() => stack.stop());

  async function migrate(direction: 'up' | 'down'): Promise<void> {
    const runner = stack.db.createQueryRunner();
    try {
      await new ConfirmationsFromOutbox1763892000000()[direction](runner);
    } finally {
      await runner.release();
    }
  }

  it('hands back the confirmation mails an older relay had published (their jobs now run nowhere), so they are sent; down and up again', async () => {
    const product = await stack.createProduct();
    await migrate('down');
    await signUp(stack, product.keys.test.publishable, 'published@example.com');
    // As an older relay and consumer left it: published, leased by a consumer, its job in Redis for a worker that no longer exists.
    await stack.db.query(`UPDATE outbox SET published_at = now(), leased_until = now() + interval '1 minute' WHERE queue = 'mail'`);

    await migrate('up');
    expect(await stack.db.query(`SELECT published_at, leased_until, attempts FROM outbox WHERE queue = 'mail'`)).toEqual([
      { published_at: null, leased_until: null, attempts: 0 },
    ]);
    await stack.startApp('mailer');
    await stack.mail.waitFor('published@example.com');
  });
});
