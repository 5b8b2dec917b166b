/**
 * The queue contract between the apps. Queue and job names are frozen: renaming one strands the
 * jobs already waiting in Redis under the old name. Payloads carry ids, never secrets or codes.
 */
export enum QueueName {
  /**
   * Confirmation mails, which live in the outbox alone: the mailer claims their rows from PostgreSQL
   * in batches, with no BullMQ job (a confirmation job an older version left in Redis is not run; its
   * row is).
   */
  Mail = 'mail',
  /** Invitations the API waits for: one attempt each, never re-run after a stall. */
  Invitations = 'invitations',
  /**
   * Fan-outs, which live in the outbox alone: the webhooks app takes their rows from PostgreSQL in
   * batches, with no BullMQ job (a fan-out job an older version left in Redis is not run; its row is).
   */
  Webhooks = 'webhooks',
  /** One job per delivery, retried on the WEBHOOK_RETRY_DELAYS schedule. */
  Deliveries = 'deliveries',
  /**
   * Claim-window reminder mails, which live in the outbox alone: the maintenance round queues them,
   * the mailer takes their rows from PostgreSQL, with no BullMQ job.
   */
  Reminders = 'reminders',
  /**
   * Release runs: one BullMQ job scheduler per active release (its id is the release's id) makes a job
   * per tick, which the api runs (a release is invite-next, which waits for the mailer); a reconcile
   * adds a job for a tick Redis lost. PostgreSQL's release_runs lets one run through per tick.
   */
  Releases = 'releases',
  /**
   * Mails with a link to a person's own data, which live in the outbox alone: the my-data form queues
   * them, the mailer takes their rows from PostgreSQL and signs each link, with no BullMQ job.
   */
  PersonalData = 'personal-data',
}

export interface JobsOf {
  [QueueName.Mail]: {
    /**
     * The confirmation mail of a pending entry; the mailer makes its tokens. httpRequestId: the
     * X-Request-Id of the sign-up, which the mailer's lines about the mail carry as requestId.
     */
    confirmation: { entryId: string; httpRequestId?: string };
  };
  [QueueName.Invitations]: {
    /**
     * Invitations (or new ones, for reinvite) of entries that one request holds, which the API waits
     * for: one for invite and reinvite, a chunk of its entries for invite-next. The mailer makes each
     * code, hands the mails over only before `deadline` (epoch ms), and records the handovers itself,
     * so the outcome stands even if the API is gone by then; each entry's mail succeeds or fails on
     * its own. (It replaced the job `invitation` of one entry: such a job left in Redis fails with no
     * handler, which its request reads as a mail not sent.) requestId names the invitation request's
     * hold; httpRequestId is the X-Request-Id of the HTTP request, which the mailer's lines carry.
     */
    invitations: { entryIds: string[]; requestId: string; deadline: number; again: boolean; httpRequestId?: string };
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
  [QueueName.Reminders]: {
    /** The one reminder of an invited entry's code, which the code's row carries sealed (the job carries no code). */
    reminder: { entryId: string };
  };
  [QueueName.PersonalData]: {
    /** The my-data link of an entry (the row carries no link: the mailer signs it). httpRequestId: the asking request's X-Request-Id. */
    'my-data': { entryId: string; httpRequestId?: string };
  };
  [QueueName.Releases]: {
    /** A tick of a release: the scheduler's jobs carry it as opts.prevMillis, a reconcile's as tick (epoch ms). */
    release: { releaseId: string; tick?: number };
  };
}

/** The queues whose work travels as BullMQ jobs (the others' work is only in the outbox), as Bull Board shows them. */
export const JOB_QUEUES = [QueueName.Invitations, QueueName.Deliveries, QueueName.Releases] as const;

export type JobName<Q extends QueueName> = keyof JobsOf[Q] & string;
export type JobData<Q extends QueueName, N extends JobName<Q>> = JobsOf[Q][N];

/** Every job name of a queue, so that a worker can assert at start-up that it handles them all. */
export const JOB_NAMES: { [Q in QueueName]: readonly JobName<Q>[] } = {
  [QueueName.Mail]: ['confirmation'],
  [QueueName.Invitations]: ['invitations'],
  [QueueName.Webhooks]: ['fan-out'],
  [QueueName.Deliveries]: ['deliver'],
  [QueueName.Reminders]: ['reminder'],
  [QueueName.Releases]: ['release'],
  [QueueName.PersonalData]: ['my-data'],
};
