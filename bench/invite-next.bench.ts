import { invitationLink, newToken, translator } from '@app/shared';
import { setTimeout as sleep } from 'node:timers/promises';
import nodemailer from 'nodemailer';
import { SMTP_POOL } from '../apps/mailer/src/mail-transport';
import { invitationMail } from '../apps/mailer/src/mails/invitation';
import { bearer } from '../test/support/flows';
import { seedLine } from '../test/support/invitations';
import { Product, Stack } from '../test/support/stack';
import { commitCount, CpuByGroup, CpuMeter, perOperation, redisPid } from './support/cpu';
import { alternate, atMost, Measure, median, report, seconds, TARGET_ROUNDS, timed } from './support/harness';

const MAILS = Number(process.env.BENCH_MAILS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? TARGET_ROUNDS);

/**
 * invite-next of 1,000 entries through a local SMTP sink, next to nodemailer alone handing 1,000 mails
 * of the same size to the same sink over a pool of the mailer's size (SMTP_POOL), in the same run. API,
 * mailer, sink and the baseline's nodemailer share this process, as in the tests, so both sides pay for
 * the sink alike. Rounds alternate; each service round invites a fresh line of 1,000 seeded with SQL.
 * CPU per mail from /proc: this process (api, mailer, sink, or nodemailer and sink), PostgreSQL's
 * backends and redis-server; each service round also prints the database's commits per mail.
 */
describe('invite-next of 1,000 entries', () => {
  let stack: Stack;
  let product: Product;
  let round = 0;
  let meter: CpuMeter;
  const cpu = { baseline: [] as number[], service: [] as number[], texts: [] as string[] };

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_API: '100000/1s' } });
    product = await stack.createProduct();
    const redis = await redisPid(stack.config.REDIS_URL);
    meter = new CpuMeter(stack.db, () => ({ 'redis-server': [redis] }));
  });
  afterAll(() => stack?.stop());

  it(`invites ${MAILS.toLocaleString('en-US')} within 1.3× the time of nodemailer alone`, async () => {
    const result = await alternate(ROUNDS, baseline, service);
    report({
      work: 'invite-next of 1,000 through a local SMTP sink',
      baseline: 'nodemailer alone, same pool size, same 1,000 mails',
      baselineValue: seconds(result.baseline),
      serviceValue: seconds(result.service),
      ...atMost(result.ratio, 1.3),
      note: `${MAILS === 1000 ? '' : `${MAILS} mails (BENCH_MAILS); `}CPU per mail, this process included (median): ${median(cpu.service).toFixed(2)} ms against ${median(cpu.baseline).toFixed(2)} ms; last service round: ${cpu.texts.at(-1)}`,
    });
  });

  /** Each group's CPU per mail, kept for the row, with this process (where api, mailer and sink run) in the sum. */
  function keep(side: 'baseline' | 'service', used: CpuByGroup): void {
    const { text } = perOperation(used, MAILS);
    const totalMs = Object.values(used).reduce((sum, ms) => sum + ms, 0) / MAILS;
    cpu[side].push(totalMs);
    if (side === 'service') cpu.texts.push(text);
    process.stdout.write(`${side} round ${round}: CPU per mail ${text}; with it ${totalMs.toFixed(2)} ms\n`);
  }

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
      const stop = await meter.start();
      const measure = await timed(() => Promise.all(mails.map((mail) => transport.sendMail(mail))));
      keep('baseline', await stop());
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
    const commits = await commitCount(stack.db);
    const stop = await meter.start();
    // Straight to the app, without the tests' check of the answer against the OpenAPI document.
    const measure = await timed(async () => {
      answer = await stack.api.inject({ method: 'POST', url: '/api/v1/entries/invite-next', headers: bearer(product.keys.test.secret), payload: { count: MAILS } });
    });
    keep('service', await stop());
    // Backends report their commits once idle, at most once a second: counted after that.
    await sleep(1500);
    process.stdout.write(`service round ${round}: ${(((await commitCount(stack.db)) - commits) / MAILS).toFixed(2)} commits per mail\n`);
    expect(answer?.statusCode).toBe(200);
    expect(answer?.json()).toEqual({ invited: expect.any(Array), failed: [] });
    expect(answer?.json().invited).toHaveLength(MAILS);
    expect(stack.mail.mails.filter((mail) => mail.to.startsWith(`${prefix}-`))).toHaveLength(MAILS);
    return measure;
  }
});
