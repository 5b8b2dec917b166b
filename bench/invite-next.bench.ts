import nodemailer from 'nodemailer';
import { performance } from 'node:perf_hooks';
import { bearer } from '../test/support/flows';
import { seedLine } from '../test/support/invitations';
import { Stack } from '../test/support/stack';
import { waitFor } from '../test/support/wait';

const MAILS = 1000;

/**
 * invite-next of 1,000 entries through a local SMTP sink, next to nodemailer alone handing 1,000
 * mails to the same sink in the same run: the ratio is what the service adds (holds, queue
 * round trips, codes, records and events) on top of the unavoidable SMTP work.
 */
describe('invite-next of 1,000 entries', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_API: '100000/1s' } });
  });
  afterAll(() => stack.stop());

  it('reports its time against nodemailer alone', async () => {
    const transport = nodemailer.createTransport({ url: stack.config.SMTP_URL, pool: true, maxConnections: 5 });
    const baselineStart = performance.now();
    await Promise.all(
      Array.from({ length: MAILS }, (_, i) =>
        transport.sendMail({ from: 'bench@localhost', to: `baseline-${i}@example.com`, subject: 'Baseline', text: 'x'.repeat(600) }),
      ),
    );
    const baselineMs = performance.now() - baselineStart;
    transport.close();

    const product = await stack.createProduct();
    await seedLine(stack, { productId: product.id, mode: 'test' }, MAILS, 'bench');
    const start = performance.now();
    const response = await stack.request({
      method: 'POST',
      url: '/api/v1/entries/invite-next',
      headers: bearer(product.keys.test.secret),
      body: { count: MAILS },
    });
    const serviceMs = performance.now() - start;
    expect(response.status).toBe(200);
    expect(response.json().invited).toHaveLength(MAILS);
    await waitFor(() => stack.mail.mails.filter((mail) => mail.to.startsWith('bench-')).length === MAILS, 'every mail');

    const line = (name: string, ms: number) => `${name.padEnd(34)} ${ms.toFixed(0).padStart(7)} ms  ${((MAILS / ms) * 1000).toFixed(0).padStart(6)} mails/s`;
    process.stdout.write(
      [
        '',
        line('nodemailer alone (baseline)', baselineMs),
        line('invite-next count 1000', serviceMs),
        `ratio: invite-next takes ${(serviceMs / baselineMs).toFixed(2)}× the baseline`,
        '',
      ].join('\n'),
    );
  });
});
