import { bearer, confirmPath, joinLine, signUp } from './support/flows';
import { invitationStack } from './support/invitations';
import { Product, Stack } from './support/stack';

describe('GET /api/v1/entries/{id}/place', () => {
  let stack: Stack;
  let product: Product;
  let client: Awaited<ReturnType<typeof invitationStack>>['client'];

  beforeAll(async () => {
    ({ stack, product, client } = await invitationStack());
  });
  afterAll(() => stack.stop());

  const place = (id: string, secret = product.keys.test.secret) => stack.request({ method: 'GET', url: `/api/v1/entries/${id}/place`, headers: bearer(secret) });

  it("answers a waiting entry's place, the line's length and the estimated wait; the confirmation page shows the wait", async () => {
    const pk = product.keys.test.publishable;
    const [first, , third] = [await joinLine(stack, pk, 'p1@example.com'), await joinLine(stack, pk, 'p2@example.com'), await joinLine(stack, pk, 'p3@example.com')];
    expect((await place(third.id)).json()).toEqual({ place: 3, lineLength: 3, estimatedWaitDays: null });
    const page = await stack.request({ method: 'GET', url: await confirmPath(stack, 'p3@example.com') });
    expect(page.text).toContain('Estimated wait: not enough data yet');

    // One invitation in the last 30 days: place 2 waits 2 × 30 ÷ 1 days.
    expect((await client.invite(first.id)).status).toBe(200);
    expect((await place(third.id)).json()).toEqual({ place: 2, lineLength: 2, estimatedWaitDays: 60 });
    expect((await stack.request({ method: 'GET', url: await confirmPath(stack, 'p3@example.com') })).text).toContain('Estimated wait: about 60 days');
  });

  it('is 409 for an entry not in line, 404 for an unknown one or one of the other mode', async () => {
    const pk = product.keys.test.publishable;
    await signUp(stack, pk, 'pending-place@example.com');
    const [{ id: pendingId }] = (await stack.request({ method: 'GET', url: '/api/v1/entries?email=pending-place@example.com', headers: bearer(product.keys.test.secret) })).json().data;
    const invited = (await stack.request({ method: 'GET', url: '/api/v1/entries?email=p1@example.com', headers: bearer(product.keys.test.secret) })).json().data[0];
    const answers = await Promise.all([place(pendingId), place(invited.id), place('ent_unknown'), place(invited.id, product.keys.live.secret)]);
    expect(answers.map((answer) => [answer.status, answer.json().error.code])).toEqual([
      [409, 'not_confirmed'],
      [409, 'already_invited'],
      [404, 'not_found'],
      [404, 'not_found'],
    ]);
  });
});
