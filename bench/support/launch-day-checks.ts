import { bearer } from '../../test/support/flows';
import { Receiver } from '../../test/support/receiver';
import { Stack } from '../../test/support/stack';
import { MailLog } from './launch-day';
import { inParallel } from './load';

export interface Launch {
  stack: Stack;
  mails: MailLog;
  receivers: Receiver[];
  productId: string;
  secret: string;
  apiUrl: string;
  signups: number;
  invites: number;
  referrers: number;
  endpoints: { id: string }[];
  /** The product's events, as the deliveries stage counted them. */
  events: number;
  releaseId: string;
  runCount: number;
}

/**
 * Nothing lost or doubled on launch day: every confirmed person in line once (numbers 1 … n, no gap,
 * none twice), one confirmation mail each, every credited referral counted; each invited person mailed
 * once with a code that works and the cap holding; every event delivered to each endpoint once and logged.
 */
export async function checkLaunch(launch: Launch): Promise<void> {
  const { stack, productId } = launch;
  const inLine = launch.signups + launch.referrers;
  const [line] = await stack.db.query(
    `SELECT count(*)::int AS entries, count(DISTINCT confirmation_seq)::int AS numbers, min(confirmation_seq)::int AS first, max(confirmation_seq)::int AS last,
            count(*) FILTER (WHERE email LIKE 'launch-%')::int AS launched, (SELECT last_seq::int FROM line_counters WHERE product_id = $1 AND mode = 'test') AS counter
     FROM entries WHERE product_id = $1 AND mode = 'test' AND state <> 'pending'`,
    [productId],
  );
  expect(line).toEqual({ entries: inLine, numbers: inLine, first: 1, last: inLine, launched: launch.signups, counter: inLine });
  const [{ pending }] = await stack.db.query(`SELECT count(*)::int AS pending FROM entries WHERE product_id = $1 AND state = 'pending'`, [productId]);
  expect(pending).toBe(0);
  for (let i = 0; i < launch.signups; i++) expect(launch.mails.of(`launch-${i}@example.com`, 'confirmation')).toHaveLength(1);

  const [referrals] = await stack.db.query(
    `SELECT (SELECT count(*)::int FROM referrals r JOIN entries e ON e.id = r.referred_id WHERE r.product_id = $1 AND e.email LIKE 'launch-%') AS made,
            (SELECT count(*)::int FROM referrals WHERE product_id = $1 AND state = 'credited') AS credited,
            (SELECT sum(referrals)::int FROM entries WHERE product_id = $1) AS counted`,
    [productId],
  );
  expect(referrals.made).toBe(Math.ceil(launch.signups / 5));
  expect(referrals.counted).toBe(referrals.credited);

  // The cap: one more run invites nobody.
  const extra = await fetch(`${launch.apiUrl}/api/v1/releases/${launch.releaseId}/run`, { method: 'POST', headers: bearer(launch.secret) });
  expect(await extra.json()).toMatchObject({ invited: 0, skippedForCapacity: launch.runCount });
  const invited: { email: string }[] = await stack.db.query(`SELECT email FROM entries WHERE product_id = $1 AND state = 'invited'`, [productId]);
  expect(invited).toHaveLength(launch.invites);
  const invitationsSent = [...launch.mails.byAddress.keys()].filter((address) => /^(launch|lref)-/.test(address) && launch.mails.of(address, 'invitation').length > 0);
  expect(invitationsSent).toHaveLength(launch.invites);
  const wrong: string[] = [];
  await inParallel(invited.length, 20, async (i) => {
    const { email } = invited[i];
    const codes = launch.mails.of(email, 'invitation');
    if (codes.length !== 1) return void wrong.push(`${email}: ${codes.length} invitation mails`);
    const response = await fetch(`${launch.apiUrl}/api/v1/invites/verify`, {
      method: 'POST',
      headers: { ...bearer(launch.secret), 'content-type': 'application/json' },
      body: JSON.stringify({ token: codes[0] }),
    });
    const answer = (await response.json()) as { valid: boolean; email?: string };
    if (!answer.valid || answer.email !== email) wrong.push(`${email}: ${JSON.stringify(answer)}`);
  });
  expect(wrong).toEqual([]);

  const eventIds: string[] = (await stack.db.query(`SELECT id FROM events WHERE product_id = $1`, [productId])).map((row: { id: string }) => row.id).sort();
  expect(eventIds).toHaveLength(launch.events);
  for (const receiver of launch.receivers) {
    receiver.expectDocumented();
    const received = receiver.received.map((delivery) => JSON.parse(delivery.body).id as string);
    expect(received).toHaveLength(launch.events);
    expect([...new Set(received)].sort()).toEqual(eventIds);
  }
  for (const endpoint of launch.endpoints) {
    const [logged] = await stack.db.query(
      `SELECT count(DISTINCT d.id)::int AS deliveries, count(DISTINCT d.event_id)::int AS events, count(*) FILTER (WHERE a.status_code = 200)::int AS answered
       FROM deliveries d LEFT JOIN delivery_attempts a ON a.delivery_id = d.id WHERE d.endpoint_id = $1 AND d.status = 'succeeded'`,
      [endpoint.id],
    );
    expect(logged).toEqual({ deliveries: launch.events, events: launch.events, answered: launch.events });
  }
}
