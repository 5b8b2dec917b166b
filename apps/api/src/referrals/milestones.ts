import { MAX_MILESTONES, Milestone } from '@app/shared';
import { z } from 'zod';

/** The milestones a referrer with this many credited referrals has reached; which of them are new, the entry_milestones key says. */
export const milestonesReached = (milestones: Milestone[], referrals: number): Milestone[] => milestones.filter((milestone) => milestone.referrals <= referrals);

/** One milestone as the settings form and `products update` write it: `N | name | places | line for the person`. */
function milestoneOf(line: string): Milestone | string {
  const [count = '', name = '', places = '', message = '', ...rest] = line.split('|').map((part) => part.trim());
  if (rest.length > 0) return 'has more than four parts';
  if (!/^\d{1,6}$/.test(count) || Number(count) < 1) return 'must start with the number of referrals, 1 to 999999';
  if (name.length < 1 || name.length > 60) return 'needs a name of 1 to 60 characters';
  if (places !== '' && !(/^\d{1,7}$/.test(places) && Number(places) <= 1_000_000)) return 'gives 0 to 1,000,000 places';
  if (message.length > 200) return 'has a line for the person of at most 200 characters';
  return { referrals: Number(count), name, places: places === '' ? 0 : Number(places), message: message || null };
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
    if (milestones.length > MAX_MILESTONES) context.addIssue({ code: 'custom', message: `A product has at most ${MAX_MILESTONES} milestones` });
    if (new Set(milestones.map((milestone) => milestone.referrals)).size < milestones.length) context.addIssue({ code: 'custom', message: 'Each number of referrals may have one milestone' });
    return milestones.sort((a, b) => a.referrals - b.referrals);
  });

/** Milestones as the settings form shows them. */
export const milestonesAsText = (milestones: Milestone[]): string =>
  milestones.map(({ referrals, name, places, message }) => [referrals, name, places, message ?? ''].join(' | ').replace(/ \| $/, '')).join('\n');
