/**
 * A product's sign-up challenge (a proof of work the sign-up forms solve): off (the default, SPEC.md's
 * sign-up), invisible (solved in the background, nothing shown), required (solved with a visible step).
 */
export const CHALLENGE_MODES = ['off', 'invisible', 'required'] as const;
export type ChallengeMode = (typeof CHALLENGE_MODES)[number];

/** The largest number a solver may have to try: the work is half of it on average, one SHA-256 each. */
export const CHALLENGE_DIFFICULTY = { default: 50_000, min: 1_000, max: 5_000_000 } as const;
