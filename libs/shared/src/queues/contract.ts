/**
 * The queue contract between the apps. Queue and job names are frozen: renaming one strands the
 * jobs already waiting in Redis under the old name. Payloads carry ids, never secrets or codes.
 */
export enum QueueName {
  Mail = 'mail',
  /** Invitations the API waits for: one attempt each, never re-run after a stall. */
  Invitations = 'invitations',
  Webhooks = 'webhooks',
  /** One job per delivery, retried on the WEBHOOK_RETRY_DELAYS schedule. */
  Deliveries = 'deliveries',
}

export interface JobsOf {
  [QueueName.Mail]: {
    /** The confirmation mail of a pending entry; the mailer makes its tokens. */
    confirmation: { entryId: string };
  };
  [QueueName.Invitations]: {
    /**
     * An invitation (or a new one, for reinvite) that the API waits for. The mailer makes the code,
     * hands the mail over only before `deadline` (epoch ms), and records the handover itself, so the
     * outcome stands even if the API is gone by then.
     */
    invitation: { entryId: string; requestId: string; deadline: number; again: boolean };
  };
  [QueueName.Webhooks]: {
    /**
     * Turns one committed event into deliveries for the endpoints that want it, or, with
     * endpointId (a test event), into one delivery to that endpoint whatever types it chose.
     */
    'fan-out': { eventId: string; endpointId?: string };
  };
  [QueueName.Deliveries]: {
    deliver: { deliveryId: string };
  };
}

export type JobName<Q extends QueueName> = keyof JobsOf[Q] & string;
export type JobData<Q extends QueueName, N extends JobName<Q>> = JobsOf[Q][N];

/** Every job name of a queue, so that a worker can assert at start-up that it handles them all. */
export const JOB_NAMES: { [Q in QueueName]: readonly JobName<Q>[] } = {
  [QueueName.Mail]: ['confirmation'],
  [QueueName.Invitations]: ['invitation'],
  [QueueName.Webhooks]: ['fan-out'],
  [QueueName.Deliveries]: ['deliver'],
};
