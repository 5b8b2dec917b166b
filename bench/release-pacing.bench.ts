import { bearer } from '../test/support/flows';
import { seedLine } from '../test/support/invitations';
import { Product, Stack } from '../test/support/stack';
import { median, perSecond, report, seconds, timed } from './support/harness';

const MAILS = Number(process.env.BENCH_MAILS ?? 200);
const PACE = Number(process.env.BENCH_PACE ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/**
 * A release whose every mail goes to one receiving domain paced at PACE a second (MAIL_DOMAIN_PACE).
 * Fixed windows let the first window's PACE mails go at once, so the figure is the rate after it:
 * (MAILS − PACE) over the run's time, which may not pass the pace and should keep up with it. Beside it
 * the same release to a domain without a pace, and the most mails the sink received in one second.
 */
describe(`a release of ${MAILS} with pacing on at ${PACE}/1s`, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_API: '1000000/1s', MAIL_DOMAIN_PACE: `paced.example=${PACE}/1s` } });
  });
  afterAll(() => stack.stop());

  it('reports the rate against the pace set', async () => {
    const arrivals: number[] = [];
    stack.mail.afterAccept = () => arrivals.push(Date.now());
    async function side(domain: string): Promise<() => Promise<void>> {
      const product: Product = await stack.createProduct({ name: domain });
      const release = (
        await stack.api.inject({
          method: 'POST',
          url: '/api/v1/releases',
          headers: bearer(product.keys.live.secret),
          payload: { count: MAILS, pattern: '0 9 * * 1', timeZone: 'UTC', paused: true },
        })
      ).json();
      return async () => {
        const entries = await seedLine(stack, { productId: product.id, mode: 'live' }, MAILS, `r${Date.now()}`);
        await stack.db.query(`UPDATE entries SET email = replace(email, '@example.com', $2) WHERE id = ANY($1)`, [entries.map((entry) => entry.id), `@${domain}`]);
        const answer = await stack.api.inject({ method: 'POST', url: `/api/v1/releases/${release.id}/run`, headers: bearer(product.keys.live.secret) });
        if (answer.json().invited !== MAILS) throw new Error(`run answered ${answer.statusCode}: ${answer.body}`);
      };
    }
    const paced = await side('paced.example');
    const unpaced = await side('unpaced.example');
    const pacedMs: number[] = [];
    const unpacedMs: number[] = [];
    let busiestSecond = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const free = await timed(unpaced);
      if (free.kind === 'time') unpacedMs.push(free.ms);
      arrivals.length = 0;
      const measure = await timed(paced);
      if (measure.kind === 'time') pacedMs.push(measure.ms);
      const perSecondCounts = new Map<number, number>();
      for (const at of arrivals) perSecondCounts.set(Math.floor(at / 1000), (perSecondCounts.get(Math.floor(at / 1000)) ?? 0) + 1);
      busiestSecond = Math.max(busiestSecond, ...perSecondCounts.values());
    }
    const rate = (MAILS - PACE) / (median(pacedMs) / 1000);
    report({
      work: `a release of ${MAILS} to one domain paced at ${PACE}/1s`,
      baseline: 'the pace set (rate after the first window)',
      baselineValue: perSecond(PACE),
      serviceValue: perSecond(rate),
      ratio: rate / PACE,
      target: '0.8× to 1×',
      pass: rate / PACE >= 0.8 && rate <= PACE,
      note: `paced run ${seconds(median(pacedMs))} (median of ${ROUNDS}); the most mails the sink received in one second: ${busiestSecond}; the same release unpaced: ${seconds(median(unpacedMs))}`,
    });
  });
});
