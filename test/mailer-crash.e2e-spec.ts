import { EntryRecord, QueueName, redisOptions } from '@app/shared';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, codeIn, InvitationApi, invitationStack, invitationsTo, seedLine } from './support/invitations';
import { AppProcess } from './support/processes';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

/**
 * The mailer, a real process, is killed with SIGKILL around the SMTP handover of an invitation: before
 * the server's 250 (the server still takes the mail), or a little after it. Whatever the instant, the
 * code in a mail that reached the SMTP server works.
 */
describe('a mailer killed during the handover of invitations', () => {
  let stack: Stack;
  let product: Product;
  let client: InvitationApi;
  const mailers: AppProcess[] = [];
  const startMailer = async () => {
    const mailer = await AppProcess.start('mailer', stack.config);
    mailers.push(mailer);
    return mailer;
  };

  // The mailer runs as processes of its own, which the tests kill.
  beforeAll(async () => ({ stack, product, client } = await invitationStack({ mode: 'live', apps: ['api'] })));
  afterEach(async () => {
    stack.mail.beforeAccept = undefined;
    stack.mail.afterAccept = undefined;
    await Promise.all(mailers.splice(0).map((mailer) => mailer.kill()));
  });
  afterAll(() => stack.stop());

  const INSTANTS: [string, (dying: AppProcess) => void][] = [
    ['before the 250', (dying) => (stack.mail.beforeAccept = () => dying.kill())],
    ...[0, 1, 3, 10, 30].map((ms): [string, (dying: AppProcess) => void] => [
      `${ms} ms after the 250`,
      (dying) => (stack.mail.afterAccept = () => void sleep(ms).then(() => dying.kill())),
    ]),
  ];
  /** One held entry's invitation, handed to a mailer process that `arm` kills around the handover. */
  async function mailedWhileDying(prefix: string, arm: (dying: AppProcess) => void): Promise<{ entry: EntryRecord; code: string }> {
    const [entry] = await seedLine(stack, { productId: product.id, mode: 'live' }, 1, prefix);
    const requestId = randomUUID();
    await stack.db.query(`UPDATE entries SET invite_request = $2, invite_held_until = $3 WHERE id = $1`, [entry.id, requestId, new Date(Date.now() + 60_000)]);
    const dying = await startMailer();
    arm(dying);
    const queue = new Queue(QueueName.Invitations, { connection: redisOptions(stack.config.REDIS_URL), prefix: stack.config.QUEUE_PREFIX });
    try {
      await queue.add('invitations', { entryIds: [entry.id], requestId, deadline: Date.now() + 30_000, again: false });
    } finally {
      await queue.close();
    }
    await waitFor(() => !dying.running, 'the mailer to be killed');
    const [mail] = invitationsTo(stack, entry.email);
    expect(mail).toBeDefined();
    return { entry, code: codeIn(mail) };
  }

  /** The entry's events of these types in the order they were committed (their fan-out's order in the outbox). */
  async function eventsOf(entryId: string, types: string[]): Promise<string[]> {
    const rows: { type: string; body: string }[] = await stack.db.query(
      `SELECT e.type, o.body FROM outbox o JOIN events e ON e.id = o.data->>'eventId' WHERE o.queue = 'webhooks' ORDER BY o.id`,
    );
    return rows.filter((event) => types.includes(event.type) && JSON.parse(event.body).data.entry.id === entryId).map((event) => event.type);
  }

  for (const [index, [instant, arm]] of INSTANTS.entries()) {
    it(`killed ${instant}: the mailed code verifies, and the entry is invited once, with entry.invited`, async () => {
      const { entry, code } = await mailedWhileDying(`instant${index}`, arm);
      expect((await client.verify(code)).json()).toEqual({ valid: true, email: entry.email });
      expect((await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: entry.id })).state).toBe('invited');
      expect(await eventsOf(entry.id, ['entry.invited'])).toEqual(['entry.invited']);
    });
  }

  it('killed before the 250, the code redeemed first: valid true once, entry.invited before entry.redeemed', async () => {
    const { entry, code } = await mailedWhileDying('redeemfirst', INSTANTS[0][1]);
    expect((await client.redeem(code)).json()).toEqual({ valid: true, email: entry.email });
    expect((await client.redeem(code)).json()).toEqual({ valid: false });
    expect((await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: entry.id })).state).toBe('redeemed');
    expect(await eventsOf(entry.id, ['entry.invited', 'entry.redeemed'])).toEqual(['entry.invited', 'entry.redeemed']);
  });

  it('killed in the middle of an invite-next of 40: every mail that reached the SMTP server carries a code that works', async () => {
    const rows = await seedLine(stack, { productId: product.id, mode: 'live' }, 40, 'batchcrash');
    const dying = await startMailer();
    // A server that takes 50 ms a mail; the mailer dies just after the tenth 250, and another one starts.
    stack.mail.beforeAccept = () => sleep(50);
    stack.mail.afterAccept = () => {
      if (stack.mail.mails.filter((mail) => mail.to.startsWith('batchcrash-')).length === 10) void dying.kill().then(startMailer);
    };
    const answer = await client.inviteNext(40);
    expect(answer.status).toBe(200);
    const { invited, failed } = answer.json() as { invited: string[]; failed: string[] };
    expect([...invited, ...failed].sort()).toEqual(rows.map((row) => row.id).sort());

    const mails = stack.mail.mails.filter((mail) => mail.to.startsWith('batchcrash-'));
    expect(mails.length).toBeGreaterThanOrEqual(10);
    const answers = await Promise.all(mails.map(async (mail) => ({ to: mail.to, ...(await client.verify(codeIn(mail))).json() })));
    expect(answers.filter((check) => !check.valid)).toEqual([]);
    // Every entry said to be invited got its mail.
    const mailed = new Set(mails.map((mail) => mail.to));
    expect(rows.filter((row) => invited.includes(row.id) && !mailed.has(row.email))).toEqual([]);
  }, 90_000);

  it('killed in the middle of a chunk of 60, then invite-next again: each handover recorded once, only the mails in flight sent twice, every mailed code works', async () => {
    // A product of its own: the tests before leave entries in the other one's line.
    const own = await stack.createProduct();
    const client = api(stack, own.keys.live.secret);
    const rows = await seedLine(stack, { productId: own.id, mode: 'live' }, 60, 'chunkcrash');
    const ofTest = () => stack.mail.mails.filter((mail) => mail.to.startsWith('chunkcrash-'));
    const dying = await startMailer();
    // 400 ms a mail on each of the pool's 5 connections; the mailer dies just after the 25th 250.
    stack.mail.beforeAccept = () => sleep(400);
    stack.mail.afterAccept = () => {
      if (ofTest().length === 25) void dying.kill();
    };
    const first = await client.inviteNext(60);
    expect(first.status).toBe(200);
    const firstAnswer = first.json() as { invited: string[]; failed: string[] };
    stack.mail.beforeAccept = undefined;
    stack.mail.afterAccept = undefined;
    expect([...firstAnswer.invited, ...firstAnswer.failed].sort()).toEqual(rows.map((row) => row.id).sort());
    // The answer says what happened: every mail that reached the server was recorded, but for those in flight.
    const mailedFirst = new Set(ofTest().map((mail) => mail.to));
    expect(mailedFirst.size).toBeGreaterThanOrEqual(25);
    const emailOf = new Map(rows.map((row) => [row.id, row.email]));
    expect(firstAnswer.invited.filter((id) => !mailedFirst.has(emailOf.get(id)!))).toEqual([]);
    expect(mailedFirst.size - firstAnswer.invited.length).toBeLessThanOrEqual(5);

    // The operator's retry, with a mailer running again.
    await startMailer();
    const second = (await client.inviteNext(60)).json() as { invited: string[]; failed: string[] };
    expect(second).toEqual({ invited: firstAnswer.failed, failed: [] });

    const invitedEvents: { body: string }[] = await stack.db.query(
      `SELECT o.body FROM events e JOIN outbox o ON o.data->>'eventId' = e.id WHERE e.type = 'entry.invited'`,
    );
    const recordings = invitedEvents.map((event) => JSON.parse(event.body).data.entry.id as string).filter((id) => emailOf.has(id));
    expect(recordings.sort()).toEqual(rows.map((row) => row.id).sort());
    const mailsOf = new Map(rows.map((row) => [row.email, ofTest().filter((mail) => mail.to === row.email)]));
    const twice = [...mailsOf.values()].filter((mails) => mails.length > 1);
    expect([...mailsOf.values()].filter((mails) => mails.length === 0 || mails.length > 2)).toEqual([]);
    expect(twice.length).toBeLessThanOrEqual(5);

    // Every code a person received works, and redeeming works once per entry whichever code comes first.
    const checks = await Promise.all(ofTest().map(async (mail) => ({ to: mail.to, ...(await client.verify(codeIn(mail))).json() })));
    expect(checks.filter((check) => !check.valid)).toEqual([]);
    for (const mails of twice) {
      const redeemed = [];
      for (const mail of [...mails].reverse()) redeemed.push((await client.redeem(codeIn(mail))).json());
      expect(redeemed).toEqual([{ valid: true, email: mails[0].to }, { valid: false }]);
    }
  }, 150_000);
});
