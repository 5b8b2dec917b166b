import { codeIn, InvitationApi, invitationStack, invitationsTo, seedLine } from './support/invitations';
import { Product, Stack } from './support/stack';

describe('reinvites close together', () => {
  let stack: Stack;
  let product: Product;
  let client: InvitationApi;

  beforeAll(async () => ({ stack, product, client } = await invitationStack({ mode: 'live' })));
  afterAll(() => stack.stop());

  /** An invited entry, and its address. */
  async function invited(prefix: string): Promise<{ id: string; email: string }> {
    const [entry] = await seedLine(stack, { productId: product.id, mode: 'live' }, 1, prefix);
    expect((await client.invite(entry.id)).status).toBe(200);
    return entry;
  }

  /** Each mail's code: only the newest one works, and it does. */
  async function onlyNewestWorks(email: string): Promise<void> {
    const codes = invitationsTo(stack, email).map(codeIn);
    const valid = await Promise.all(codes.map(async (code) => (await client.verify(code)).json().valid));
    expect(valid).toEqual([...Array(codes.length - 1).fill(false), true]);
  }

  it('20 concurrent reinvites: one 200 and one mail whose code works, 19 × 409', async () => {
    const entry = await invited('crowd');
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.reinvite(entry.id)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array(19).fill(409)]);
    expect(answers.filter((answer) => answer.status === 409).every((answer) => answer.json().error.code === 'idempotency_in_progress')).toBe(true);
    expect(invitationsTo(stack, entry.email)).toHaveLength(2);
    await onlyNewestWorks(entry.email);
  });

  it('reinvites sent every few milliseconds from the moment the first mail is handed over: each answer matches what happened', async () => {
    for (let round = 0; round < 3; round++) {
      const entry = await invited(`close${round}`);
      const others: ReturnType<typeof client.reinvite>[] = [];
      let firstAnswered = false;
      const hammer = async () => {
        while (!firstAnswered) {
          others.push(client.reinvite(entry.id));
          await new Promise((resolve) => setTimeout(resolve, 3));
        }
      };
      stack.mail.afterAccept = (mail) => {
        if (mail.to === entry.email && others.length === 0) void hammer();
      };
      const first = await client.reinvite(entry.id);
      firstAnswered = true;
      stack.mail.afterAccept = undefined;
      const statuses = [first, ...(await Promise.all(others))].map((answer) => answer.status);
      expect(others.length).toBeGreaterThan(0);
      expect(statuses.filter((status) => status !== 200 && status !== 409)).toEqual([]);
      // The invitation, then one mail per 200: a 200 for each mail that went out, and no other.
      expect(invitationsTo(stack, entry.email)).toHaveLength(1 + statuses.filter((status) => status === 200).length);
      await onlyNewestWorks(entry.email);
    }
  });
});
