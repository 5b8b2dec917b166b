import { isStorableText, normalizeEmail } from '@app/shared';
import type { Columns } from './formats/columns';

/** How an imported entry starts: waiting in line, or still to confirm its address. */
export type ImportState = 'confirmed' | 'pending';

/** A row that can be imported, as the file gave it. */
export interface ImportRow {
  line: number;
  email: string;
  /** When the address joined the old list; null when the file does not say. */
  createdAt: Date | null;
  referralCode: string | null;
  referredBy: string | null;
  referralCount: number | null;
  state: ImportState;
  /** The row's id in the old tool, which referred-by may name. */
  id: string | null;
}

export const PROBLEM_REASONS = ['invalid_email', 'invalid_time', 'invalid_referral_count', 'invalid_state', 'unsubscribed', 'duplicate'] as const;
export type ProblemReason = (typeof PROBLEM_REASONS)[number];

/** A row that is not imported, and why. */
export interface RowProblem {
  line: number;
  reason: ProblemReason;
  message: string;
}

/** A referral code kept as it was: what a ?ref= link carries safely. */
const KEPT_CODE = /^[A-Za-z0-9_-]{4,64}$/;
/** More referrals than this in one row is a broken cell, not a person. */
const MOST_REFERRALS = 1_000_000;

/** The tools' words for a state, lowercased; any other word is a bad row. */
const STATE_WORDS: Record<string, ImportState | 'unsubscribed'> = {
  confirmed: 'confirmed', verified: 'confirmed', true: 'confirmed', yes: 'confirmed', '1': 'confirmed', applied: 'confirmed', waiting: 'confirmed', active: 'confirmed',
  pending: 'pending', unconfirmed: 'pending', unverified: 'pending', false: 'pending', no: 'pending', '0': 'pending',
  unsubscribed: 'unsubscribed', 'opted out': 'unsubscribed',
};

/**
 * One data row read with the file's columns: an ImportRow, or the problem that keeps it out. An empty
 * cell is a value the file does not give (the import's state, the import's time); a referral code that
 * a link could not carry is dropped (the entry gets a new one), not a problem.
 */
export function readRow(line: number, fields: string[], columns: Columns, defaultState: ImportState, now: Date): ImportRow | RowProblem {
  const cell = (field: keyof Columns['at']) => {
    const index = columns.at[field];
    const value = index === undefined ? '' : (fields[index] ?? '').trim();
    return value === '' ? null : value;
  };
  const email = normalizeEmail(cell('email') ?? '');
  if (!email) return { line, reason: 'invalid_email', message: 'The address is missing or not a valid email address.' };
  const time = cell('createdAt');
  const createdAt = time === null ? null : timeOf(time);
  if (createdAt === undefined || (createdAt && createdAt > now)) return { line, reason: 'invalid_time', message: `The sign-up time ${JSON.stringify(time)} is not a time before now.` };
  const count = cell('referralCount');
  const referralCount = count === null ? null : Number(count);
  if (referralCount !== null && !(/^\d+$/.test(count!) && referralCount <= MOST_REFERRALS)) {
    return { line, reason: 'invalid_referral_count', message: `The referral count ${JSON.stringify(count)} is not a whole number from 0 to ${MOST_REFERRALS}.` };
  }
  const word = cell('state');
  const state = word === null ? defaultState : STATE_WORDS[word.toLowerCase()];
  if (state === undefined) return { line, reason: 'invalid_state', message: `The state ${JSON.stringify(word)} is not one we import (${Object.keys(STATE_WORDS).join(', ')}).` };
  if (state === 'unsubscribed') return { line, reason: 'unsubscribed', message: 'The file says this address unsubscribed.' };
  const code = cell('referralCode');
  // An old id or referrer PostgreSQL cannot store (libs/shared text.ts) names nothing it could match: not given.
  const name = (field: 'referredBy' | 'id') => {
    const value = cell(field);
    return value !== null && isStorableText(value) ? value : null;
  };
  return {
    line,
    email,
    createdAt,
    referralCode: code !== null && KEPT_CODE.test(code) ? code : null,
    referredBy: name('referredBy'),
    referralCount,
    state,
    id: name('id'),
  };
}

/**
 * A time as the tools write it: ISO 8601, 'YYYY-MM-DD HH:MM[:SS]' (UTC when no zone is given), or Unix
 * seconds or milliseconds. Undefined when it is none of these.
 */
export function timeOf(text: string): Date | undefined {
  if (/^\d{10}$/.test(text)) return new Date(Number(text) * 1000);
  if (/^\d{13}$/.test(text)) return new Date(Number(text));
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text.replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T');
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(iso)) return undefined;
  const date = new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(iso) ? iso : `${iso}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export function isProblem(row: ImportRow | RowProblem): row is RowProblem {
  return 'reason' in row;
}
