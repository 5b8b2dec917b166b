import { ApiError } from '../common/api-error';

/**
 * The dashboard's common schedules, chosen in a plain form and turned into the cron expression the
 * API stores; cron itself stays the expert's choice. Only patterns this module writes read back as a
 * choice, so that what a page says in words is exactly what fires.
 */
const SCHEDULE_KINDS = ['weekdays', 'weekly', 'daily', 'hours', 'cron'] as const;
type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

export interface ScheduleChoice {
  kind: string;
  /** A cron weekday, 0 (Sunday) to 6. */
  day: string;
  /** HH:MM, as an <input type=time> posts it. */
  at: string;
  hours: string;
  pattern: string;
}

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
/** Divisors of 24 only: a step of 5 hours, say, comes short across midnight (0, 5, 10, 15, 20, 0). */
export const EVERY_HOURS = [1, 2, 3, 4, 6, 8, 12];

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;
const refused = (param: keyof ScheduleChoice, message: string) => new ApiError('invalid_request', message, { param });

/** The cron expression of a choice; invalid_request naming the field that is not one. */
export function patternOfChoice(choice: ScheduleChoice): string {
  const kind = choice.kind as ScheduleKind;
  if (!SCHEDULE_KINDS.includes(kind)) throw refused('kind', 'Choose how often the release runs.');
  if (kind === 'cron') return choice.pattern.trim();
  if (kind === 'hours') {
    const hours = Number(choice.hours);
    if (!EVERY_HOURS.includes(hours) || !/^\d+$/.test(choice.hours)) throw refused('hours', `Choose every ${EVERY_HOURS.join(', ')} hours.`);
    return hours === 1 ? '0 * * * *' : `0 */${hours} * * *`;
  }
  const time = TIME.exec(choice.at.trim());
  if (!time) throw refused('at', 'Give the time as hours and minutes, such as 09:00.');
  const at = `${Number(time[2])} ${Number(time[1])}`;
  if (kind === 'daily') return `${at} * * *`;
  if (kind === 'weekdays') return `${at} * * 1-5`;
  if (!/^[0-6]$/.test(choice.day)) throw refused('day', 'Choose a day of the week.');
  return `${at} * * ${choice.day}`;
}

const pad = (value: string) => value.padStart(2, '0');

/** The choice a pattern was made from; a pattern the choices do not write is cron. */
export function choiceOfPattern(pattern: string): ScheduleChoice {
  const plain: ScheduleChoice = { kind: 'cron', day: '1', at: '09:00', hours: '6', pattern };
  const hourly = /^0 (\*|\*\/(\d+)) \* \* \*$/.exec(pattern);
  if (hourly) {
    const hours = hourly[2] === undefined ? 1 : Number(hourly[2]);
    return EVERY_HOURS.includes(hours) && String(hours) === (hourly[2] ?? '1') ? { ...plain, kind: 'hours', hours: String(hours) } : plain;
  }
  const timed = /^([1-5]?\d) (1?\d|2[0-3]) \* \* (\*|1-5|[0-6])$/.exec(pattern);
  if (!timed) return plain;
  const [, minute, hour, days] = timed;
  const at = `${pad(hour)}:${pad(minute)}`;
  if (days === '*') return { ...plain, kind: 'daily', at };
  if (days === '1-5') return { ...plain, kind: 'weekdays', at };
  return { ...plain, kind: 'weekly', day: days, at };
}

/** "every Monday at 09:00", "every 6 hours"; null for a pattern of the expert's. */
export function scheduleInWords(pattern: string): string | null {
  const { kind, day, at, hours } = choiceOfPattern(pattern);
  switch (kind) {
    case 'weekdays':
      return `every weekday at ${at}`;
    case 'weekly':
      return `every ${WEEKDAYS[Number(day)]} at ${at}`;
    case 'daily':
      return `every day at ${at}`;
    case 'hours':
      return hours === '1' ? 'every hour' : `every ${hours} hours`;
    default:
      return null;
  }
}

/** A run as its zone shows it: "Monday 30 November, 09:00 (Europe/Berlin)". */
export function runInWords(instant: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'long', day: 'numeric', month: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.weekday} ${parts.day} ${parts.month}, ${parts.hour}:${parts.minute} (${timeZone})`;
}
