import { Clock } from '@app/shared';
import { randomBytes, randomUUID } from 'node:crypto';
import { basicAuth, mailgunSignature, sendgridKeys, sendgridSigned, svixSecret, svixSigned, watchApplied } from './support/mail-providers';
import { Stack } from './support/stack';

const POSTMARK = { username: 'postmark', password: randomBytes(16).toString('hex') };
const RESEND_SECRET = svixSecret();
const SENDGRID = sendgridKeys();
const MAILGUN_KEY = randomBytes(16).toString('hex');

const ENV = {
  MAIL_HOOK_POSTMARK_USERNAME: POSTMARK.username,
  MAIL_HOOK_POSTMARK_PASSWORD: POSTMARK.password,
  MAIL_HOOK_RESEND_SECRET: RESEND_SECRET,
  MAIL_HOOK_SENDGRID_PUBLIC_KEY: SENDGRID.publicKey,
  MAIL_HOOK_MAILGUN_SIGNING_KEY: MAILGUN_KEY,
};

/** Postmark's bounce webhook payload, as its documentation shows it. */
function postmarkBounce(type: string, email: string, id: number) {
  return {
    RecordType: 'Bounce',
    MessageStream: 'outbound',
    ID: id,
    Type: type,
    TypeCode: 1,
    Name: 'Hard bounce',
    Tag: 'Test',
    MessageID: randomUUID(),
    Metadata: { a_key: 'a_value' },
    ServerID: 23,
    Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
    Details: 'Test bounce details',
    Email: email,
    From: 'sender@example.com',
    BouncedAt: '2019-11-05T16:33:54.9070259Z',
    DumpAvailable: true,
    Inactive: true,
    CanActivate: true,
    Subject: 'Test subject',
    Content: 'Return-Path: <>\r\n…',
  };
}

function postmarkComplaint(email: string, id: number) {
  return { ...postmarkBounce('SpamComplaint', email, id), RecordType: 'SpamComplaint', TypeCode: 512, BouncedAt: '2019-11-05T16:33:54Z' };
}

/** Resend's email.bounced and email.complained events, as its documentation shows them. */
function resendEvent(type: 'email.bounced' | 'email.complained', to: string[], bounceType = 'Permanent') {
  return {
    type,
    created_at: '2024-11-22T23:41:12.126Z',
    data: {
      broadcast_id: '8b146471-e88e-4322-86af-016cd36fd216',
      created_at: '2024-11-22T23:41:11.894719+00:00',
      email_id: randomUUID(),
      from: 'Acme <onboarding@resend.dev>',
      to,
      subject: 'Sending this example',
      ...(type === 'email.bounced' ? { bounce: { message: 'The recipient’s email provider sent a hard bounce message.', subType: 'Suppressed', type: bounceType } } : {}),
    },
  };
}

function mailgunEvent(event: Record<string, unknown>, signature = mailgunSignature(MAILGUN_KEY)) {
  return {
    signature,
    'event-data': { id: randomUUID(), timestamp: 1521233123.501324, 'log-level': 'error', recipient: 'alice@example.com', message: { headers: { 'message-id': 'x@example.com' } }, ...event },
  };
}

