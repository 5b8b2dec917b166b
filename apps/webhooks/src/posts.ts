import { Dispatcher } from 'undici';

/** How much of an answer's body is read: it does not matter, and a longer one is cut off. */
const BODY_LIMIT = 4096;

/** Where a POST goes, as undici dispatches it. */
export interface Target {
  origin: string;
  path: string;
}

/** How a POST ended: the status code once an answer began (whatever its body did after), else what went wrong. */
export type Answer = { statusCode: number; error: null } | { statusCode: null; error: Error };

/**
 * One POST as undici's handler: its status code once the answer begins, its body read up to the limit
 * and let go. Ended at its deadline by Posts' one timer through the abort undici hands over when the
 * request is written (before that, a connection still being made is bounded by the agent's connect
 * timeout, and the POST is aborted as soon as it is written).
 */
class Post implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private statusCode: number | null = null;
  private received = 0;
  private expired: Error | undefined;

  constructor(
    readonly deadline: number,
    private readonly settle: (post: Post, answer: Answer) => void,
  ) {}

  /** The deadline passed: the POST ends now, or once it is written. */
  expire(reason: Error): void {
    this.expired = reason;
    this.controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.expired) controller.abort(this.expired);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.statusCode = statusCode;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.received += chunk.length;
    if (this.received > BODY_LIMIT) controller.abort(new Error('The answer is longer than it needs to be'));
  }

  onResponseEnd(): void {
    // undici frees the connection one turn of the event loop after this (setImmediate, queued once this
    // call returns): the next POST, started at once, would open a connection of its own.
    queueMicrotask(() => setImmediate(() => this.end(null)));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.end(error);
  }

  private end(error: Error | null): void {
    if (this.statusCode !== null) this.settle(this, { statusCode: this.statusCode, error: null });
    else this.settle(this, { statusCode: null, error: this.expired ?? error ?? new Error('No answer') });
  }
}

/**
 * The attempts' POSTs, each ended WEBHOOK_TIMEOUT after it began by one timer for all of them: a timer
 * and an AbortController per attempt, with the listeners undici hangs on the signal, were garbage of
 * every delivery (and undici's own headersTimeout and bodyTimeout start after the connection, and
 * restart with every chunk of the body). The timer runs while POSTs are under way, every twentieth of
 * the timeout (10 to 100 ms), so a POST ends at most that late. undici's handler interface rather than
 * request(): the status code is all an attempt reads, without a body stream to drain.
 */
export class Posts {
  /** In the order they began, which with one timeout is the order of their deadlines. */
  private readonly open = new Set<Post>();
  private timer: NodeJS.Timeout | undefined;
  private readonly tickMs: number;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly timeoutMs: number,
  ) {
    this.tickMs = Math.min(100, Math.max(10, Math.round(timeoutMs / 20)));
  }

  send(target: Target, headers: Record<string, string>, body: string): Promise<Answer> {
    return new Promise((resolve) => {
      const post = new Post(Date.now() + this.timeoutMs, (ended, answer) => {
        this.open.delete(ended);
        resolve(answer);
      });
      this.open.add(post);
      this.timer ??= setInterval(() => this.sweep(), this.tickMs).unref();
      try {
        this.dispatcher.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers, body }, post);
      } catch (error) {
        this.open.delete(post);
        resolve({ statusCode: null, error: error as Error });
      }
    });
  }

  /** Stops the timer (at shutdown, after the attempts ended). */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private sweep(): void {
    if (this.open.size === 0) return this.close();
    const now = Date.now();
    for (const post of this.open) {
      if (post.deadline > now) break;
      // Out of the set at once: one that is not yet written ends when it is.
      this.open.delete(post);
      post.expire(Object.assign(new Error(`No answer within ${this.timeoutMs} ms`), { name: 'TimeoutError' }));
    }
  }
}
