import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** What a sign-up wrote: a new entry, a pending entry's new confirmation mail, or nothing (dropped: not even looked up). */
export type SignupWrite = 'created' | 'mailed' | 'unchanged' | 'dropped';

/** How many recent sign-ups of each kind the medians are taken from. */
const RECENT = 64;
/** A sign-up waits at most this long, so that a few slow new sign-ups cannot hold the others. */
export const MAX_PADDING_MS = 50;

/** The time a sign-up is measured and padded by; a test gives a clock of its own. */
export interface PaceClock {
  now(): number;
  sleep(ms: number): Promise<unknown>;
  /** One turn of the event loop: what a wait shorter than a timer's millisecond is made of. */
  turn(): Promise<unknown>;
}

const REAL_CLOCK: PaceClock = { now: () => performance.now(), sleep: (ms) => sleep(ms), turn: () => new Promise((resolve) => setImmediate(resolve)) };

/**
 * How much longer a sign-up of a new address takes in this process than one that wrote less (an
 * address on the list already), so that the latter waits that long before it answers. Its own time
 * plus the difference of the medians, rather than a wait until a new sign-up's time: a known sign-up
 * is only a little faster, so waiting until a drawn or typical time would make the slower of the two
 * its time, and the known ones answer later than the new ones. The wait is the difference itself, not
 * a whole millisecond now and then: a timer for the whole milliseconds (asked for less by its recent
 * lateness), then turns of the event loop until the difference has passed, so that a known sign-up's
 * answer time matches a new one's in its median as well as its mean.
 */
export class SignupPace {
  private readonly recent = new Map<SignupWrite | 'overshoot', number[]>();

  constructor(private readonly clock: PaceClock = REAL_CLOCK) {}

  /** At a sign-up's start: what to await once it knows what it wrote, before it answers. */
  start(): (write: SignupWrite) => Promise<void> {
    const started = this.clock.now();
    return async (write) => {
      this.note(write, this.clock.now() - started);
      const padding = this.padding(write);
      if (padding === 0) return;
      const until = this.clock.now() + padding;
      const timer = this.timerMs(padding);
      if (timer > 0) {
        const waited = this.clock.now();
        await this.clock.sleep(timer);
        this.noteWait(timer, this.clock.now() - waited);
      }
      while (this.clock.now() < until) await this.clock.turn();
    };
  }

  /** Notes how long a sign-up took before it waited. */
  note(write: SignupWrite, ms: number): void {
    this.keep(write, ms);
  }

  /** Notes how long a wait of `asked` ms took: a timer fires late, later still on a busy machine. */
  noteWait(asked: number, took: number): void {
    this.keep('overshoot', Math.max(took - asked, 0));
  }

  /** How long a sign-up that wrote `write` waits: what the median new one takes more, at most MAX_PADDING_MS. */
  padding(write: SignupWrite): number {
    const created = this.recent.get('created');
    const own = this.recent.get(write);
    if (write === 'created' || !created || !own) return 0;
    return Math.min(Math.max(median(created) - median(own), 0), MAX_PADDING_MS);
  }

  /** The whole milliseconds of a wait that a timer may take, its recent lateness left for it to make up. */
  timerMs(padding: number): number {
    return Math.max(Math.floor(padding - median(this.recent.get('overshoot') ?? [0])), 0);
  }

  private keep(kind: SignupWrite | 'overshoot', ms: number): void {
    const recent = this.recent.get(kind) ?? [];
    if (recent.push(ms) > RECENT) recent.shift();
    this.recent.set(kind, recent);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.floor((sorted.length - 1) / 2)] + sorted[Math.ceil((sorted.length - 1) / 2)]) / 2;
}
