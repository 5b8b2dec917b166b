import { MAX_MILESTONES, Milestone, milestoneWords } from '@app/shared';
import { z } from 'zod';

/** The milestones a referrer with this many credited referrals has reached; which of them are new, the entry_milestones key says. */
export const milestonesReached = (milestones: Milestone[], referrals: number): Milestone[] => milestones.filter((milestone) => milestone.referrals <= referrals);

/** A milestone's fields as typed, in the settings' builder or as the parts of a line. */
export interface MilestoneFields {
  referrals: string;
  name: string;
  places: string;
  message: string;
}

/**
 * Milestones an entry reached (as they were when reached) in the entry's language: the product's words
 * of that language while the milestone keeps its number and name, else as reached.
 */
export const reachedIn = <M extends Milestone>(reached: M[], current: Milestone[], locale: string): M[] =>
  reached.map((milestone) => {
    const now = current.find((each) => each.referrals === milestone.referrals && each.name === milestone.name);
    return now ? { ...milestone, ...milestoneWords(now, locale) } : milestone;
  });

/** One milestone from its typed fields, or the field refused and why, in a clause. */
export function milestoneFrom({ referrals, name, places, message }: MilestoneFields): Milestone | [keyof MilestoneFields, string] {
  if (!/^\d{1,6}$/.test(referrals) || Number(referrals) < 1) return ['referrals', 'needs the number of referrals, 1 to 999999'];
  if (name.length < 1 || name.length > 60) return ['name', 'needs a name of 1 to 60 characters'];
  if (places !== '' && !(/^\d{1,7}$/.test(places) && Number(places) <= 1_000_000)) return ['places', 'gives 0 to 1,000,000 places'];
  if (message.length > 200) return ['message', 'has a line for the person of at most 200 characters'];
  return { referrals: Number(referrals), name, places: places === '' ? 0 : Number(places), message: message || null };
}

/** One milestone as `products update` writes it: `N | name | places | line for the person`. */
function milestoneOf(line: string): Milestone | string {
  const [referrals = '', name = '', places = '', message = '', ...rest] = line.split('|').map((part) => part.trim());
  if (rest.length > 0) return 'has more than four parts';
  const milestone = milestoneFrom({ referrals, name, places, message });
  return Array.isArray(milestone) ? milestone[1] : milestone;
}

/**
 * A product's milestones as text, one a line (or separated by `;`): `N | name | places | line`, places
 * and line optional. At most MAX_MILESTONES, each number of referrals once; stored in ascending order.
 */
export const MILESTONES_FORM = z
  .string()
  .refine((text) => !/[\p{Cc}]/u.test(text.replace(/\r?\n/g, '')), 'Milestones cannot hold control characters')
  .transform((text, context) => {
    const lines = text.split(/\r?\n|;/).map((line) => line.trim()).filter(Boolean);
    const milestones: Milestone[] = [];
    for (const [index, line] of lines.entries()) {
      const milestone = milestoneOf(line);
      if (typeof milestone === 'string') {
        context.addIssue({ code: 'custom', message: `Milestone ${index + 1} ${milestone}` });
        return z.NEVER;
      }
      milestones.push(milestone);
    }
    const problem = milestonesProblem(milestones);
    if (problem) context.addIssue({ code: 'custom', message: problem });
    return milestones.sort((a, b) => a.referrals - b.referrals);
  });

/** What is wrong with a product's milestones as a whole (too many, a number of referrals twice), if anything. */
export function milestonesProblem(milestones: Milestone[]): string | undefined {
  if (milestones.length > MAX_MILESTONES) return `A product has at most ${MAX_MILESTONES} milestones`;
  if (new Set(milestones.map((milestone) => milestone.referrals)).size < milestones.length) return 'Each number of referrals may have one milestone';
  return undefined;
}

/** Milestones as the settings form shows them. */
export const milestonesAsText = (milestones: Milestone[]): string =>
  milestones.map(({ referrals, name, places, message }) => [referrals, name, places, message ?? ''].join(' | ').replace(/ \| $/, '')).join('\n');
