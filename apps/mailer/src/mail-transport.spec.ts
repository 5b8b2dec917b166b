import type { AppConfig, RedisClient } from '@app/shared';
import { SmtpSink } from '../../../test/support/smtp-sink';
import { waitFor } from '../../../test/support/wait';
import { HandoverNotStarted, MailTransport, SMTP_POOL } from './mail-transport';

/** The pool's waiting line, against a real SMTP server that takes its time with each mail. */
describe('MailTransport', () => {
  let sink: SmtpSink;
  let transport: MailTransport;
  let release: (() => void)[] = [];

  beforeEach(async () => {
    sink = new SmtpSink();
    const url = await sink.start();
    // Each mail waits at the server until the test lets it through.
    sink.beforeAccept = () => new Promise((resolve) => release.push(() => resolve()));
    transport = new MailTransport({ SMTP_URL: url } as AppConfig, {} as RedisClient);
  });
  afterEach(async () => {
    release.forEach((go) => go());
    release = [];
    transport.onApplicationShutdown();
    await sink.stop();
  });

  const mail = (to: string) => ({ from: 'a@example.com', to, subject: to, text: to });
  const letThrough = async (count: number) => {
    for (let i = 0; i < count; i++) {
      await waitFor(() => release.length > 0, 'a mail at the server');
      release.shift()!();
    }
  };

  it('gives a free connection to the waiting mail that must start soonest', async () => {
    const now = Date.now();
    // Every connection busy, then a backlog with time to spare, then one mail that must start soon.
    const busy = Array.from({ length: SMTP_POOL.maxConnections }, (_, i) => transport.send(mail(`busy-${i}@example.com`), { boundMs: 30_000 }));
    const backlog = Array.from({ length: 3 }, (_, i) => transport.send(mail(`later-${i}@example.com`), { startBy: now + 60_000, boundMs: 30_000 }));
    const urgent = transport.send(mail('soon@example.com'), { startBy: now + 20_000, boundMs: 30_000 });

    // Every busy mail at the server before any is let through: on a loaded machine a connection still
    // opening would otherwise take a waiting mail's place in the order the server sees.
    await waitFor(() => release.length === SMTP_POOL.maxConnections, 'every connection busy at the server');
    await letThrough(SMTP_POOL.maxConnections + 4);
    await Promise.all([...busy, ...backlog, urgent]);
    expect(sink.mails.slice(SMTP_POOL.maxConnections).map((sent) => sent.to)).toEqual([
      'soon@example.com',
      'later-0@example.com',
      'later-1@example.com',
      'later-2@example.com',
    ]);
  });

  it('does not start a mail whose startBy passed while it waited, and keeps the others waiting', async () => {
    const busy = Array.from({ length: SMTP_POOL.maxConnections }, (_, i) => transport.send(mail(`busy-${i}@example.com`), { boundMs: 30_000 }));
    const late = transport.send(mail('late@example.com'), { startBy: Date.now() + 200, boundMs: 30_000 });
    const patient = transport.send(mail('patient@example.com'), { startBy: Date.now() + 60_000, boundMs: 30_000 });

    await expect(late).rejects.toBeInstanceOf(HandoverNotStarted);
    await letThrough(SMTP_POOL.maxConnections + 1);
    await Promise.all([...busy, patient]);
    expect(sink.mails.map((sent) => sent.to)).not.toContain('late@example.com');
    expect(sink.mails.map((sent) => sent.to)).toContain('patient@example.com');
  });
  it('gives a connection to the next mail only once the last one on it was accepted and noted', async () => {
    let noted: () => void = () => undefined;
    const noting = new Promise<void>((resolve) => (noted = resolve));
    const first = Array.from({ length: SMTP_POOL.maxConnections }, (_, i) => transport.send(mail(`first-${i}@example.com`), { boundMs: 30_000 }, () => noting));
    const next = transport.send(mail('next@example.com'), { boundMs: 30_000 });

    // Every first mail is at the server and taken, but none noted yet: the next one waits.
    await letThrough(SMTP_POOL.maxConnections);
    await waitFor(() => sink.mails.length === SMTP_POOL.maxConnections, 'the first mails to be taken');
    // What must not happen has no event to wait for: the next mail had a moment to reach the server.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(release).toHaveLength(0);
    noted();
    await letThrough(1);
    await Promise.all([...first, next]);
    expect(sink.mails.at(-1)!.to).toBe('next@example.com');
  });
});
