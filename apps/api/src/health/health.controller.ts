import { Controller, Get, Res } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RedisClient, withTimeout } from '@app/shared';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';

const CHECK_TIMEOUT_MS = 2000;

@Controller()
export class HealthController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisClient,
  ) {}

  /** The process is up. */
  @Get('healthz')
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** PostgreSQL and Redis are reachable: 200 when both answer, else 503 naming the one that did not. */
  @Get('readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
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
