import { hashToken, IN_LINE_ORDER } from '@app/shared';
import { CursorCodec } from '../apps/api/src/entries/cursor';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { LeaderboardService } from '../apps/api/src/leaderboard/leaderboard.service';
import { ProductsService } from '../apps/api/src/products/products.service';
import { PASSWORD, signIn } from '../test/support/dashboard';
import { bearer } from '../test/support/flows';
import { Product, Stack } from '../test/support/stack';
import { waitFor } from '../test/support/wait';
import { alternate, atMost, Measure, report, timed } from './support/harness';
import { seedEntries } from './support/scale';

const SMALL = Number(process.env.SCALE_SMALL ?? 10_000);
const LARGE = Number(process.env.SCALE_LARGE ?? 1_000_000);
const ROUNDS = Number(process.env.SCALE_ROUNDS ?? 5);
/**
 * Requests of a read per side and round: the median round's time over this is the cost of one. A round
 * lasts about a tenth of a second; rounds of 40 (25 ms) left some rows to the machine's noise.
 */
const REQUESTS = 200;
const INVITE_NEXT = 100;

interface Side {
  product: Product;
  /** The request of each work for this side's product. */
  works: Map<string, () => Promise<unknown>>;
}

/**
 * Flatness: each work costs at most 1.2× at 1,000,000 entries what it costs at 10,000. Two products in
 * the same database, seeded by the scale fixture, one of each size; each work runs against the small
 * one (the baseline) and the large one alternately, REQUESTS requests at a time (invite-next: one call
 * of 100), in the server (Fastify's inject), so that the figure is the service's cost per request.
 */
