import { createPrivateKey, randomUUID, sign } from 'node:crypto';
import { createServer, Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { selfSigned, watchApplied } from './support/mail-providers';
import { Stack } from './support/stack';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:ses-feedback';
const CERT_PATH = '/SimpleNotificationService-test.pem';

/** The fields each type of SNS message signs, in order, as Amazon SNS documents them. */
const SIGNED = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
} as const;

type SnsFields = Record<string, string> & { Type: keyof typeof SIGNED; MessageId: string; TopicArn: string };

/** An SES bounce notification as SES documents it (notificationType; eventType for a configuration set's events). */
function sesBounce(bounceType: string, addresses: string[], field: 'notificationType' | 'eventType' = 'notificationType') {
  return {
    [field]: 'Bounce',
    bounce: {
      feedbackId: '000001378603177f-7a5433e7-8edb-42ae-af10-f0181f34d6ee-000000',
      bounceType,
      bounceSubType: 'General',
      bouncedRecipients: addresses.map((emailAddress) => ({ emailAddress, action: 'failed', status: '5.0.0', diagnosticCode: 'smtp; 550 user unknown' })),
      timestamp: '2016-01-27T14:59:38.237Z',
      remoteMtaIp: '127.0.2.0',
      reportingMTA: 'dsn; a27-23.smtp-out.us-west-2.amazonses.com',
    },
    mail: { timestamp: '2016-01-27T14:59:38.237Z', source: 'john@example.com', messageId: '00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa0680-000000', destination: addresses },
  };
}

function sesComplaint(address: string, complaintFeedbackType = 'abuse') {
  return {
    notificationType: 'Complaint',
    complaint: { userAgent: 'AnyCompany Feedback Loop (V0.01)', complainedRecipients: [{ emailAddress: address }], complaintFeedbackType, arrivalDate: '2016-01-27T14:59:38.237Z', timestamp: '2016-01-27T14:59:38.237Z', feedbackId: '000001378603177f-18c07c78-fa81-4a58-9dd1-fedc3cb8f49a-000000' },
    mail: { timestamp: '2016-01-27T14:59:38.237Z', source: 'john@example.com', messageId: '000001378603177f-7a5433e7-8edb-42ae-af10-f0181f34d6ee-000000', destination: [address] },
  };
}

