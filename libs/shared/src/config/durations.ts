const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses durations written like 500ms, 5s, 1m, 2h, 30d into milliseconds; null when unreadable. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * UNITS[match[2]];
}

export type DurationUnit = 'day' | 'hour' | 'minute' | 'second';

const UNITS_IN_WORDS: [size: number, unit: DurationUnit][] = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1_000, 'second'],
];

/** A duration as people read it: the largest whole unit, and how many of it (seconds rounded). */
export function durationParts(ms: number): { unit: DurationUnit; count: number } {
  const [size, unit] = UNITS_IN_WORDS.find(([size]) => ms % size === 0 && ms >= size) ?? [1_000, 'second' as const];
  return { unit, count: Math.round(ms / size) };
}

export interface RateLimit {
  points: number;
  durationMs: number;
}

/** Parses rate limits written like 100/1s (requests per window). */
export function parseRateLimit(text: string): RateLimit | null {
  const [count, window] = text.trim().split('/');
  if (!/^\d+$/.test(count ?? '') || window === undefined) return null;
  const durationMs = parseDuration(window);
  const points = Number(count);
  if (durationMs === null || durationMs < 1000 || points < 1) return null;
  return { points, durationMs };
}
