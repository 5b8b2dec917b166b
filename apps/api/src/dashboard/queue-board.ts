import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { CommandQueue } from '@app/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ErrorBody } from '../common/api-error';
import { DashboardAuthService } from './auth/dashboard-auth.service';
import { sessionToken } from './auth/cookies';

export const QUEUE_BOARD_PATH = '/admin/queues';

/** Methods that only read: Bull Board changes nothing with them, so they need no origin. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Bull Board at /admin/queues, showing every BullMQ queue of the apps, for operators only. It lives in
 * an encapsulated Fastify plugin whose onRequest hook checks the session, which covers the board's
 * pages and its API alike (its Nest middleware does not hold on Fastify). The queues hold every
 * product's jobs, so a team member gets the 404 of an unknown path, as if there were no board; without
 * a session the board sends to the login, like every dashboard page. Operators may act on jobs (retry,
 * clean, pause, add). The board's page cannot carry the dashboard's CSRF token, and its API takes plain
 * form posts, so a write is taken only from the service's own origin (see fromOwnOrigin).
 */
export async function registerQueueBoard(
  fastify: FastifyInstance,
  queues: readonly CommandQueue[],
  auth: DashboardAuthService,
  publicBaseUrl: string,
): Promise<void> {
  const board = new FastifyAdapter();
  board.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue)), serverAdapter: board });
  const ownOrigin = new URL(publicBaseUrl).origin;

  await fastify.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      const identity = await auth.identify(sessionToken(request));
      // Each answer is returned, so that Fastify waits until it is sent and never goes on to the board.
      if (!identity) return reply.redirect('/dashboard/login', 303);
      if (!identity.user.operator) return reply.callNotFound();
      if (!READS.has(request.method) && !fromOwnOrigin(request, ownOrigin)) {
        const body: ErrorBody = { error: { code: 'forbidden', message: 'This request did not come from the queue board; reload the page and try again.' } };
        return reply.status(403).send(body);
      }
    });
    await scope.register(board.registerPlugin(), { prefix: QUEUE_BOARD_PATH });
  });
}

/**
 * True when a browser says the request comes from a page of the service: its Origin is PUBLIC_BASE_URL's
 * origin or, when it sends no Origin, its Referer is of that origin. Browsers send Origin with every
 * write their pages make, the board's fetches included; a request with neither is refused, since the
 * board's own page always sends one.
 */
function fromOwnOrigin(request: FastifyRequest, ownOrigin: string): boolean {
  const { origin, referer } = request.headers;
  if (origin !== undefined) return origin === ownOrigin;
  if (referer === undefined || !URL.canParse(referer)) return false;
  return new URL(referer).origin === ownOrigin;
}
