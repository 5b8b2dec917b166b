import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { AppProcess } from '../test/support/processes';
import { linkIn } from '../test/support/smtp-sink';
import { Stack } from '../test/support/stack';
import { alternate, atLeast, cliOf, Measure, perSecond, report } from './support/harness';
import { inParallel } from './support/load';
import { seedEntries } from './support/scale';

const REFERRALS = Number(process.env.BENCH_REFERRALS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP = 200;
/** Confirmed referrers per product, whose links the sign-ups come through in turn. */
const REFERRERS = 100;
/** Requests in flight at once, each on its own connection, as many browsers. */
const CONCURRENCY = 50;
/** How long a confirmation mail may take before the round fails rather than waits for jest's timeout. */
const MAIL_TIMEOUT_MS = 120_000;
/** Limits high enough that no sign-up of the run is refused, while both limiters still count every one. */
const LIMITS = { RATE_LIMIT_SIGNUP: '10000000/1m', RATE_LIMIT_SIGNUP_ADDRESS: '5/1h' };

type Level = 'off' | 'strict';

interface Side {
  level: Level;
  productId: string;
  publishableKey: string;
  /** The referral codes of the product's referrers. */
  codes: string[];
}

/** Confirmation links as their mails arrive, handed out in that order to whoever asks. */
class Links {
  private readonly ready: string[] = [];
  private readonly takers: ((path: string) => void)[] = [];

  add(path: string): void {
    const taker = this.takers.shift();
    if (taker) taker(path);
    else this.ready.push(path);
  }

  take(): Promise<string> {
    const path = this.ready.shift();
    if (path !== undefined) return Promise.resolve(path);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`No confirmation mail within ${MAIL_TIMEOUT_MS / 1000} s`)), MAIL_TIMEOUT_MS);
      this.takers.push((found) => {
        clearTimeout(timer);
        resolve(found);
      });
    });
  }
}

/**
 * Referral sign-ups with their confirmation, per second, at referral protection strict against off in
 * the same run: protection decides a referral's credit at confirmation, so each round signs up new
 * addresses through the referrers' links and confirms each from its mail, as the hosted page's button
 * does. The api and the mailer run as real processes, so that neither shares its event loop with the
 * load or the SMTP sink. All requests come from 127.0.0.1 and confirm within seconds of the mail, so
 * strict withholds nearly every referral (network_velocity, too_fast) and holds the rest for its
 * waiting period, while off credits every one: each round checks that, so the figure is the rules' work.
 * BENCH_REFERRALS and BENCH_ROUNDS make a shorter run while iterating.
 */
