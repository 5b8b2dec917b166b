import { invitationLink, newToken, translator } from '@app/shared';
import nodemailer from 'nodemailer';
import { SMTP_POOL } from '../apps/mailer/src/mail-transport';
import { invitationMail } from '../apps/mailer/src/mails/invitation';
import { bearer } from '../test/support/flows';
import { seedLine } from '../test/support/invitations';
import { Product, Stack } from '../test/support/stack';
import { alternate, atMost, Measure, report, seconds, timed } from './support/harness';

const MAILS = Number(process.env.BENCH_MAILS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/**
 * invite-next of 1,000 entries through a local SMTP sink, next to nodemailer alone handing 1,000 mails
 * of the same size to the same sink over a pool of the mailer's size (SMTP_POOL), in the same run. API,
 * mailer, sink and the baseline's nodemailer share this process, as in the tests, so both sides pay for
 * the sink alike. Rounds alternate; each service round invites a fresh line of 1,000 seeded with SQL.
 */
describe('invite-next of 1,000 entries', () => {
  let stack: Stack;
  let product: Product;
  let round = 0;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_API: '100000/1s' } });
    product = await stack.createProduct();
  });
  afterAll(() => stack?.stop());

  it(`invites ${MAILS.toLocaleString('en-US')} within 1.5× the time of nodemailer alone`, async () => {
    const result = await alternate(ROUNDS, baseline, service);
    report({
      work: 'invite-next of 1,000 through a local SMTP sink',
      baseline: 'nodemailer alone, same pool size, same 1,000 mails',
      baselineValue: seconds(result.baseline),
      serviceValue: seconds(result.service),
      ...atMost(result.ratio, 1.5),
      note: MAILS === 1000 ? undefined : `${MAILS} mails (BENCH_MAILS)`,
    });
  });

  /** The mailer's invitation, with a code and an unsubscribe link of the real length. */
  function baselineMail(i: number) {
    const unsubscribeUrl = `${stack.config.PUBLIC_BASE_URL}/unsubscribe/${newToken()}`;
    const content = invitationMail(translator('en'), 'Acme', invitationLink(null, stack.config.PUBLIC_BASE_URL, newToken()), { unsubscribe: unsubscribeUrl, myData: `${stack.config.PUBLIC_BASE_URL}/w/pk_test_bench/my-data` }, stack.config.INVITE_CODE_TTL);
    return {
      from: { name: 'Acme', address: 'no-reply@localhost' },
      to: `baseline-${round}-${i}@example.com`,
      ...content,
      headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    };
  }

  async function baseline(): Promise<Measure> {
    round++;
    const mails = Array.from({ length: MAILS }, (_, i) => baselineMail(i));
    const transport = nodemailer.createTransport({ url: stack.config.SMTP_URL, ...SMTP_POOL });
    try {
      const measure = await timed(() => Promise.all(mails.map((mail) => transport.sendMail(mail))));
      expect(stack.mail.mails.filter((mail) => mail.to.startsWith(`baseline-${round}-`))).toHaveLength(MAILS);
      return measure;
    } finally {
      transport.close();
    }
  }

  async function service(): Promise<Measure> {
    const prefix = `line${round}`;
    await seedLine(stack, { productId: product.id, mode: 'test' }, MAILS, prefix);
    let answer: { statusCode: number; json: () => { invited: string[]; failed: string[] } } | undefined;
    // Straight to the app, without the tests' check of the answer against the OpenAPI document.
    const measure = await timed(async () => {
      answer = await stack.api.inject({ method: 'POST', url: '/api/v1/entries/invite-next', headers: bearer(product.keys.test.secret), payload: { count: MAILS } });
    });
    expect(answer?.statusCode).toBe(200);
    expect(answer?.json()).toEqual({ invited: expect.any(Array), failed: [] });
    expect(answer?.json().invited).toHaveLength(MAILS);
    expect(stack.mail.mails.filter((mail) => mail.to.startsWith(`${prefix}-`))).toHaveLength(MAILS);
    return measure;
  }
});
