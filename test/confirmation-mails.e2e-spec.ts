import { EntryRecord } from '@app/shared';
import { CONFIRMATION_ATTEMPTS } from '../apps/mailer/src/confirmation-mails';
import { signUp } from './support/flows';
import { AppProcess } from './support/processes';
import { Stack } from './support/stack';
import { waitFor } from './support/wait';

/** Confirmation mails go from their outbox rows to SMTP, with no job in Redis: retries, give-ups, crashes, replicas. */
describe('confirmation mails', () => {
  let stack: Stack;
  let pk: string;
  const mailers: AppProcess[] = [];

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    pk = (await stack.createProduct()).keys.test.publishable;
  });
  afterEach(async () => {
    stack.mail.defer.clear();
    stack.mail.refuse.clear();
    stack.mail.beforeAccept = undefined;
    await Promise.all(mailers.splice(0).map((mailer) => mailer.kill()));
    await stack.stopApp('mailer');
  });
  afterAll(() => stack.stop());

  /** The outbox row of the address's confirmation mail, if it still has one. */
  async function rowOf(email: string): Promise<{ attempts: number; dueInMs: number } | undefined> {
    const [row] = await stack.db.query(
      `SELECT o.attempts, extract(epoch FROM o.leased_until - now()) * 1000 AS "dueInMs"
       FROM outbox o JOIN entries e ON e.id = o.data->>'entryId' WHERE o.queue = 'mail' AND e.email = $1`,
      [email],
    );
    return row && { attempts: row.attempts, dueInMs: Number(row.dueInMs) };
  }
  /** As if the time had come: every mail's lease or wait for its next attempt ends now. */
  const timePasses = () => stack.db.query(`UPDATE outbox SET leased_until = now() WHERE queue = 'mail'`);

  it('a temporary refusal leaves the mail in the outbox for its next attempt 15 s later, which hands it over once', async () => {
    await stack.startApp('mailer');
    stack.mail.defer.add('greylisted@example.com');
    await signUp(stack, pk, 'greylisted@example.com');
    await waitFor(async () => {
      const row = await rowOf('greylisted@example.com');
      return row?.attempts === 1 && row.dueInMs > 10_000 && row.dueInMs <= 15_000;
    }, 'the first attempt to fail and the next to be due in 15 s');
    expect(stack.mail.to('greylisted@example.com')).toHaveLength(0);

    stack.mail.defer.clear();
    await timePasses();
    await stack.mail.waitFor('greylisted@example.com');
    await waitFor(async () => (await rowOf('greylisted@example.com')) === undefined, 'the row to go');
    expect(stack.mail.to('greylisted@example.com')).toHaveLength(1);
  });

  it(`a permanent refusal gives the mail up at once, and a temporary one at the ${CONFIRMATION_ATTEMPTS}th attempt; the entry stays pending`, async () => {
    await stack.startApp('mailer');
    stack.mail.refuse.add('unknown@example.com');
    stack.mail.defer.add('full@example.com');
    await signUp(stack, pk, 'unknown@example.com');
    await signUp(stack, pk, 'full@example.com');
    await waitFor(async () => (await rowOf('unknown@example.com')) === undefined, 'the refused mail to be given up');
    await waitFor(async () => (await rowOf('full@example.com'))?.dueInMs! <= 15_000, 'the first attempt to fail');

    await stack.db.query(`UPDATE outbox SET attempts = $1 - 1, leased_until = now() WHERE queue = 'mail'`, [CONFIRMATION_ATTEMPTS]);
    await waitFor(async () => (await rowOf('full@example.com')) === undefined, 'the last attempt to give the mail up');
    expect([...stack.mail.to('unknown@example.com'), ...stack.mail.to('full@example.com')]).toEqual([]);
    const entries = await stack.db.getRepository(EntryRecord).findBy([{ email: 'unknown@example.com' }, { email: 'full@example.com' }]);
    expect(entries.map((entry) => entry.state)).toEqual(['pending', 'pending']);
  });

  it('the mails of a mailer killed mid-send are sent by another once their lease ends, each once', async () => {
    const dying = await AppProcess.start('mailer', stack.config);
    mailers.push(dying);
    // The dying mailer's mails never get past the SMTP server's DATA.
    stack.mail.beforeAccept = () => new Promise<void>(() => undefined);
    const emails = Array.from({ length: 5 }, (_, i) => `orphan-${i}@example.com`);
    for (const email of emails) await signUp(stack, pk, email);
    await waitFor(async () => (await Promise.all(emails.map(rowOf))).every((row) => row?.attempts === 1), 'the mailer to take every mail');
    await dying.kill();

    stack.mail.beforeAccept = undefined;
    await stack.startApp('mailer');
    // Leased by the dead mailer: the new one sends a later sign-up's mail, but takes none of them before their lease ends.
    await signUp(stack, pk, 'later@example.com');
    await stack.mail.waitFor('later@example.com');
    expect((await Promise.all(emails.map(rowOf))).map((row) => row?.attempts)).toEqual(emails.map(() => 1));
    expect(emails.flatMap((email) => stack.mail.to(email))).toEqual([]);
    await timePasses();
    await Promise.all(emails.map((email) => stack.mail.waitFor(email)));
    await waitFor(async () => (await Promise.all(emails.map(rowOf))).every((row) => row === undefined), 'the rows to go');
    expect(emails.map((email) => stack.mail.to(email).length)).toEqual(emails.map(() => 1));
  });

  it('two mailers share the outbox: 300 sign-ups, each address mailed once', async () => {
    mailers.push(await AppProcess.start('mailer', stack.config));
    await stack.startApp('mailer');
    const emails = Array.from({ length: 300 }, (_, i) => `shared-${i}@example.com`);
    await Promise.all(emails.map((email) => signUp(stack, pk, email)));
    await waitFor(() => emails.every((email) => stack.mail.to(email).length > 0), 'a mail to every address', { timeoutMs: 30_000 });
    await waitFor(async () => (await stack.db.query(`SELECT count(*)::int AS n FROM outbox WHERE queue = 'mail'`))[0].n === 0, 'the outbox to empty');
    expect(emails.filter((email) => stack.mail.to(email).length !== 1)).toEqual([]);
  });
});
