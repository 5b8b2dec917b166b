import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { AppConfig, CommandQueue, QueueName } from '@app/shared';
import type { FastifyInstance } from 'fastify';
import { DashboardAuthService } from './dashboard-auth.service';
import { readCookie, SESSION_COOKIE } from './dashboard.guard';

export const QUEUE_BOARD_PATH = '/admin/queues';

/**
 * Bull Board at /admin/queues, showing every queue of the three apps, behind the dashboard login. It
 * lives in an encapsulated Fastify plugin whose onRequest hook checks the session, which covers the
 * board's pages and its API alike (its Nest middleware does not hold on Fastify). The queues serve
 * every product, so the board is read-only: no team may pause, clean or retry another team's jobs
 * (jobs retry and recover on their own; payloads are ids only).
 */
export async function registerQueueBoard(fastify: FastifyInstance, config: AppConfig, auth: DashboardAuthService): Promise<void> {
  const queues = Object.values(QueueName).map((name) => CommandQueue.open(name, config));
  const board = new FastifyAdapter();
  board.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })), serverAdapter: board });

  await fastify.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      if (!(await auth.identify(readCookie(request, SESSION_COOKIE)))) await reply.redirect('/dashboard/login', 303);
    });
    await scope.register(board.registerPlugin(), { prefix: QUEUE_BOARD_PATH });
  });
  fastify.addHook('onClose', async () => {
    await Promise.allSettled(queues.map((queue) => queue.close()));
  });
}