describe(`the cost of each work at ${LARGE.toLocaleString('en-US')} entries against ${SMALL.toLocaleString('en-US')}`, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_API: '1000000/1s' } });
  });
  afterAll(() => stack.stop());

  it('reports each work’s cost at both sizes', async () => {
    const cursors = new CursorCodec(stack.config.ENCRYPTION_KEY);
    const auth = stack.api.get(DashboardAuthService);
    // Its boards are private: a read from PostgreSQL each request needs the 2-second cache emptied first.
    const leaderboards = stack.api.get(LeaderboardService) as unknown as { boards: Map<string, unknown> };

    async function side(count: number): Promise<Side> {
      const product = await stack.createProduct({ name: `Scale ${count}` });
      await stack.api.get(ProductsService).update(product.id, { leaderboard: 'live' });
      const scope = { productId: product.id, mode: 'live' as const };
      const started = Date.now();
      const seeded = await seedEntries(stack.db, { ...scope, count });
      process.stdout.write(`seeded ${count.toLocaleString('en-US')} entries in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      await auth.createUser('scale@example.com', PASSWORD, product.id);

      const nth = async (where: string, order: string, share: number) => {
        const [{ total }] = await stack.db.query(`SELECT count(*)::int AS total FROM entries WHERE product_id = $1 AND mode = 'live' AND ${where}`, [product.id]);
        const [row] = await stack.db.query(
          `SELECT id, email, created_at FROM entries WHERE product_id = $1 AND mode = 'live' AND ${where} ORDER BY ${order} OFFSET $2 LIMIT 1`,
          [product.id, Math.min(total - 1, Math.floor(total * share))],
        );
        return row as { id: string; email: string; created_at: Date };
      };
      const invited = await nth(`state = 'invited'`, 'created_at', 0.5);
      const middle = await nth(`state = 'confirmed'`, IN_LINE_ORDER, 0.5);
      const last = await nth(`state = 'confirmed'`, IN_LINE_ORDER, 1);
      const deep = await nth('true', 'created_at DESC, id DESC', 0.5);
      // A referrer with all the status page shows: credited referrals, one being checked, and its history.
      const referrer = await nth(
        `state = 'confirmed' AND referrals > 0 AND EXISTS (SELECT FROM referrals r WHERE r.referrer_id = entries.id AND r.state = 'withheld')`,
        IN_LINE_ORDER,
        0.5,
      );
      const confirmToken = async (entryId: string) => {
        const token = `confirm-${entryId}`;
        await stack.db.query(`INSERT INTO entry_tokens (hash, entry_id, purpose, created_at) VALUES ($1, $2, 'confirm', now())`, [hashToken(token), entryId]);
        return token;
      };
      // The confirmation page of the entry at the back of the line: every waiting entry is ahead of it.
      const lastToken = await confirmToken(last.id);
      const referrerToken = await confirmToken(referrer.id);
      const deepCursor = cursors.encode({ createdAt: deep.created_at, id: deep.id }, `${product.id}|live||`);

      const key = bearer(product.keys.live.secret);
      // Straight to the server, without the tests' check of every answer against the OpenAPI document.
      const ok = async ({ body, ...options }: { method: 'GET' | 'POST'; url: string; headers?: Record<string, string>; body?: unknown }) => {
        const response = await stack.api.inject({ ...options, ...(body === undefined ? {} : { payload: body as object }) });
        if (response.statusCode !== 200) throw new Error(`${options.method} ${options.url} answered ${response.statusCode}: ${response.body}`);
        return response;
      };
      const { cookie } = await signIn(stack, 'scale@example.com');
      const leaderboard = `/public/v1/leaderboard?key=${encodeURIComponent(product.keys.live.publishable)}`;
      const works = new Map<string, () => Promise<unknown>>([
        ['invited check (POST)', () => ok({ method: 'POST', url: '/api/v1/invited', headers: key, body: { email: invited.email } })],
        ['invited check (GET)', () => ok({ method: 'GET', url: `/api/v1/invited?email=${encodeURIComponent(invited.email)}`, headers: key })],
        ['verify', () => ok({ method: 'POST', url: '/api/v1/invites/verify', headers: key, body: { token: seeded.inviteCode(invited.id) } })],
        ['list, first page', () => ok({ method: 'GET', url: '/api/v1/entries', headers: key })],
        ['list, a cursor half way down', () => ok({ method: 'GET', url: `/api/v1/entries?cursor=${deepCursor}`, headers: key })],
        ['place, the middle of the line', () => ok({ method: 'GET', url: `/api/v1/entries/${middle.id}/place`, headers: key })],
        ['confirmation page, the back of the line', () => ok({ method: 'GET', url: `/confirm/${lastToken}` })],
        ['dashboard overview', () => ok({ method: 'GET', url: `/dashboard/${product.id}/live/overview`, headers: { cookie } })],
        [
          'leaderboard (public), read from PostgreSQL',
          () => {
            leaderboards.boards.clear();
            return ok({ method: 'GET', url: leaderboard });
          },
        ],
        ['leaderboard (public), as served', () => ok({ method: 'GET', url: leaderboard })],
        ['status page with history, a referrer in the middle of the line', () => ok({ method: 'GET', url: `/confirm/${referrerToken}` })],
        ['dashboard entry page, a referrer in the middle of the line', () => ok({ method: 'GET', url: `/dashboard/${product.id}/live/entries/${referrer.id}`, headers: { cookie } })],
        ['history, a referrer in the middle of the line', () => ok({ method: 'GET', url: `/api/v1/entries/${referrer.id}/history`, headers: key })],
      ]);
      // The board the leaderboard works read is a full one.
      expect((await ok({ method: 'GET', url: leaderboard })).json().data).toHaveLength(10);
      return { product, works };
    }

    const small = await side(SMALL);
    const large = await side(LARGE);

    const repeat = (work: () => Promise<unknown>) => async (): Promise<Measure> => {
      await work();
      return timed(async () => {
        for (let i = 0; i < REQUESTS; i++) await work();
      });
    };
    const perRequest = (ms: number) => `${ms.toFixed(2)} ms`;
    for (const [name, work] of small.works) {
      const result = await alternate(ROUNDS, repeat(work), repeat(large.works.get(name)!));
      report({
        work: `${name} at ${LARGE.toLocaleString('en-US')} entries`,
        baseline: `the same at ${SMALL.toLocaleString('en-US')} entries`,
        baselineValue: perRequest(result.baseline / REQUESTS),
        serviceValue: perRequest(result.service / REQUESTS),
        ...atMost(result.ratio, 1.2),
      });
    }

    let mailed = 0;
    const inviteNext = (product: Product) => async () => {
      const response = await stack.request({ method: 'POST', url: '/api/v1/entries/invite-next', headers: bearer(product.keys.live.secret), body: { count: INVITE_NEXT } });
      if (response.status !== 200 || response.json().invited.length !== INVITE_NEXT) throw new Error(`invite-next answered ${response.status}: ${response.text}`);
      mailed += INVITE_NEXT;
      await waitFor(() => stack.mail.mails.length >= mailed, 'every invitation mail');
    };
    const result = await alternate(ROUNDS, () => timed(inviteNext(small.product)), () => timed(inviteNext(large.product)));
    report({
      work: `invite-next(${INVITE_NEXT}) at ${LARGE.toLocaleString('en-US')} entries`,
      baseline: `the same at ${SMALL.toLocaleString('en-US')} entries`,
      baselineValue: perRequest(result.baseline),
      serviceValue: perRequest(result.service),
      ...atMost(result.ratio, 1.2),
    });
  });
});
