import { createHash } from 'node:crypto';
import type { Challenge } from '../../apps/api/src/challenges/challenges.dto';

/** What a scripted client that does the work sends: the number found by trying them all, as ALTCHA's payload. */
export function solved(challenge: Challenge): string {
  for (let number = 0; number <= challenge.maxnumber; number++) {
    if (createHash('sha256').update(challenge.salt + number).digest('hex') === challenge.challenge) {
      const { algorithm, salt, signature } = challenge;
      return Buffer.from(JSON.stringify({ algorithm, challenge: challenge.challenge, number, salt, signature })).toString('base64');
    }
  }
  throw new Error('The challenge has no solution');
}
