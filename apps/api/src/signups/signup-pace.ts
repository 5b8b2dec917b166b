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
}

const REAL_CLOCK: PaceClock = { now: () => performance.now(), sleep: (ms) => sleep(ms) };

/**
 * How much longer a sign-up of a new address takes in this process than one that wrote less (an
 * address on the list already), so that the latter waits that long before it answers. Its own time
 * plus the difference of the medians, rather than a wait until a new sign-up's time: a known sign-up
 * is only a little faster, so waiting until a drawn or typical time would make the slower of the two
 * its time, and the known ones answer later than the new ones.
 */
export class SignupPace {
  private readonly recent = new Map<SignupWrite | 'overshoot', number[]>();

  constructor(
    private readonly random: () => number = Math.random,
    private readonly clock: PaceClock = REAL_CLOCK,
  ) {}

  /** At a sign-up's start: what to await once it knows what it wrote, before it answers. */
  start(): (write: SignupWrite) => Promise<void> {
    const started = this.clock.now();
    return async (write) => {
      this.note(write, this.clock.now() - started);
      const padding = this.padding(write);
      if (padding === 0) return;
      const waited = this.clock.now();
      await this.clock.sleep(padding);
      this.noteWait(padding, this.clock.now() - waited);
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

  /**
   * Whole milliseconds, as timers take no fractions, and none or at least one, as a timer of 0 ms still
   * takes one: chosen at random between the two nearest waits, so that what they take, with the timer's
   * lateness, adds up to the difference on average.
   */
  padding(write: SignupWrite): number {
    const created = this.recent.get('created');
    const own = this.recent.get(write);
    if (write === 'created' || !created || !own) return 0;
    const difference = Math.min(Math.max(median(created) - median(own), 0), MAX_PADDING_MS);
    const late = median(this.recent.get('overshoot') ?? [0]);
    if (difference < 1 + late) return this.random() < difference / (1 + late) ? 1 : 0;
    const asked = difference - late;
    return Math.floor(asked) + (this.random() < asked % 1 ? 1 : 0);
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
