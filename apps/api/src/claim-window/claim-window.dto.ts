import { CLAIM_EXPIRY_OUTCOMES, MAX_CLAIM_DAYS } from '@app/shared';
import { z } from 'zod';

/** A whole number from min to max as a form or a flag gives it, or empty for none (null). */
const wholeOrNone = (label: string, min: number, max: number, none: string) =>
  z
    .string()
    .trim()
    .refine((text) => text === '' || (/^\d{1,4}$/.test(text) && Number(text) >= min && Number(text) <= max), `${label} must be a whole number from ${min} to ${max}, or empty for ${none}`)
    .transform((text) => (text === '' || Number(text) === 0 ? null : Number(text)));

/**
 * A product's claim window as its settings form and `products update` give it, every field as text:
 * the days (empty: no window, SPEC.md's behaviour), the reminder's hours before the end (empty or 0:
 * none) and what happens at the end (left out or empty: unchanged). That the reminder falls inside
 * the window is checked against the product's other values (ProductsService.update).
 */
export const CLAIM_WINDOW_SETTINGS = z.object({
  claimWindowDays: wholeOrNone('The claim window', 1, MAX_CLAIM_DAYS, 'none'),
  claimReminderHours: wholeOrNone('The reminder', 0, MAX_CLAIM_DAYS * 24 - 1, 'none'),
  claimExpiry: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.enum(CLAIM_EXPIRY_OUTCOMES, { message: 'At the end of the claim window the entry goes back_in_line, to the end_of_line, or is deleted (delete)' }).optional(),
  ),
});
