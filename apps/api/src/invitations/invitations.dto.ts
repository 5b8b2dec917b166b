import { z } from 'zod';
import { wholeNumber } from '../common/validation';

/** invite-next's body; the dashboard's form is checked against it too. */
export const INVITE_NEXT = z.object({ count: wholeNumber(1, 1000) });
