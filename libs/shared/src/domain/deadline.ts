/**
 * Runs `work` with a signal that aborts with a TimeoutError after `ms`. A timer of its own rather than
 * AbortSignal.timeout, whose signals cost the webhooks process some 20–30 µs of CPU per delivery (the
 * deliveries benchmark), most of it in garbage collection; the mailer's per mail alike. (The webhooks'
 * attempts have since gone to one timer for all of them: apps/webhooks/src/posts.ts.)
 */
export async function withDeadline<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`No answer within ${ms} ms`, 'TimeoutError')), ms);
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
