import Redis from 'ioredis';
import { ThrowawayRedis } from '../../../../test/support/throwaway-redis';
import { waitFor } from '../../../../test/support/wait';
import { REDIS_CLOSE_GRACE_MS, redisOptions } from './redis';

describe('a Redis connection closed after its server went away', () => {
  let redis: ThrowawayRedis;

  beforeEach(async () => {
    redis = await ThrowawayRedis.start();
  });
  afterEach(async () => {
    jest.useRealTimers();
    await redis.down();
  });

  // ioredis waits for a closed socket's 'close', which never comes again, under a timer that holds the
  // process open (2 s by its default): a process shutting down while Redis is away, or a jest worker
  // whose last test file stopped apps after killing their Redis, lingered that long.
  it('holds the process open no longer than the grace', async () => {
    const client = new Redis({ ...redisOptions(redis.url), retryStrategy: () => null });
    client.on('error', () => undefined);
    await client.ping();
    await redis.down();
    await waitFor(() => client.status === 'end', 'the connection to notice');

    jest.useFakeTimers();
    client.disconnect();
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(REDIS_CLOSE_GRACE_MS);
    expect(jest.getTimerCount()).toBe(0);
  });
});
