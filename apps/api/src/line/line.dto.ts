import { z } from 'zod';
import { wholeNumber } from '../common/validation';

/** move-up's body; the dashboard's form is checked against it too. */
export const MOVE_UP = z.object({ places: wholeNumber(1, 1_000_000).meta({ description: 'How many places up, on top of what referrals give.', example: 5 }) });

/** Where a waiting entry stands in line. */
export const STANDING = z
  .object({
    place: z.number().int().min(1).meta({ description: '1 for the front of the line.', example: 2 }),
    lineLength: z.number().int().min(1).meta({ description: 'Entries waiting in line, this one included.', example: 120 }),
    estimatedWaitDays: z
      .number()
      .int()
      .min(0)
      .nullable()
      .meta({
        description: 'place ÷ the invitations per day over the last 30 days, rounded up; null while those days hold no invitation.',
        example: 60,
      }),
  })
  .meta({ id: 'Place' });
export type Standing = z.infer<typeof STANDING>;
