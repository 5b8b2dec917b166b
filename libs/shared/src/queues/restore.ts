import type { JobsOptions, JobState, Queue } from 'bullmq';

export interface JobToRestore {
  name: string;
  data: object;
  opts: JobsOptions & { jobId: string };
}

/** A job in one of these states will still run; 'unknown' is a job Redis no longer has. */
const LIVE: readonly (JobState | 'unknown')[] = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'];

/**
 * Makes sure each job will run, for work that PostgreSQL says is not done: a job Redis lost (it
 * restarted without its data, or evicted keys) is added again under the same id, and one that ended
 * although its work is still undone (a stalled job BullMQ gave up) is replaced. Returns how many were.
 */
export async function restoreJobs(queue: Queue, jobs: JobToRestore[]): Promise<number> {
  const states = await Promise.all(jobs.map((job) => queue.getJobState(job.opts.jobId)));
  const lost = jobs.filter((_, index) => !LIVE.includes(states[index]));
  const ended = jobs.filter((_, index) => states[index] === 'completed' || states[index] === 'failed');
  await Promise.all(ended.map((job) => queue.remove(job.opts.jobId)));
  if (lost.length) await queue.addBulk(lost);
  return lost.length;
}
