import { ProductsService } from '../apps/api/src/products/products.service';
import { bearer } from '../test/support/flows';
import { Product, Stack } from '../test/support/stack';
import { alternate, atMost, report, seconds, timed } from './support/harness';
import { seedEntries } from './support/scale';

const SMALL = Number(process.env.SCALE_SMALL ?? 10_000);
const LARGE = Number(process.env.SCALE_LARGE ?? 1_000_000);
const ROUNDS = Number(process.env.RELEASE_ROUNDS ?? 3);
const COUNT = 1000;
/**
 * Far above what either product has invited: the cap's count runs in every run without leaving anyone
 * out. RELEASE_CAPACITY=off runs without a cap (nothing counted), to see what the count costs.
 */
const CAPACITY = process.env.RELEASE_CAPACITY === 'off' ? null : 9_999_999;

/**
 * A release of 1,000 at 1,000,000 entries against the same release at 10,000: two products in one
 * database, seeded by the scale fixture (bench/support/scale.ts), each with a release run now through
 * the API until its answer (every mail settled), alternately. With the capacity cap set, so that the
 * count of outstanding invitations (a fifth of the large product's entries are invited) is in the time.
 */
describe(`a release of ${COUNT.toLocaleString('en-US')} at ${LARGE.toLocaleString('en-US')} entries against ${SMALL.toLocaleString('en-US')}`, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_API: '1000000/1s' } });
  });
  afterAll(() => stack.stop());

  it('reports the run’s time at both sizes', async () => {
    async function side(count: number): Promise<{ product: Product; release: string }> {
      const product = await stack.createProduct({ name: `Release ${count}` });
      await stack.api.get(ProductsService).update(product.id, { capacity: CAPACITY });
      const started = Date.now();
      // More of the small list waiting, so that its line lasts every round.
      const states = count < 100_000 ? { pending: 0.1, confirmed: 0.6, invited: 0.2, redeemed: 0.1 } : undefined;
      await seedEntries(stack.db, { productId: product.id, mode: 'live', count, states, prefix: `r${count}` });
      process.stdout.write(`seeded ${count.toLocaleString('en-US')} entries in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      const made = await stack.api.inject({
        method: 'POST',
        url: '/api/v1/releases',
        headers: bearer(product.keys.live.secret),
        payload: { count: COUNT, pattern: '0 9 * * 1', timeZone: 'Europe/Berlin', paused: true },
      });
      return { product, release: made.json().id };
    }
    const small = await side(SMALL);
    const large = await side(LARGE);

    const run = ({ product, release }: { product: Product; release: string }) => async () => {
      const response = await stack.api.inject({ method: 'POST', url: `/api/v1/releases/${release}/run`, headers: bearer(product.keys.live.secret) });
      const body = response.json();
      if (response.statusCode !== 200 || body.invited !== COUNT) throw new Error(`run answered ${response.statusCode}: ${response.body}`);
    };
    const result = await alternate(ROUNDS, () => timed(run(small)), () => timed(run(large)));
    report({
      work: `a release of ${COUNT.toLocaleString('en-US')} at ${LARGE.toLocaleString('en-US')} entries (${CAPACITY === null ? 'no capacity cap' : 'capacity cap set'})`,
      baseline: `the same at ${SMALL.toLocaleString('en-US')} entries`,
      baselineValue: seconds(result.baseline),
      serviceValue: seconds(result.service),
      ...atMost(result.ratio, 1.2),
    });
  });
});
