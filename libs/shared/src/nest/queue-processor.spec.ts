import { Job, UnrecoverableError } from 'bullmq';
import { QueueName } from '../queues/contract';
import { JobHandlers, jobRunner } from './queue-processor';

const job = (name: string, data: object = {}) => ({ name, data }) as Job;

describe(jobRunner.name, () => {
  it('fails at once, naming the queue and the job, when a job name of the queue has no handler', () => {
    // @ts-expect-error a missing handler fails the typecheck too
    expect(() => jobRunner(QueueName.Mail, {})).toThrow('No handler for the mail jobs confirmation');
    const holey = { confirmation: undefined } as unknown as JobHandlers<QueueName.Mail>;
    expect(() => jobRunner(QueueName.Mail, holey)).toThrow(/No handler for the mail jobs confirmation/);
  });

  it('runs each job by the handler of its name', async () => {
    const seen: string[] = [];
    const run = jobRunner(QueueName.Mail, {
      confirmation: async (confirmation) => {
        seen.push(confirmation.data.entryId);
      },
    });
    await run(job('confirmation', { entryId: 'ent_1' }));
    expect(seen).toEqual(['ent_1']);
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
