import { Job, UnrecoverableError } from 'bullmq';
import { QueueName } from '../queues/contract';
import { JobHandlers, jobRunner } from './queue-processor';

const job = (name: string, data: object = {}) => ({ name, data }) as Job;

describe(jobRunner.name, () => {
  it('fails at once, naming the queue and the job, when a job name of the queue has no handler', () => {
    // @ts-expect-error a missing handler fails the typecheck too
    expect(() => jobRunner(QueueName.Deliveries, {})).toThrow('No handler for the deliveries jobs deliver');
    const holey = { deliver: undefined } as unknown as JobHandlers<QueueName.Deliveries>;
    expect(() => jobRunner(QueueName.Deliveries, holey)).toThrow(/No handler for the deliveries jobs deliver/);
  });

  it('runs each job by the handler of its name', async () => {
    const seen: string[] = [];
    const run = jobRunner(QueueName.Deliveries, {
      deliver: async (delivery) => {
        seen.push(delivery.data.deliveryId);
      },
    });
    await run(job('deliver', { deliveryId: 'dlv_1' }));
    expect(seen).toEqual(['dlv_1']);
  });

  it('fails a job of an unknown name for good, and a failing handler with its own error', async () => {
    const run = jobRunner(QueueName.Deliveries, {
      deliver: async () => {
        throw new Error('connection refused');
      },
    });
    await expect(run(job('redeliver'))).rejects.toThrow(new UnrecoverableError('No handler for the deliveries job redeliver'));
    await expect(run(job('redeliver'))).rejects.toBeInstanceOf(UnrecoverableError);
    await expect(run(job('deliver'))).rejects.toThrow('connection refused');
  });
});
