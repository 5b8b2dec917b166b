import { ABANDONED_MARKS, EntryRecord, EventRecord } from '@app/shared';
import { joinLine } from './support/flows';
import { TAKE_FRONT_OF_LINE } from '../apps/api/src/line/line.service';
import { api, codeIn, InvitationApi, invitationStack, invitationsTo, line, Scope, seedLine } from './support/invitations';
import { nodes, PlanNode } from './support/plans';
import { Product, Stack } from './support/stack';

describe('invitations under concurrency, refusals and line order', () => {
  let stack: Stack;
  let product: Product;
  let pk: string;
  let client: InvitationApi;

  beforeAll(async () => ({ stack, product, pk, client } = await invitationStack()));
  afterAll(() => stack.stop());

  const waiting = (count: number, prefix: string, scope: Scope = { productId: product.id, mode: 'live' }) =>
    seedLine(stack, scope, count, prefix);

  it('20 concurrent invites of one entry: one mail, one 200, the others 409', async () => {
    const entry = await joinLine(stack, pk, 'popular@example.com');
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.invite(entry.id)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(409)]);
    expect(answers.filter((answer) => answer.status === 409).every((answer) => answer.json().error.code === 'already_invited')).toBe(true);
    expect(invitationsTo(stack, 'popular@example.com')).toHaveLength(1);
    expect(await stack.db.getRepository(EventRecord).countBy({ type: 'entry.invited' })).toBe(1);
  });

  it('20 concurrent redeems of one code: exactly one valid true and one entry.redeemed', async () => {
    const code = codeIn(invitationsTo(stack, 'popular@example.com')[0]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.redeem(code)));
    expect(answers.filter((answer) => answer.json().valid === true)).toHaveLength(1);
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(await stack.db.getRepository(EventRecord).countBy({ type: 'entry.redeemed' })).toBe(1);
  });

  it('two concurrent invite-next of 50 over a line of 100: 100 distinct entries, 100 mails', async () => {
    const live = api(stack, product.keys.live.secret);
    const rows = await waiting(100, 'batch');
    const [a, b] = await Promise.all([live.inviteNext(50), live.inviteNext(50)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const invited = [...a.json().invited, ...b.json().invited];
    expect(a.json().failed).toEqual([]);
    expect(b.json().failed).toEqual([]);
    expect(new Set(invited).size).toBe(100);
    expect(invited.sort()).toEqual(rows.map((row) => row.id).sort());
    for (const answer of [a, b]) {
      const ids: string[] = answer.json().invited;
      const order = ids.map((id) => rows.findIndex((row) => row.id === id));
      expect(order).toEqual([...order].sort((x, y) => x - y));
    }
    const mails = stack.mail.mails.filter((mail) => mail.to.startsWith('batch-'));
    expect(mails).toHaveLength(100);
    expect(new Set(mails.map((mail) => mail.to)).size).toBe(100);
    expect((await live.inviteNext(5)).json()).toEqual({ invited: [], failed: [] });
  });

  it('refused recipients come back in failed, stay confirmed and in place; the next invite-next takes them first', async () => {
    const scope = { productId: product.id, mode: 'test' as const };
    const rows = await waiting(6, 'refuse', scope);
    stack.mail.refuse.add('refuse-1@example.com');
    stack.mail.refuse.add('refuse-3@example.com');
    const first = (await client.inviteNext(4)).json();
    expect(first).toEqual({ invited: [rows[0].id, rows[2].id], failed: [rows[1].id, rows[3].id] });
    for (const id of first.failed) {
      expect(await stack.db.getRepository(EntryRecord).findOneByOrFail({ id })).toMatchObject({ state: 'confirmed', invitedAt: null, inviteHeldUntil: null });
    }
    const single = await client.invite(rows[1].id);
    expect([single.status, single.json().error.code]).toEqual([502, 'mail_failed']);
    stack.mail.refuse.clear();
    const second = (await client.inviteNext(3)).json();
    expect(second).toEqual({ invited: [rows[1].id, rows[3].id, rows[4].id], failed: [] });
  });

  it('an invite-next of 120 (several mailer jobs): each refused recipient alone is failed, every other entry invited once, in line order', async () => {
    const own = await stack.createProduct({ name: 'Chunks' });
    const rows = await waiting(120, 'chunks', { productId: own.id, mode: 'test' });
    const refused = [3, 77, 110];
    for (const index of refused) stack.mail.refuse.add(`chunks-${index}@example.com`);
    const eventsBefore = await stack.db.getRepository(EventRecord).countBy({ type: 'entry.invited' });
    const answer = (await api(stack, own.keys.test.secret).inviteNext(120)).json();
    stack.mail.refuse.clear();
    expect(answer).toEqual({
      invited: rows.filter((_, index) => !refused.includes(index)).map((row) => row.id),
      failed: refused.map((index) => rows[index].id),
    });
    const mails = stack.mail.mails.filter((mail) => mail.to.startsWith('chunks-'));
    expect(new Set(mails.map((mail) => mail.to)).size).toBe(117);
    expect(mails).toHaveLength(117);
    expect(await stack.db.getRepository(EventRecord).countBy({ type: 'entry.invited' })).toBe(eventsBefore + 117);
    expect((await api(stack, own.keys.test.secret).verify(codeIn(mails[mails.length - 1]))).json()).toMatchObject({ valid: true });
    for (const id of answer.failed) {
      expect(await stack.db.getRepository(EntryRecord).findOneByOrFail({ id })).toMatchObject({ state: 'confirmed', invitedAt: null, inviteHeldUntil: null });
    }
  });

  it('line order: referrals times referral places, move-up sums, the moved-up entry wins ties', async () => {
    const other = await stack.createProduct({ name: 'Order', referralPlaces: 2 });
    const order = api(stack, other.keys.test.secret);
    const opk = other.keys.test.publishable;
    const [e1, e2, e3, e4, e5] = await line(stack, opk, ['o1@example.com', 'o2@example.com', 'o3@example.com', 'o4@example.com', 'o5@example.com']);
    // e5 (key 5) gets one referral: 5 − 2 = 3, a tie with e3 (3) that e5 wins, moved up by its referral.
    await joinLine(stack, opk, 'friend@example.com', e5.referralCode!);
    // e4 (key 4) moved up by 1 twice: 4 − 2 = 2, a tie with e2 (2) that e4 wins as the moved-up entry.
    await order.moveUp(e4.id, 1);
    await order.moveUp(e4.id, 1);
    // o7 (key 7, after the friend's 6) moved up by 4: 7 − 4 = 3, a tie with e5 (3), both moved up: e5 confirmed first.
    const [e7] = await line(stack, opk, ['o7@example.com']);
    await order.moveUp(e7.id, 4);
    const first = (await order.inviteNext(6)).json();
    expect(first.failed).toEqual([]);
    expect(first.invited).toEqual([e1.id, e4.id, e2.id, e5.id, e7.id, e3.id]);
  });

  it('taking the front of the line is an index scan of entries_line, never a sort of the whole line', async () => {
    const big = await stack.createProduct({ name: 'Big line' });
    await seedLine(stack, { productId: big.id, mode: 'live' }, 20_000, 'big');
    await stack.db.query('ANALYZE entries');
    const [{ 'QUERY PLAN': plan }] = await stack.db.query(`EXPLAIN (FORMAT JSON) ${TAKE_FRONT_OF_LINE}`, [
      big.id,
      'live',
      50,
      'plan',
      new Date(),
      new Date(),
    ]);
    expect(JSON.stringify(plan)).toContain('"Index Name":"entries_line"');
    // The only sort allowed puts the taken entries (at most `count`) in order, never the line itself.
    const sorts = nodes(plan[0].Plan).filter((node) => node['Node Type'] === 'Sort');
    const sorted = (sort: PlanNode) => sort.Plans?.filter((input) => input['Parent Relationship'] === 'Outer').map((input) => input['Node Type']);
    expect(sorts.map(sorted)).toEqual(sorts.map(() => ['CTE Scan']));
  });

  it('looking for the marks a dead mailer and API left, before the front is taken, is a scan of invite_codes_marked, never of the codes', async () => {
    const big = await stack.createProduct({ name: 'Many codes' });
    const rows = await seedLine(stack, { productId: big.id, mode: 'live' }, 20_000, 'codes');
    await stack.db.query(
      `INSERT INTO invite_codes (hash, entry_id, recorded, handed_over, expires_at, created_at)
       SELECT sha256(id::bytea), id, true, true, now() + interval '1 day', now() FROM unnest($1::text[]) AS e(id)`,
      [rows.map((row) => row.id)],
    );
    await stack.db.query('ANALYZE entries; ANALYZE invite_codes');
    const [{ 'QUERY PLAN': plan }] = await stack.db.query(`EXPLAIN (FORMAT JSON) ${ABANDONED_MARKS}`, [big.id, 'live', new Date()]);
    const ofCodes = nodes(plan[0].Plan).filter((node) => node['Relation Name'] === 'invite_codes');
    expect(ofCodes.map((node) => node['Index Name'])).toEqual(['invite_codes_marked']);
  });
});
