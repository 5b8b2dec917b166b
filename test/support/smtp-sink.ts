import { simpleParser } from 'mailparser';
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './wait';

export interface SinkMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Raw header values by lowercased name. */
  headers: Record<string, string>;
  from: string;
  /** The message as it arrived, for checks over its exact bytes (a DKIM signature). */
  raw: Buffer;
}

/** A real SMTP server in the test process that keeps what it accepts and can refuse recipients. */
export class SmtpSink {
  readonly mails: SinkMail[] = [];
  /** Recipients to refuse with a 550, as a mail server would for an unknown mailbox. */
  readonly refuse = new Set<string>();
  /** Recipients to put off with a 451, as greylisting or a full mailbox would for a while. */
  readonly defer = new Set<string>();
  /** Runs when a mail's data has arrived, before the server accepts it. */
  beforeAccept: ((mail: SinkMail) => Promise<void> | void) | undefined;
  /** Runs once the server has sent its 250 for a mail. */
  afterAccept: ((mail: SinkMail) => void) | undefined;
  private readonly server: SMTPServer;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo: (address, _session, callback) => {
        if (this.refuse.has(address.address.toLowerCase())) {
          const error = Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 });
          return callback(error);
        }
        if (this.defer.has(address.address.toLowerCase())) {
          return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        }
        callback();
      },
      onData: (stream, _session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        new Promise<Buffer>((resolve, reject) => stream.on('end', () => resolve(Buffer.concat(chunks))).on('error', reject))
          .then(async (raw) => {
            const parsed = await simpleParser(raw);
            const to = Array.isArray(parsed.to) ? parsed.to[0] : parsed.to;
            const mail: SinkMail = {
              to: to?.value[0]?.address ?? '',
              from: parsed.from?.text ?? '',
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              raw,
              headers: Object.fromEntries(
                parsed.headerLines.map(({ key, line }) => [key, line.slice(line.indexOf(':') + 1).trim()]),
              ),
            };
            await this.beforeAccept?.(mail);
            this.mails.push(mail);
            callback();
            this.afterAccept?.(mail);
          })
          .catch(callback);
      },
    });
  }

  async start(): Promise<string> {
    // A client killed mid-conversation resets its connection (ECONNRESET); a real server notes it and
    // goes on, where an 'error' event without a listener would end the test process.
    this.server.on('error', () => undefined);
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  to(address: string): SinkMail[] {
    return this.mails.filter((mail) => mail.to === address);
  }

  /** Waits until `address` has received `count` mails, and returns the newest. */
  async waitFor(address: string, count = 1, timeoutMs?: number): Promise<SinkMail> {
    await waitFor(() => this.to(address).length >= count, `${count} mail(s) to ${address}`, { timeoutMs });
    return this.to(address).at(-1)!;
  }
}

/** The first absolute link in a mail's text part that starts with `prefix`. */
export function linkIn(mail: SinkMail, prefix: string): string {
  const link = mail.text.split(/\s+/).find((word) => word.startsWith(prefix));
  if (!link) throw new Error(`No ${prefix}… link in the mail "${mail.subject}"`);
  return link;
}
