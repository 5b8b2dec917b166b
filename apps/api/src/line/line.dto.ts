import { z } from 'zod';
import { wholeNumber } from '../common/validation';

/** move-up's body; the dashboard's form is checked against it too. */
export const MOVE_UP = z.object({ places: wholeNumber(1, 1_000_000) });
