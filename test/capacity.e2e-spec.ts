import { EntryRecord } from '@app/shared';
import { ProductsService } from '../apps/api/src/products/products.service';
import { api, codeIn, invitationStack, invitationsTo, seedLine } from './support/invitations';
import { Product, Stack } from './support/stack';

/** Entries invited and not redeemed whose code still works, of the product's test mode. */
async function outstanding(stack: Stack, productId: string): Promise<number> {
  const [{ n }] = await stack.db.query(
    `SELECT count(*)::int AS n FROM entries e WHERE e.product_id = $1 AND e.mode = 'test' AND e.state = 'invited'
       AND EXISTS (SELECT 1 FROM invite_codes c WHERE c.entry_id = e.id AND c.expires_at > now())`,
    [productId],
  );
  return n;
}

describe('the capacity cap', () => {
  let stack: Stack;

  beforeAll(async () => {
    ({ stack } = await invitationStack());
  });
  afterAll(() => stack.stop());

  const cappedProduct = async (capacity: number | null): Promise<Product> => {
    const product = await stack.createProduct();
    await stack.api.get(ProductsService).update(product.id, { capacity });
    return product;
  };

  it('answers 409 capacity_reached to an invite-next that would pass the cap, and changes nothing', async () => {
    const product = await cappedProduct(3);
    const client = api(stack, product.keys.test.secret);
    await seedLine(stack, { productId: product.id, mode: 'test' }, 5, `cap-a-${product.id}`);
    const refused = await client.inviteNext(4);
    expect(refused.status).toBe(409);
    expect(refused.json().error).toEqual({ code: 'capacity_reached', message: expect.stringMatching(/^The product's capacity of 3 .* 3 places are free/) });
    expect(await stack.db.getRepository(EntryRecord).countBy({ productId: product.id, state: 'confirmed' })).toBe(5);
    expect(await stack.db.query(`SELECT id FROM entries WHERE product_id = $1 AND invite_held_until IS NOT NULL`, [product.id])).toEqual([]);
    const taken = await client.inviteNext(3);
    expect(taken.status).toBe(200);
    expect(taken.json().invited).toHaveLength(3);
    expect((await client.inviteNext(1)).json().error.code).toBe('capacity_reached');
  });

  it('refuses a single invite at the cap, lets a reinvite through, and counts a place freed by a redeem or an expired code', async () => {
    const product = await cappedProduct(1);
    const client = api(stack, product.keys.test.secret);
    const [first, second, third] = await seedLine(stack, { productId: product.id, mode: 'test' }, 3, `cap-b-${product.id}`);
    expect((await client.invite(first.id)).status).toBe(200);
    expect((await client.invite(second.id)).json().error.code).toBe('capacity_reached');
    // A reinvite replaces the code of someone already counted.
    expect((await client.reinvite(first.id)).status).toBe(200);
    const code = codeIn(invitationsTo(stack, first.email).at(-1)!);
    expect((await client.redeem(code)).json().valid).toBe(true);
    expect((await client.invite(second.id)).status).toBe(200);
    expect((await client.invite(third.id)).json().error.code).toBe('capacity_reached');
    await stack.db.query(`UPDATE invite_codes SET expires_at = now() - interval '1 second' WHERE entry_id = $1`, [second.id]);
    expect((await client.invite(third.id)).status).toBe(200);
    // The reinvite of an entry whose code expired would count it again: refused at the cap.
    expect((await client.reinvite(second.id)).json().error.code).toBe('capacity_reached');
  });

  it('lets exactly the cap through 20 concurrent invite-next calls', async () => {
    const product = await cappedProduct(5);
    const client = api(stack, product.keys.test.secret);
    await seedLine(stack, { productId: product.id, mode: 'test' }, 30, `cap-c-${product.id}`);
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.inviteNext(1)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(5);
    expect(answers.filter((answer) => answer.status === 409).map((answer) => answer.json().error.code)).toEqual(Array(15).fill('capacity_reached'));
    expect(await outstanding(stack, product.id)).toBe(5);
  });

  it('changes nothing without a cap: invite-next takes what it is asked', async () => {
    const product = await cappedProduct(null);
    const client = api(stack, product.keys.test.secret);
    await seedLine(stack, { productId: product.id, mode: 'test' }, 12, `cap-d-${product.id}`);
    expect((await client.inviteNext(12)).json().invited).toHaveLength(12);
  });
});
