import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { deliveryProblems } from './openapi';
import { waitFor } from './wait';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** How the receiver answered it. */
  answer: Answer;
}

const DELIVERY_HEADERS = ['service-event', 'service-delivery', 'service-signature', 'webhook-id', 'webhook-signature'];

/** How the receiver answers the nth request (0-based): a status, or 'hang' to never answer in time. */
export type Answer = number | 'hang';

/** A real local HTTP server that takes webhook deliveries and answers as the test says. */
export class Receiver {
  readonly received: Received[] = [];
  /** TCP connections accepted, whether or not a request came of them (a TLS hello to this http server does not). */
  connections = 0;
  /** Deliveries that do not match the OpenAPI document's webhooks, each with what did not. */
  readonly undocumented: string[] = [];
  answer: (index: number) => Answer = () => 200;
  private readonly server: Server;
  private readonly hanging = new Set<ServerResponse>();

  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const answer = this.answer(this.received.length);
        const body = Buffer.concat(chunks).toString('utf8');
        this.received.push({ headers: request.headers, body, at: Date.now(), answer });
        // A receiver also stands in for a server that never answers the client: only deliveries are checked.
        const isDelivery = DELIVERY_HEADERS.some((name) => request.headers[name] !== undefined);
        const problems = isDelivery ? deliveryProblems(request.headers, body) : [];
        if (problems.length) this.undocumented.push(`${String(request.headers['service-event'])}: ${problems.join('; ')}`);
        if (answer === 'hang') {
          this.hanging.add(response);
          return;
        }
        response.writeHead(answer, answer >= 300 && answer < 400 ? { location: `${this.url}/elsewhere` } : {}).end('ok');
      });
    });
    this.server.on('connection', () => this.connections++);
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async waitFor(count: number, timeoutMs = 10_000): Promise<Received[]> {
    await waitFor(() => this.received.length >= count, `${count} deliveries`, { timeoutMs });
    this.expectDocumented();
    return this.received;
  }

  /** Every test that waits for deliveries, and every receiver's stop, fails on a delivery the document does not describe. */
  expectDocumented(): void {
    if (this.undocumented.length) throw new Error(`Deliveries the OpenAPI document does not describe:\n- ${this.undocumented.join('\n- ')}`);
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.expectDocumented();
  }
}

/** A receiver's check with node:crypto alone, as the docs show it. */
export function verify(header: string, body: string, secret: string): boolean {
  const parts = header.split(',');
  const t = Number(parts.find((part) => part.startsWith('t='))!.slice(2));
  if (Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return parts
    .filter((part) => part.startsWith('v1='))
    .some((part) => {
      const given = Buffer.from(part.slice(3), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** A Standard Webhooks receiver's check, with the standardwebhooks package: the event, or a WebhookVerificationError. */
export function verifyStandard(received: Received, secret: string): unknown {
  return new Webhook(secret).verify(received.body, received.headers as Record<string, string>);
}