describe('mail providers’ hooks', () => {
  let stack: Stack;
  let applied: Awaited<ReturnType<typeof watchApplied>>;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { ...ENV, LOG_LEVEL: 'trace' } });
    applied = await watchApplied(stack);
  });
  afterAll(() => stack?.stop());
  beforeEach(() => applied.clear());

  const post = (provider: string, body: unknown, headers: Record<string, string>) =>
    stack.request({ method: 'POST', url: `/hooks/mail/${provider}`, headers: { 'content-type': 'application/json', ...headers }, payload: typeof body === 'string' ? body : JSON.stringify(body) });

  describe('Postmark', () => {
    const auth = basicAuth(POSTMARK.username, POSTMARK.password);

    it('a hard bounce and a spam complaint are applied once; a repeated call changes nothing', async () => {
      const bounce = postmarkBounce('HardBounce', 'gone@example.com', 4323372036854775807);
      expect((await post('postmark', bounce, auth)).status).toBe(204);
      expect((await post('postmark', bounce, auth)).status).toBe(204);
      expect((await post('postmark', postmarkComplaint('angry@example.com', 692560173), auth)).status).toBe(204);
      expect(applied.all()).toEqual([
        { provider: 'postmark', eventId: '4323372036854776000', kind: 'hard_bounce', address: 'gone@example.com', at: new Date('2019-11-05T16:33:54.907Z') },
        { provider: 'postmark', eventId: '692560173', kind: 'complaint', address: 'angry@example.com', at: new Date('2019-11-05T16:33:54Z') },
      ]);
    });

    it('soft bounce types count as soft; types that say nothing of the address and other records are taken and ignored', async () => {
      expect((await post('postmark', postmarkBounce('SoftBounce', 'full@example.com', 11), auth)).status).toBe(204);
      expect((await post('postmark', postmarkBounce('Transient', 'slow@example.com', 12), auth)).status).toBe(204);
      expect((await post('postmark', postmarkBounce('AutoResponder', 'away@example.com', 13), auth)).status).toBe(204);
      expect((await post('postmark', { RecordType: 'Delivery', Recipient: 'x@example.com' }, auth)).status).toBe(204);
      expect(applied.all().map(({ address, kind }) => [address, kind])).toEqual([
        ['full@example.com', 'soft_bounce'],
        ['slow@example.com', 'soft_bounce'],
      ]);
    });

    it('refuses a call without the credentials or with wrong ones (401), an unreadable body (400), and an address PostgreSQL cannot store (400)', async () => {
      const bounce = postmarkBounce('HardBounce', 'gone@example.com', 21);
      for (const headers of [{}, basicAuth(POSTMARK.username, 'wrong-password-0000'), basicAuth('other', POSTMARK.password), { authorization: `Bearer ${POSTMARK.password}` }]) {
        const answer = await post('postmark', bounce, headers);
        expect([answer.status, answer.json().error.code]).toEqual([401, 'unauthorized']);
      }
      expect((await post('postmark', '{"RecordType":', auth)).status).toBe(400);
      const nul = await post('postmark', postmarkBounce('HardBounce', 'a\u0000b@example.com', 22), auth);
      expect([nul.status, nul.json().error.param]).toEqual([400, 'Email']);
      expect(applied.all()).toEqual([]);
    });
  });

  describe('Resend', () => {
    it('a bounce to two recipients and a complaint are applied once each; the same delivery again changes nothing', async () => {
      const bounce = JSON.stringify(resendEvent('email.bounced', ['one@example.com', 'two@example.com']));
      const id = `msg_${randomUUID()}`;
      const headers = svixSigned(RESEND_SECRET, id, bounce);
      expect((await post('resend', bounce, headers)).status).toBe(204);
      expect((await post('resend', bounce, headers)).status).toBe(204);
      const complaint = JSON.stringify(resendEvent('email.complained', ['three@example.com']));
      const complaintId = `msg_${randomUUID()}`;
      expect((await post('resend', complaint, svixSigned(RESEND_SECRET, complaintId, complaint))).status).toBe(204);
      const at = new Date('2024-11-22T23:41:12.126Z');
      expect(applied.all()).toEqual([
        { provider: 'resend', eventId: `${id}#1`, kind: 'hard_bounce', address: 'one@example.com', at },
        { provider: 'resend', eventId: `${id}#2`, kind: 'hard_bounce', address: 'two@example.com', at },
        { provider: 'resend', eventId: complaintId, kind: 'complaint', address: 'three@example.com', at },
      ]);
    });

    it('a transient bounce is soft; other events are taken and ignored', async () => {
      const transient = JSON.stringify(resendEvent('email.bounced', ['later@example.com'], 'Transient'));
      expect((await post('resend', transient, svixSigned(RESEND_SECRET, `msg_${randomUUID()}`, transient))).status).toBe(204);
      const delivered = JSON.stringify({ ...resendEvent('email.complained', ['x@example.com']), type: 'email.delivered' });
      expect((await post('resend', delivered, svixSigned(RESEND_SECRET, `msg_${randomUUID()}`, delivered))).status).toBe(204);
      expect(applied.all().map(({ address, kind }) => [address, kind])).toEqual([['later@example.com', 'soft_bounce']]);
    });

    it('refuses an unsigned call, another secret’s signature, a changed body and a timestamp over five minutes old (401)', async () => {
      const body = JSON.stringify(resendEvent('email.bounced', ['one@example.com']));
      const id = `msg_${randomUUID()}`;
      const signed = svixSigned(RESEND_SECRET, id, body);
      const refusals = [
        post('resend', body, {}),
        post('resend', body, svixSigned(svixSecret(), id, body)),
        post('resend', body.replace('one@', 'other@'), signed),
        post('resend', body, svixSigned(RESEND_SECRET, id, body, new Date(Date.now() - 6 * 60_000))),
      ];
      for (const answer of await Promise.all(refusals)) expect([answer.status, answer.json().error.code]).toEqual([401, 'unauthorized']);
      expect(applied.all()).toEqual([]);
    });
  });

  describe('SendGrid', () => {
    it('a batch’s bounces, blocks, drops of bounced addresses and spam reports are applied once; other events ignored; the batch again changes nothing', async () => {
      const t = 1513299569;
      const batch = JSON.stringify([
        { email: 'gone@example.com', timestamp: t, event: 'bounce', type: 'bounce', reason: '550 5.1.1 unknown user', status: '5.1.1', sg_event_id: 'ev-bounce', sg_message_id: 'm1' },
        { email: 'blocked@example.com', timestamp: t, event: 'bounce', type: 'blocked', reason: '421 try later', status: '4.0.0', sg_event_id: 'ev-blocked', sg_message_id: 'm2' },
        { email: 'known@example.com', timestamp: t, event: 'dropped', reason: 'Bounced Address', sg_event_id: 'ev-dropped', sg_message_id: 'm3' },
        { email: 'unsub@example.com', timestamp: t, event: 'dropped', reason: 'Unsubscribed Address', sg_event_id: 'ev-dropped-unsub', sg_message_id: 'm4' },
        { email: 'angry@example.com', timestamp: t, event: 'spamreport', sg_event_id: 'ev-spam', sg_message_id: 'm5' },
        { email: 'fine@example.com', timestamp: t, event: 'delivered', response: '250 OK', sg_event_id: 'ev-delivered', sg_message_id: 'm6' },
        { email: 'fine@example.com', timestamp: t, event: 'open', sg_event_id: 'ev-open' },
      ]);
      const headers = sendgridSigned(SENDGRID.privateKey, batch);
      expect((await post('sendgrid', batch, headers)).status).toBe(204);
      expect((await post('sendgrid', batch, sendgridSigned(SENDGRID.privateKey, batch))).status).toBe(204);
      const at = new Date(t * 1000);
      expect(applied.all()).toEqual([
        { provider: 'sendgrid', eventId: 'ev-bounce', kind: 'hard_bounce', address: 'gone@example.com', at },
        { provider: 'sendgrid', eventId: 'ev-blocked', kind: 'soft_bounce', address: 'blocked@example.com', at },
        { provider: 'sendgrid', eventId: 'ev-dropped', kind: 'hard_bounce', address: 'known@example.com', at },
        { provider: 'sendgrid', eventId: 'ev-spam', kind: 'complaint', address: 'angry@example.com', at },
      ]);
    });

    it('takes a batch over the api’s 64 KiB body limit', async () => {
      const events = Array.from({ length: 2000 }, (_, index) => ({ email: `reader${index}@example.com`, timestamp: 1513299569, event: 'delivered', response: '250 OK', sg_event_id: `ev-big-${index}`, sg_message_id: 'm' }));
      const batch = JSON.stringify([...events, { email: 'last@example.com', timestamp: 1513299569, event: 'spamreport', sg_event_id: 'ev-big-spam' }]);
      expect(batch.length).toBeGreaterThan(200 * 1024);
      expect((await post('sendgrid', batch, sendgridSigned(SENDGRID.privateKey, batch))).status).toBe(204);
      expect(applied.all().map(({ eventId, kind }) => [eventId, kind])).toEqual([['ev-big-spam', 'complaint']]);
    });

    it('refuses an unsigned batch, another key’s signature and a changed body (401); a bounce without its id (400)', async () => {
      const batch = JSON.stringify([{ email: 'gone@example.com', timestamp: 1513299569, event: 'bounce', type: 'bounce', sg_event_id: `ev-${randomUUID()}` }]);
      const refusals = [
        post('sendgrid', batch, {}),
        post('sendgrid', batch, sendgridSigned(sendgridKeys().privateKey, batch)),
        post('sendgrid', batch.replace('gone@', 'else@'), sendgridSigned(SENDGRID.privateKey, batch)),
        post('sendgrid', batch, { ...sendgridSigned(SENDGRID.privateKey, batch), 'x-twilio-email-event-webhook-timestamp': '1' }),
      ];
      for (const answer of await Promise.all(refusals)) expect([answer.status, answer.json().error.code]).toEqual([401, 'unauthorized']);
      const withoutId = JSON.stringify([{ email: 'gone@example.com', timestamp: 1513299569, event: 'bounce', type: 'bounce' }]);
      const answer = await post('sendgrid', withoutId, sendgridSigned(SENDGRID.privateKey, withoutId));
      expect([answer.status, answer.json().error.param]).toEqual([400, '0.sg_event_id']);
      expect(applied.all()).toEqual([]);
    });
  });

  describe('Mailgun', () => {
    it('permanent and temporary failures and complaints are applied once; other events ignored', async () => {
      const events = [
        mailgunEvent({ event: 'failed', severity: 'permanent', recipient: 'gone@example.com', reason: 'bounce' }),
        mailgunEvent({ event: 'failed', severity: 'temporary', recipient: 'full@example.com' }),
        mailgunEvent({ event: 'complained', recipient: 'angry@example.com' }),
        mailgunEvent({ event: 'delivered', recipient: 'fine@example.com' }),
      ];
      for (const event of events) expect((await post('mailgun', event, {})).status).toBe(204);
      const at = new Date(1521233123501);
      expect(applied.all()).toEqual([
        { provider: 'mailgun', eventId: events[0]['event-data'].id, kind: 'hard_bounce', address: 'gone@example.com', at },
        { provider: 'mailgun', eventId: events[1]['event-data'].id, kind: 'soft_bounce', address: 'full@example.com', at },
        { provider: 'mailgun', eventId: events[2]['event-data'].id, kind: 'complaint', address: 'angry@example.com', at },
      ]);
    });

    it('refuses a token seen before (401) and changes nothing', async () => {
      const event = mailgunEvent({ event: 'failed', severity: 'permanent', recipient: 'gone@example.com' });
      expect((await post('mailgun', event, {})).status).toBe(204);
      const replay = await post('mailgun', event, {});
      expect([replay.status, replay.json().error.code]).toEqual([401, 'unauthorized']);
      expect(applied.all()).toHaveLength(1);
    });

    it('refuses a call without the signature, with another key’s, with a changed token, and one signed over fifteen minutes ago (401)', async () => {
      const now = stack.api.get(Clock).now();
      const signature = mailgunSignature(MAILGUN_KEY);
      const refusals = [
        mailgunEvent({ event: 'complained' }, undefined),
        mailgunEvent({ event: 'complained' }, mailgunSignature(randomBytes(16).toString('hex'))),
        mailgunEvent({ event: 'complained' }, { ...signature, token: `${signature.token}0` }),
        mailgunEvent({ event: 'complained' }, mailgunSignature(MAILGUN_KEY, new Date(now.getTime() - 16 * 60_000))),
      ];
      delete (refusals[0] as { signature?: unknown }).signature;
      for (const body of refusals) {
        const answer = await post('mailgun', body, {});
        expect([answer.status, answer.json().error.code]).toEqual([401, 'unauthorized']);
      }
      expect((await post('mailgun', 'not json', {})).status).toBe(400);
      expect(applied.all()).toEqual([]);
    });
  });

  it('answers 404 for a provider it has no hook for', async () => {
    const answer = await post('sparkpost', {}, {});
    expect([answer.status, answer.json().error.code]).toEqual([404, 'not_found']);
  });

  // Last in this describe: it reads what every test before it logged.
  it('logs no setting, signature, token or reported address', () => {
    const logs = stack.logs.join('');
    expect(logs).toContain('/hooks/mail/');
    for (const secret of [POSTMARK.password, RESEND_SECRET, RESEND_SECRET.slice('whsec_'.length), MAILGUN_KEY, SENDGRID.publicKey, 'gone@example.com', 'angry@example.com']) {
      expect(logs).not.toContain(secret);
    }
  });
});

describe('mail providers’ hooks without their settings', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'] });
  });
  afterAll(() => stack?.stop());

  it.each(['ses', 'postmark', 'resend', 'sendgrid', 'mailgun'])('%s: 404, the hook is off', async (provider) => {
    const answer = await stack.request({ method: 'POST', url: `/hooks/mail/${provider}`, body: {} });
    expect([answer.status, answer.json().error.code]).toEqual([404, 'not_found']);
  });
});
