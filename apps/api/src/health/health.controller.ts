import { Controller, Get, Inject, Res } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RedisClient, withTimeout } from '@app/shared';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';
import { Draining } from './draining';

const CHECK_TIMEOUT_MS = 2000;

@Controller()
export class HealthController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(RedisClient) private readonly redis: RedisClient,
    private readonly draining: Draining,
  ) {}

  /** The process is up. */
  @Get('healthz')
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** PostgreSQL and Redis are reachable: 200 when both answer, else 503 naming the one that did not; 503 while draining. */
  @Get('readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    if (this.draining.active) {
      await reply.status(503).send({ status: 'draining' });
      return;
    }
    const check = (probe: Promise<unknown>, what: string) =>
      withTimeout(probe, CHECK_TIMEOUT_MS, what).then(
        () => 'ok' as const,
        () => 'unavailable' as const,
      );
    const [database, redis] = await Promise.all([check(this.db.query('SELECT 1'), 'database'), check(this.redis.ping(), 'redis')]);
    const ok = database === 'ok' && redis === 'ok';
    await reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks: { database, redis } });
  }
}
