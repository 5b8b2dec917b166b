import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { CommandQueue } from '@app/shared';
import type { FastifyInstance } from 'fastify';
import { DashboardAuthService } from './dashboard-auth.service';
import { sessionToken } from './cookies';

export const QUEUE_BOARD_PATH = '/admin/queues';

/**
 * Bull Board at /admin/queues, showing every BullMQ queue of the apps, for operators only. It lives in
 * an encapsulated Fastify plugin whose onRequest hook checks the session, which covers the board's
 * pages and its API alike (its Nest middleware does not hold on Fastify). The queues hold every
 * product's jobs, so a team member gets the 404 of an unknown path, as if there were no board; without
 * a session the board sends to the login, like every dashboard page. Operators may act on jobs (retry,
 * clean): the board's writes are PUT and POST requests, which the SameSite=Lax session cookie never
 * accompanies from another site.
 */
export async function registerQueueBoard(fastify: FastifyInstance, queues: readonly CommandQueue[], auth: DashboardAuthService): Promise<void> {
  const board = new FastifyAdapter();
  board.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue)), serverAdapter: board });

  await fastify.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      const identity = await auth.identify(sessionToken(request));
      // Each answer is returned, so that Fastify waits until it is sent and never goes on to the board.
      if (!identity) return reply.redirect('/dashboard/login', 303);
      if (!identity.user.operator) return reply.callNotFound();
    });
    await scope.register(board.registerPlugin(), { prefix: QUEUE_BOARD_PATH });
  });
}
