import { Entry, recordEvents } from '@app/shared';
import { Stack } from './support/stack';

/**
 * Events of several entries are recorded in one statement, their bodies sent to PostgreSQL as one text
 * a body a line (libs/shared/src/events/events.ts): each event's outbox row must keep the exact bytes
 * of its own envelope, whatever its entry's text holds.
 */
describe('events of several entries recorded at once', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'] });
  });
  afterAll(() => stack?.stop());

  it('stores each body byte for byte beside its own event', async () => {
    const product = await stack.createProduct();
    const entry = (id: string, email: string): Entry => ({
      id,
      email,
      state: 'invited',
      createdAt: '2026-11-28T09:30:00.000Z',
      confirmedAt: '2026-11-28T09:31:00.000Z',
      invitedAt: '2026-11-28T09:32:00.000Z',
      redeemedAt: null,
      referralCode: 'k7m3x9q2w4zr',
      referrals: 0,
    });
    // Quotes, backslashes, a line and a paragraph separator, a newline and text beyond the BMP, as JSON escapes or keeps them.
    const entries = [entry('ent_a', 'plain@example.com'), entry('ent_b', 'q"u\\o\u2028t\u2029e\n@example.com'), entry('ent_c', 'ünï😀@example.com')];

    const envelopes = await stack.db.transaction((manager) => recordEvents(manager, 'entry.invited', { productId: product.id, mode: 'test' }, entries, new Date()));

    const rows: { event_id: string; body: string }[] = await stack.db.query(
      `SELECT data->>'eventId' AS event_id, body FROM outbox WHERE data->>'eventId' = ANY($1)`,
      [envelopes.map((envelope) => envelope.id)],
    );
    const bodies = new Map(rows.map((row) => [row.event_id, row.body]));
    expect(bodies.size).toBe(3);
    for (const envelope of envelopes) expect(bodies.get(envelope.id)).toBe(JSON.stringify(envelope));
    expect(envelopes.map((envelope) => (envelope.data.entry as Entry).id)).toEqual(['ent_a', 'ent_b', 'ent_c']);
  });
});
