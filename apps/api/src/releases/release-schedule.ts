import { CronExpressionParser } from 'cron-parser';

/**
 * When a release runs: a cron expression (five fields, or six with seconds first) read in an IANA
 * time zone by cron-parser, the parser BullMQ's job schedulers use, so that what we show and validate
 * is what fires. Across daylight-saving changes cron-parser runs a tick of the missing hour once, an
 * hour later on the clock (02:30 at 03:30), and a daily tick of the doubled hour once, in the first of
 * the two; an hourly pattern meets the doubled hour twice, which tickKey gives one key.
 */
export function scheduleProblem(pattern: string, timeZone: string): string | null {
  if (!isTimeZone(timeZone)) return 'The time zone must be an IANA time zone such as Europe/Berlin.';
  const fields = pattern.trim().split(/\s+/).length;
  if (!pattern.trim().startsWith('@') && fields !== 5 && fields !== 6) {
    return 'The cron expression must have five fields (minute hour day month weekday), or six with seconds first.';
  }
  try {
    CronExpressionParser.parse(pattern, { tz: timeZone, strict: false }).next();
    return null;
  } catch (error) {
    return `The cron expression is not valid: ${(error as Error).message}.`;
  }
}

/** The next `count` ticks after `from`. */
export function nextTicks(pattern: string, timeZone: string, from: Date, count: number): Date[] {
  const ticks = CronExpressionParser.parse(pattern, { tz: timeZone, currentDate: from });
  return Array.from({ length: count }, () => ticks.next().toDate());
}

/** The last tick at or before `at`, or null when there is none. */
export function latestTick(pattern: string, timeZone: string, at: Date): Date | null {
  try {
    return CronExpressionParser.parse(pattern, { tz: timeZone, currentDate: new Date(at.getTime() + 1) }).prev().toDate();
  } catch {
    return null;
  }
}

/** The wall-clock time of a tick in the release's zone: the run guard's key, the same for both 02:00 of an autumn night. */
export function tickKey(tick: Date, timeZone: string): string {
  const { date, time } = wallClock(tick, timeZone);
  return `${date} ${time}.${String(tick.getUTCMilliseconds()).padStart(3, '0')}`;
}

/** A time as the release's zone shows it, with its offset: 2026-03-29T03:00:00+02:00. */
export function zonedTime(instant: Date, timeZone: string): string {
  const { date, time, offsetMinutes } = wallClock(instant, timeZone);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offsetMinutes) % 60).padStart(2, '0');
  return `${date}T${time}${sign}${hours}:${minutes}`;
}

function wallClock(instant: Date, timeZone: string): { date: string; time: string; offsetMinutes: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  const time = `${parts.hour}:${parts.minute}:${parts.second}`;
  const asUtc = Date.parse(`${date}T${time}Z`);
  const offsetMinutes = Math.round((asUtc - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
  return { date, time, offsetMinutes };
}

function isTimeZone(timeZone: string): boolean {
  if (!/^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(timeZone) || timeZone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}