describe('the Amazon SES hook (through SNS)', () => {
  const tls = selfSigned('/CN=127.0.0.1', 'IP:127.0.0.1');
  const signing = selfSigned('/CN=sns.amazonaws.com');
  const stranger = selfSigned('/CN=sns.amazonaws.com');
  const requests: string[] = [];
  let server: Server;
  let base: string;
  let previousDispatcher: Dispatcher;
  let trusting: Agent;
  let stack: Stack;
  let applied: Awaited<ReturnType<typeof watchApplied>>;

  beforeAll(async () => {
    // Amazon SNS's side: its certificate and subscription links, over https with a certificate of this test's own.
    server = createServer({ cert: tls.cert, key: tls.key }, (request, response) => {
      requests.push(request.url ?? '');
      if (request.url === CERT_PATH) response.writeHead(200, { 'content-type': 'application/x-x509-ca-cert' }).end(signing.cert);
      else if (request.url?.startsWith('/confirm?')) response.writeHead(200, { 'content-type': 'text/xml' }).end('<ConfirmSubscriptionResponse/>');
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    previousDispatcher = getGlobalDispatcher();
    trusting = new Agent({ connect: { ca: tls.cert } });
    setGlobalDispatcher(trusting);
    stack = await Stack.start({ apps: ['api'], env: { MAIL_HOOK_SES_TOPIC_ARNS: `arn:aws:sns:us-east-1:123456789012:other,${TOPIC}`, MAIL_HOOK_SES_CERT_HOST: '^127\\.0\\.0\\.1:\\d+$' } });
    applied = await watchApplied(stack);
  });
  afterAll(async () => {
    await stack?.stop();
    setGlobalDispatcher(previousDispatcher);
    await trusting?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });
  beforeEach(() => applied.clear());

  /** A message signed as Amazon SNS signs: the documented string of its fields, SHA1withRSA (1) or SHA256withRSA (2). */
  function signed(fields: SnsFields, version = '2', key = signing.key, certUrl = `${base}${CERT_PATH}`): SnsFields {
    const text = SIGNED[fields.Type].filter((name) => fields[name] !== undefined).map((name) => `${name}\n${fields[name]}\n`).join('');
    const signature = sign(version === '1' ? 'sha1' : 'sha256', Buffer.from(text, 'utf8'), createPrivateKey(key)).toString('base64');
    return { ...fields, SignatureVersion: version, Signature: signature, SigningCertURL: certUrl, UnsubscribeURL: `${base}/unsubscribe` };
  }

  function notification(message: unknown, topic = TOPIC): SnsFields {
    return { Type: 'Notification', MessageId: randomUUID(), TopicArn: topic, Message: JSON.stringify(message), Timestamp: new Date().toISOString() };
  }

  /** As SNS posts: JSON under text/plain, with its x-amz-sns headers. */
  const post = (message: Record<string, string>) =>
    stack.request({
      method: 'POST',
      url: '/hooks/mail/ses',
      headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': message.Type, 'x-amz-sns-message-id': message.MessageId, 'x-amz-sns-topic-arn': message.TopicArn },
      payload: JSON.stringify(message),
    });

  it('confirms a subscription of a listed topic by getting its SubscribeURL', async () => {
    const token = randomUUID();
    const confirmation = signed({
      Type: 'SubscriptionConfirmation',
      MessageId: randomUUID(),
      Token: token,
      TopicArn: TOPIC,
      Message: `You have chosen to subscribe to the topic ${TOPIC}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`,
      SubscribeURL: `${base}/confirm?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=${token}`,
      Timestamp: new Date().toISOString(),
    });
    expect((await post(confirmation)).status).toBe(204);
    expect(requests).toContain(`/confirm?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=${token}`);
    expect(applied.all()).toEqual([]);
  });

  it('a permanent bounce (SignatureVersion 1) is hard for each recipient, applied once; the message again changes nothing', async () => {
    const message = signed(notification(sesBounce('Permanent', ['one@example.com', 'two@example.com'])), '1');
    expect((await post(message)).status).toBe(204);
    expect((await post(message)).status).toBe(204);
    const at = new Date('2016-01-27T14:59:38.237Z');
    expect(applied.all()).toEqual([
      { provider: 'ses', eventId: `${message.MessageId}#1`, kind: 'hard_bounce', address: 'one@example.com', at },
      { provider: 'ses', eventId: `${message.MessageId}#2`, kind: 'hard_bounce', address: 'two@example.com', at },
    ]);
  });

  it('transient and undetermined bounces are soft, a complaint is a complaint (SignatureVersion 2); configuration set events too; deliveries and not-spam reports ignored; the certificate fetched once', async () => {
    const messages = [
      signed({ ...notification(sesBounce('Transient', ['full@example.com'])), Subject: 'Amazon SES Email Event Notification' }),
      signed(notification(sesBounce('Undetermined', ['odd@example.com'], 'eventType'))),
      signed(notification(sesComplaint('angry@example.com'))),
      signed(notification(sesComplaint('fine@example.com', 'not-spam'))),
      signed(notification({ notificationType: 'Delivery', delivery: { recipients: ['fine@example.com'] }, mail: {} })),
    ];
    for (const message of messages) expect((await post(message)).status).toBe(204);
    expect(applied.all().map(({ eventId, kind, address }) => [eventId, kind, address])).toEqual([
      [messages[0].MessageId, 'soft_bounce', 'full@example.com'],
      [messages[1].MessageId, 'soft_bounce', 'odd@example.com'],
      [messages[2].MessageId, 'complaint', 'angry@example.com'],
    ]);
    // SNS's certificate was fetched once, and kept for every message since.
    expect(requests.filter((url) => url === CERT_PATH)).toHaveLength(1);
  });

  it('refuses (401) an unsigned message, another key’s signature, a changed message, an unknown SignatureVersion, a topic not listed, and certificates off SNS’s hosts, over http or at another path, which it never fetches', async () => {
    const fields = notification(sesBounce('Permanent', ['one@example.com']));
    const good = signed(fields);
    const unsigned: Record<string, string> = { ...good };
    for (const name of ['Signature', 'SignatureVersion', 'SigningCertURL']) delete unsigned[name];
    const fetchedBefore = requests.length;
    const refusals = [
      unsigned,
      signed(fields, '2', stranger.key),
      { ...good, Message: JSON.stringify(sesBounce('Permanent', ['else@example.com'])) },
      { ...good, SignatureVersion: '3' },
      signed(notification(sesBounce('Permanent', ['one@example.com']), 'arn:aws:sns:eu-west-1:210987654321:ses-feedback')),
      signed(fields, '2', signing.key, `${base.replace('127.0.0.1', 'localhost')}${CERT_PATH}`),
      signed(fields, '2', signing.key, `${base.replace('https:', 'http:')}${CERT_PATH}`),
      signed(fields, '2', signing.key, `https://user@${base.slice('https://'.length)}${CERT_PATH}`),
      signed(fields, '2', signing.key, `${base}/confirm?Action=ConfirmSubscription`),
    ];
    for (const message of refusals) {
      const answer = await post(message);
      expect([answer.status, answer.json().error.code]).toEqual([401, 'unauthorized']);
    }
    expect(requests.slice(fetchedBefore)).toEqual([]);
    expect(applied.all()).toEqual([]);
  });

  it('answers 503 when SNS’s certificate cannot be fetched, and 400 for what is not an SNS message or an SES notification', async () => {
    const missing = signed(notification(sesBounce('Permanent', ['one@example.com'])), '2', signing.key, `${base}/SimpleNotificationService-gone.pem`);
    const unavailable = await post(missing);
    expect([unavailable.status, unavailable.json().error.code]).toEqual([503, 'provider_unavailable']);
    for (const body of ['{"Type":', JSON.stringify({ Type: 'Notification' }), JSON.stringify(signed({ ...notification({}), Message: 'not json' }))]) {
      const answer = await stack.request({ method: 'POST', url: '/hooks/mail/ses', headers: { 'content-type': 'text/plain; charset=UTF-8' }, payload: body });
      expect([answer.status, answer.json().error.code]).toEqual([400, 'invalid_request']);
    }
    expect(applied.all()).toEqual([]);
  });
});
