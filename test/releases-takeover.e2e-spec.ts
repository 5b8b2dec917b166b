import { QueueName, redisOptions } from '@app/shared';
import { Queue } from 'bullmq';
import { withServices } from '../apps/api/src/cli/services';
import { ProductsService } from '../apps/api/src/products/products.service';
import { ReleasesService } from '../apps/api/src/releases/releases.service';
import { invitationsTo, seedLine } from './support/invitations';
import { AppProcess } from './support/processes';
import { Stack } from './support/stack';
import { waitFor } from './support/wait';

/** A round a second, so that the survivor's first rounds come at once; the limits out of the way. */
const ENV = { MAINTENANCE_INTERVAL: '1s', RATE_LIMIT_API: '10000/1s' };
const CAPACITY = 5;

/**
 * The api that runs a release's tick is killed with SIGKILL while its mails are being handed over; the
 * mailer (in this process) goes on with the job it was given. Another api, started afterwards, takes
 * the run over in a maintenance round and sends what is left of it, once and under the cap.
 */
describe('a release run whose api dies', () => {
  let stack: Stack;
  const apps: AppProcess[] = [];

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['mailer'], env: ENV });
  }, 60_000);
  afterAll(async () => {
    for (const app of apps) await app.kill();
    await stack?.stop();
  });

  it('is taken over by another api, which sends its remaining invitations once and under the cap, and finishes it', async () => {
    const product = await withServices(stack.config, async (services) => {
      const made = await services.get(ProductsService).create({ name: 'Acme' });
      await services.get(ProductsService).update(made.id, { capacity: CAPACITY });
      return made;
    });
    const scope = { productId: product.id, mode: 'test' as const };
    const line = await seedLine(stack, scope, 7, `takeover-${product.id}`);
    // The second in line is put off by the server (451) while the dying api's job runs: its mail fails and it stays held.
    stack.mail.defer.add(line[1].email);

    const dying = await AppProcess.start('api', stack.config, { env: ENV });
    apps.push(dying);
    let killed = false;
    stack.mail.beforeAccept = async () => {
      if (killed) return;
      killed = true;
      await dying.kill();
    };
    // One tick, a few seconds from now, of a daily release (six fields, seconds first) that asks more than the cap lets through.
    const tick = new Date(Math.ceil(Date.now() / 1000) * 1000 + 5000);
    const pattern = `${tick.getUTCSeconds()} ${tick.getUTCMinutes()} ${tick.getUTCHours()} * * *`;
    const release = await withServices(stack.config, (services) => services.get(ReleasesService).create(scope, { count: 6, pattern, timeZone: 'UTC' }));

    await waitFor(() => killed && !dying.running, 'the api running the tick to be killed', { timeoutMs: 30_000 });
    // The mailer finishes the job the dead api gave it: four mails out, one put off.
    const invitations = new Queue(QueueName.Invitations, { connection: redisOptions(stack.config.REDIS_URL), prefix: stack.config.QUEUE_PREFIX });
    try {
      await waitFor(async () => (await invitations.getJobCounts('completed', 'failed')).completed === 1, "the dead api's mail job to end", { timeoutMs: 30_000 });
    } finally {
      await invitations.close();
    }
    stack.mail.defer.clear();
    const runs = () => stack.db.query(`SELECT finished_at, asked, invited, failed, skipped_for_capacity, error, invited_entry_ids FROM release_runs WHERE release_id = $1`, [release.id]);
    expect(await runs()).toEqual([expect.objectContaining({ finished_at: null, invited: 0 })]);
    expect(line.map((entry) => invitationsTo(stack, entry.email).length)).toEqual([1, 0, 1, 1, 1, 0, 0]);

    apps.push(await AppProcess.start('api', stack.config, { env: ENV }));
    // The put-off entry's hold ends on its own clock (the invitation bound), then the survivor invites what the cap lets through.
    await waitFor(async () => (await runs())[0].finished_at !== null, 'the run to be taken over and finished', { timeoutMs: 120_000 });
    expect(await runs()).toEqual([expect.objectContaining({ asked: 6, invited: 5, failed: 0, skipped_for_capacity: 1, error: null })]);
    // Whom it invited, listed: the dead api's four, then the survivor's.
    expect((await runs())[0].invited_entry_ids).toEqual([0, 2, 3, 4, 1].map((place) => line[place].id));
    // Everyone mailed once: the dead api's four, and the put-off entry by the survivor; the cap kept the sixth in line.
    expect(line.map((entry) => invitationsTo(stack, entry.email).length)).toEqual([1, 1, 1, 1, 1, 0, 0]);
    const states: { state: string }[] = await stack.db.query(`SELECT state FROM entries WHERE id = ANY($1) ORDER BY confirmation_seq`, [line.map((entry) => entry.id)]);
    expect(states.map((entry) => entry.state)).toEqual(['invited', 'invited', 'invited', 'invited', 'invited', 'confirmed', 'confirmed']);
  }, 240_000);
});
