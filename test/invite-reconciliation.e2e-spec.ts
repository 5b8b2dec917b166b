import { EntryRecord, EventRecord } from '@app/shared';
import { joinLine } from './support/flows';
import { api, codeIn, invitationsTo } from './support/invitations';
import { AppProcess } from './support/processes';
import { Stack } from './support/stack';
import { waitFor } from './support/wait';

describe('an API process that dies while an invitation is on its way', () => {
  let stack: Stack;
  let child: AppProcess | undefined;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'] });
  });
  afterAll(async () => {
    await child?.kill();
    await stack.stop();
  });

  it('killed after the handover and before its answer: the entry ends invited and the mailed code verifies', async () => {
    const product = await stack.createProduct();
    const entry = await joinLine(stack, product.keys.test.publishable, 'survivor@example.com');

    // A second API, a real process of its own, takes the invite request.
    const dying = (child = await AppProcess.start('api', stack.config));

    // The SMTP server kills that API the moment the invitation's data arrives, then accepts the mail.
    stack.mail.beforeAccept = async (mail) => {
      if (mail.subject.includes('invited')) await dying.kill();
    };

    const answer = await fetch(`${dying.url}/api/v1/entries/${entry.id}/invite`, {
      method: 'POST',
      headers: { authorization: `Bearer ${product.keys.test.secret}` },
    }).then(
      (response) => `answered ${response.status}`,
      () => 'no answer',
    );
    expect(answer).toBe('no answer');
    stack.mail.beforeAccept = undefined;

    const entries = stack.db.getRepository(EntryRecord);
    await waitFor(async () => (await entries.findOneByOrFail({ id: entry.id })).state === 'invited', 'the mailer to record the handover');
    expect(invitationsTo(stack, 'survivor@example.com')).toHaveLength(1);
    const code = codeIn(invitationsTo(stack, 'survivor@example.com')[0]);
    expect((await api(stack, product.keys.test.secret).verify(code)).json()).toEqual({ valid: true, email: 'survivor@example.com' });
    expect(await stack.db.getRepository(EventRecord).countBy({ type: 'entry.invited' })).toBe(1);
  });
});

describe('an invitation job the API gave up on', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'] });
  });
  afterAll(() => stack.stop());

  it('is never sent later: past its deadline, or once its request no longer holds the entry', async () => {
    const { Queue } = await import('bullmq');
    const { QueueName, redisOptions } = await import('@app/shared');
    const product = await stack.createProduct();
    await stack.startApp('mailer');
    const late = await joinLine(stack, product.keys.test.publishable, 'late@example.com');
    const released = await joinLine(stack, product.keys.test.publishable, 'released@example.com');
    await stack.stopApp('mailer');

    const future = new Date(Date.now() + 60_000);
    await stack.db.query(`UPDATE entries SET invite_request = 'req-late', invite_held_until = $2 WHERE id = $1`, [late.id, future]);
    // The request for `released` settled as failed: its hold and its right to record are gone.
    const queue = new Queue(QueueName.Invitations, { connection: redisOptions(stack.config.REDIS_URL), prefix: stack.config.QUEUE_PREFIX });
    await queue.add('invitations', { entryIds: [late.id], requestId: 'req-late', deadline: Date.now() - 1, again: false });
    await queue.add('invitations', { entryIds: [released.id], requestId: 'req-gone', deadline: Date.now() + 60_000, again: false });

    await stack.startApp('mailer');
    await waitFor(async () => (await queue.getJobCounts('failed')).failed === 2, 'the mailer to refuse both jobs');
    await queue.close();
    expect(invitationsTo(stack, 'late@example.com')).toHaveLength(0);
    expect(invitationsTo(stack, 'released@example.com')).toHaveLength(0);
    const entries = stack.db.getRepository(EntryRecord);
    expect((await entries.findOneByOrFail({ id: late.id })).state).toBe('confirmed');
    expect((await entries.findOneByOrFail({ id: released.id })).state).toBe('confirmed');
  });
});
