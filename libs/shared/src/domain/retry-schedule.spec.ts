import { RetryLater, RetrySchedule } from './retry-schedule';

describe(RetrySchedule.name, () => {
  const schedule = new RetrySchedule([60_000, 300_000, 1_800_000, 7_200_000, 28_800_000]);

  it('gives six attempts with 1, 5, 30, 120 and 480 minutes between them, then none', () => {
    expect(schedule.attempts).toBe(6);
    expect([1, 2, 3, 4, 5, 6].map((attempt) => schedule.delayAfter(attempt))).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 28_800_000, null]);
  });

  it("waits in BullMQ exactly the delay the worker chose, and retries nothing else", () => {
    expect(schedule.backoff(1, 'custom', new RetryLater('Answered 500', 300_000))).toBe(300_000);
    expect(schedule.backoff(1, 'custom', new Error('unexpected'))).toBe(-1);
  });

  it('makes one job per delivery, under the delivery id', () => {
    expect(schedule.job('dlv_1')).toMatchObject({ name: 'deliver', data: { deliveryId: 'dlv_1' }, opts: { jobId: 'dlv_1', attempts: 6, delay: 0 } });
    expect(schedule.job('dlv_1', 60_000).opts.delay).toBe(60_000);
  });
});
