import { PLACE_CAUSES, REFERRAL_REASONS, TIMESTAMP } from '@app/shared';
import { z } from 'zod';
import { wholeNumber } from '../common/validation';
import { listPage } from '../entries/entries.dto';

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
  .meta({ id: 'Place', description: "A waiting entry's place in line, the line's length and the estimated wait." });
export type Standing = z.infer<typeof STANDING>;

/** One change of an entry's place or credit, as its history lists it. */
export const PLACE_CHANGE = z
  .object({
    at: TIMESTAMP.meta({ description: 'When it happened.' }),
    cause: z.enum(PLACE_CAUSES).meta({
      description:
        'joined: it confirmed and joined the line (place says where); moved_up: a move-up call; referral_credited, referral_held (pending a waiting period), referral_withheld: one of its referrals confirmed, or its waiting period ended; referral_granted, referral_revoked: the team decided; milestone: the places of a milestone reached; referral_places_changed: the product’s places per referral changed (places: the change times its credited referrals); invitation_expired: its invitation expired unused under the product’s claim window and it went back into the line (places: 0 at its old place, negative for a new number at the end).',
    }),
    places: z.number().int().meta({ description: 'Places it gained (negative: lost); 0 when its place did not change.', example: 1 }),
    place: z.number().int().min(1).nullable().meta({ description: 'For joined, the place it joined the line at; null otherwise.', example: null }),
    referralId: z.string().nullable().meta({ description: 'The referral behind a referral_… change; null otherwise.', example: 'rfl_4c1e9a7d2b8f3e6a0d5c9b17' }),
    reasons: z.array(z.enum(REFERRAL_REASONS)).meta({ description: 'Why a referral was held or withheld, or granted_by_team / revoked_by_team.', example: [] }),
  })
  .meta({ id: 'PlaceChange', description: "One change of an entry's place or credit, and its cause." });
export type PlaceChangeView = z.infer<typeof PLACE_CHANGE>;

/** A page of an entry's history, newest first. */
export const PLACE_HISTORY = listPage(PLACE_CHANGE, 'PlaceHistory', "A page of an entry's place history, newest first.");
export type PlaceHistory = z.infer<typeof PLACE_HISTORY>;
