/**
 * The queue contract between the apps. Queue and job names are frozen: renaming one strands the
 * jobs already waiting in Redis under the old name. Payloads carry ids, never secrets or codes.
 */
export enum QueueName {
  Mail = 'mail',
  Webhooks = 'webhooks',
}

export interface JobsOf {
  [QueueName.Mail]: {
    /** The confirmation mail of a pending entry; the mailer makes its tokens. */
    confirmation: { entryId: string };
  };
  [QueueName.Webhooks]: {
    /** Turns one committed event into deliveries for the endpoints that want it. */
    'fan-out': { eventId: string };
  };
}

export type JobName<Q extends QueueName> = keyof JobsOf[Q] & string;
export type JobData<Q extends QueueName, N extends JobName<Q>> = JobsOf[Q][N];

/** Every job name of a queue, so that a worker can assert at start-up that it handles them all. */
export const JOB_NAMES: { [Q in QueueName]: readonly JobName<Q>[] } = {
  [QueueName.Mail]: ['confirmation'],
  [QueueName.Webhooks]: ['fan-out'],
};
