import { EntryRecord } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { ProductsService } from '../apps/api/src/products/products.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { joinLine, signUp } from './support/flows';
import { invitationsTo, line } from './support/invitations';
import { Product, Stack } from './support/stack';

/**
 * Bulk actions of the entries list: a selection (or every entry of a filter), a page that says how many
 * and asks, then the same services as one entry's buttons, with how many went through and which did not.
 */
describe('dashboard: bulk actions on entries', () => {
  let stack: Stack;
  let acme: Product;
  let other: Product;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '10000/1m' } });
    acme = await stack.createProduct({ name: 'Acme' });
    other = await stack.createProduct({ name: 'Other' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ cookie, csrf } = await signIn(stack, 'ada@example.com'));
  });
  afterAll(() => stack.stop());

  const base = () => `/dashboard/${acme.id}/test/entries`;
  const show = (url: string) => stack.request({ method: 'GET', url, headers: { cookie } });
  const post = (url: string, fields: [string, string][]) =>
    stack.request({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form([['_csrf', csrf], ...fields]) });
  const record = (id: string) => stack.db.getRepository(EntryRecord).findOneBy({ id });
  const entries = () => stack.db.query(`SELECT id, state, line_key, moved_up FROM entries ORDER BY id`);

  it('the entries list lets the team select entries and choose an action for them, or for every entry of its filter', async () => {
    const [ann] = await line(stack, acme.keys.test.publishable, ['list-ann@example.com']);
    const page = (await show(`${base()}?state=confirmed`)).text;
    expect(page).toContain(`<form method="get" action="${base()}/bulk"`);
    expect(page).toContain(`<input type="checkbox" name="ids" value="${ann.id}"`);
    expect(page).toMatch(/<select name="action"[^>]*>.*<option value="invite">.*<option value="move-up">.*<option value="delete">/s);
    expect(page).toContain('<input type="hidden" name="state" value="confirmed">');
    expect(page).toContain('<button type="submit" name="scope" value="filter"');
  });

  it('inviting a selection: the page asks with the count and changes nothing; its button invites the waiting ones and names the others with the reason', async () => {
    const [bea, cid] = await line(stack, acme.keys.test.publishable, ['bulk-bea@example.com', 'bulk-cid@example.com']);
    await signUp(stack, acme.keys.test.publishable, 'bulk-dot@example.com');
    const dot = (await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'bulk-dot@example.com' })).id;
    const query = new URLSearchParams([['action', 'invite'], ['ids', bea.id], ['ids', cid.id], ['ids', dot]]);

    const before = await entries();
    const asked = await show(`${base()}/bulk?${query}`);
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Invite 3 entries?');
    expect(asked.text).toContain(`<form class="inline" method="post" action="${base()}/bulk">`);
    expect(await entries()).toEqual(before);

    const done = await post(`${base()}/bulk`, [...query]);
    expect([done.status, done.headers.location]).toEqual([303, base()]);
    expect((await record(bea.id))!.state).toBe('invited');
    expect((await record(cid.id))!.state).toBe('invited');
    expect((await record(dot))!.state).toBe('pending');
    expect(invitationsTo(stack, 'bulk-bea@example.com')).toHaveLength(1);
    const result = (await show(base())).text;
    expect(result).toContain('2 of 3 entries invited.');
    expect(result).toContain('bulk-dot@example.com: This entry has not confirmed its address yet.');
    // Shown once.
    expect((await show(base())).text).not.toContain('2 of 3 entries invited.');
  });

  it('moving up every entry of a filter: the page counts the filter; each waiting entry moves up through the line service, with a history row', async () => {
    const people = await line(stack, acme.keys.test.publishable, ['up-1@example.com', 'up-2@example.com']);
    const filter = new URLSearchParams([['action', 'move-up'], ['places', '4'], ['scope', 'filter'], ['email', 'up-'], ['state', 'confirmed']]);
    const asked = await show(`${base()}/bulk?${filter}`);
    expect(asked.text).toContain('Move up 2 entries by 4 places each?');
    const done = await post(`${base()}/bulk`, [...filter]);
    expect(done.status).toBe(303);
    for (const person of people) {
      const moved = (await record(person.id))!;
      expect([moved.movedUp, moved.lineKey]).toEqual([4, person.lineKey! - 4]);
    }
    const [{ count }] = await stack.db.query(`SELECT count(*)::int AS count FROM place_history WHERE entry_id = ANY($1) AND cause = 'moved_up'`, [people.map((p) => p.id)]);
    expect(count).toBe(2);
    expect((await show(base())).text).toContain('2 of 2 entries moved up.');
  });

  it("deleting a selection deletes through the entries service; another product's entry in it is not found and stays", async () => {
    const eve = await joinLine(stack, acme.keys.test.publishable, 'bulk-eve@example.com');
    const stranger = await joinLine(stack, other.keys.test.publishable, 'stranger@example.com');
    const query = new URLSearchParams([['action', 'delete'], ['ids', eve.id], ['ids', stranger.id]]);
    expect((await show(`${base()}/bulk?${query}`)).text).toContain('Delete 2 entries?');
    expect((await post(`${base()}/bulk`, [...query])).status).toBe(303);
    expect(await record(eve.id)).toBeNull();
    expect(await record(stranger.id)).not.toBeNull();
    const [{ count }] = await stack.db.query(`SELECT count(*)::int AS count FROM events e JOIN outbox o ON o.data->>'eventId' = e.id WHERE e.type = 'entry.deleted' AND o.body::jsonb->'data'->'entry'->>'id' = $1`, [eve.id]);
    expect(count).toBe(1);
    expect((await show(base())).text).toContain('1 of 2 entries deleted.');
  });

  it('refuses what it cannot do, changing nothing: no action, no entry, a bad number of places, more than 1,000 selected or matching the filter', async () => {
    const fay = await joinLine(stack, acme.keys.test.publishable, 'bulk-fay@example.com');
    await stack.db.query(
      `INSERT INTO entries (id, product_id, mode, email, state, created_at)
       SELECT 'ent_many_' || i, $1, 'test', 'many-' || i || '@example.com', 'pending', now() FROM generate_series(1, 1001) AS i`,
      [acme.id],
    );
    const before = await entries();
    for (const fields of [
      [['ids', fay.id]],
      [['action', 'promote'], ['ids', fay.id]],
      [['action', 'invite']],
      [['action', 'move-up'], ['ids', fay.id], ['places', '0']],
      [['action', 'invite'], ...Array.from({ length: 1001 }, (_, i): [string, string] => ['ids', `ent_${i}`])],
      [['action', 'delete'], ['scope', 'filter'], ['email', 'many-']],
    ] as [string, string][][]) {
      const asked = await show(`${base()}/bulk?${new URLSearchParams(fields)}`);
      expect([fields[0], asked.status]).toEqual([fields[0], 400]);
      const refused = await post(`${base()}/bulk`, fields);
      expect([fields[0], refused.status]).toEqual([fields[0], 400]);
    }
    expect(await entries()).toEqual(before);
  });

  it('inviting under a full or nearly full capacity cap: the page says how many the cap lets through and why, the result says each reason once, and the list keeps its filter', async () => {
    const emails = Array.from({ length: 8 }, (_, i) => `capped-${i}@example.com`);
    await line(stack, acme.keys.test.publishable, emails);
    const [{ outstanding }] = await stack.db.query(`SELECT count(*)::int AS outstanding FROM entries WHERE product_id = $1 AND mode = 'test' AND state = 'invited'`, [acme.id]);
    const products = stack.api.get(ProductsService);
    const filter = new URLSearchParams([['action', 'invite'], ['scope', 'filter'], ['email', 'capped-'], ['state', 'confirmed']]);
    const listed = `${base()}?email=capped-&state=confirmed`;
    try {
      await products.update(acme.id, { capacity: outstanding });
      const full = (await show(`${base()}/bulk?${filter}`)).text;
      expect(full).not.toContain('Invite 8 entries?');
      expect(full).toContain(`None of the 8 entries can be invited now: the capacity cap of ${outstanding} invited entries not yet redeemed is reached.`);
      const refused = await post(`${base()}/bulk`, [...filter]);
      expect([refused.status, refused.headers.location]).toEqual([303, listed]);
      const afterFull = (await show(listed)).text;
      expect(afterFull).toContain('0 of 8 entries invited.');
      expect(afterFull.match(/capacity cap/g)).toHaveLength(1);
      expect(afterFull).toContain('8 entries stay in line: no place is free under the capacity cap.');
      // The list as it was: its filter kept.
      expect(afterFull).toContain('<input type="search" name="email" placeholder="Find by email" value="capped-">');

      await products.update(acme.id, { capacity: outstanding + 3 });
      const three = (await show(`${base()}/bulk?${filter}`)).text;
      expect(three).toContain('Invite 3 of 8 entries?');
      expect(three).toContain(`3 places are free under the capacity cap of ${outstanding + 3} invited entries not yet redeemed: 3 entries will be invited, the other 5 stay in line.`);
      expect((await post(`${base()}/bulk`, [...filter])).headers.location).toBe(listed);
      const afterThree = (await show(listed)).text;
      expect(afterThree).toContain('3 of 8 entries invited.');
      expect(afterThree).toContain('5 entries stay in line: no place is free under the capacity cap.');

      await products.update(acme.id, { capacity: outstanding + 4 });
      const one = (await show(`${base()}/bulk?${filter}`)).text;
      expect(one).toContain('Invite 1 of 5 entries?');
      expect(one).toContain('1 place is free under the capacity cap');
      expect(one).not.toMatch(/\b1 (entries|places)\b/);
      await products.update(acme.id, { capacity: outstanding + 7 });
      expect((await show(`${base()}/bulk?${filter}`)).text).toContain('4 entries will be invited, the other 1 stays in line.');
    } finally {
      await products.update(acme.id, { capacity: null });
    }
  });
});