describe('referral sign-ups confirmed, protection strict against off', () => {
  let stack: Stack;
  let api: AppProcess;
  let mailer: AppProcess;
  let round = 0;
  const sides = {} as Record<Level, Side>;

  beforeAll(async () => {
    stack = await Stack.start({ apps: [], env: LIMITS });
    const cli = cliOf(stack.config);
    for (const level of ['off', 'strict'] as const) {
      const created = cli('products', 'create', '--name', `Referrals ${level}`);
      // As a team sets it; off is a new product's level.
      if (level !== 'off') cli('products', 'update', '--product', created.id, '--referral-protection', level);
      const referrers = await seedEntries(stack.db, {
        productId: created.id,
        mode: 'test',
        count: REFERRERS,
        states: { pending: 0, confirmed: 1, invited: 0, redeemed: 0 },
        prefix: level,
      });
      const codes = Array.from({ length: REFERRERS }, (_, i) => referrers.referralCode(i + 1));
      sides[level] = { level, productId: created.id, publishableKey: created.keys.test.publishable, codes };
    }
    api = await AppProcess.start('api', stack.config, { env: LIMITS });
    mailer = await AppProcess.start('mailer', stack.config, { env: LIMITS });
  });
  afterAll(async () => {
    await api?.stop();
    await mailer?.stop();
    await stack?.stop();
  });

  /**
   * Signs up `count` new addresses through the side's referral links (in turn), then confirms each
   * from its mail as the mails arrive; timed from the first sign-up until the last confirmation answered.
   */
  async function referred(side: Side, count: number): Promise<Measure> {
    const prefix = `${side.level}-r${round++}-`;
    const links = new Links();
    let mails = 0;
    stack.mail.mails.length = 0;
    stack.mail.afterAccept = (mail) => {
      if (!mail.to.startsWith(prefix)) return;
      mails++;
      links.add(new URL(linkIn(mail, `${stack.config.PUBLIC_BASE_URL}/confirm/`)).pathname);
    };
    const pool = new Pool(api.url, { connections: CONCURRENCY });
    const ask = async (options: { method: 'POST'; path: string; body?: unknown }, status: number) => {
      const response = await pool.request({
        ...options,
        headers: options.body === undefined ? {} : { 'content-type': 'application/json' },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      const text = await response.body.text();
      if (response.statusCode !== status) throw new Error(`${options.path} answered ${response.statusCode}: ${text}`);
    };
    const start = performance.now();
    await inParallel(count, CONCURRENCY, (i) =>
      ask({ method: 'POST', path: '/public/v1/signups', body: { key: side.publishableKey, email: `${prefix}${i}@example.com`, ref: side.codes[i % REFERRERS] } }, 202),
    );
    const signedUpMs = performance.now() - start;
    await inParallel(count, CONCURRENCY, async () => ask({ method: 'POST', path: await links.take() }, 303));
    const ms = performance.now() - start;
    await pool.close();
    // A second mail to any address would have counted here too.
    expect(mails).toBe(count);
    const states = await outcome(side, prefix);
    expect(states.confirmed).toBe(count);
    if (side.level === 'off') expect(states.credited).toBe(count);
    else expect(states.credited).toBe(0);
    process.stdout.write(
      `${side.level.padEnd(6)} ${count} referral sign-ups: signed up in ${(signedUpMs / 1000).toFixed(2)} s, confirmed in ${(ms / 1000).toFixed(2)} s, ` +
        `${perSecond((count / ms) * 1000)}; referrals ${JSON.stringify(states.byState)}\n`,
    );
    return { kind: 'rate', perSecond: (count / ms) * 1000 };
  }

  /** What became of a round's referrals: how many entries confirmed, how many referrals credited, and each state with its reasons. */
  async function outcome(side: Side, prefix: string) {
    const rows: { state: string; reasons: string; count: number; confirmed: number }[] = await stack.db.query(
      `SELECT r.state, array_to_string(r.reasons, '+') AS reasons, count(*)::int AS count, count(*) FILTER (WHERE e.state = 'confirmed')::int AS confirmed
       FROM entries e JOIN referrals r ON r.referred_id = e.id
       WHERE e.product_id = $1 AND e.mode = 'test' AND e.email LIKE $2 || '%' GROUP BY 1, 2 ORDER BY 3 DESC`,
      [side.productId, prefix],
    );
    return {
      confirmed: rows.reduce((sum, row) => sum + row.confirmed, 0),
      credited: rows.filter((row) => row.state === 'credited').reduce((sum, row) => sum + row.count, 0),
      byState: Object.fromEntries(rows.map((row) => [row.reasons ? `${row.state} (${row.reasons})` : row.state, row.count])),
    };
  }

  it(`reports ${REFERRALS.toLocaleString('en-US')} referral sign-ups confirmed per second, strict against off`, async () => {
    // Both sides' code paths compiled and their connections open before the clock runs.
    await referred(sides.off, WARM_UP);
    await referred(sides.strict, WARM_UP);

    const result = await alternate(
      ROUNDS,
      () => referred(sides.off, REFERRALS),
      () => referred(sides.strict, REFERRALS),
    );
    // Credited referrals are what the referrers' counts hold, on both sides.
    for (const side of Object.values(sides)) {
      const [counts]: { counted: number; credited: number }[] = await stack.db.query(
        `SELECT (SELECT sum(referrals)::int FROM entries WHERE product_id = $1) AS counted,
                (SELECT count(*)::int FROM referrals WHERE product_id = $1 AND state = 'credited') AS credited`,
        [side.productId],
      );
      expect(counts.counted).toBe(counts.credited);
    }
    report({
      work: `referral sign-up and its confirmation, protection strict, ${REFERRALS.toLocaleString('en-US')} through ${REFERRERS} referrers' links, ${CONCURRENCY} connections`,
      baseline: 'the same with protection off',
      baselineValue: perSecond(result.baseline),
      serviceValue: perSecond(result.service),
      ...atLeast(result.ratio, 0.95),
    });
  });
});
