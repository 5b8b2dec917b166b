import { z } from 'zod';

const EMAIL = z.email();

/** Trims and lowercases an address; null when it is not a valid email address. */
export function normalizeEmail(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const email = input.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.safeParse(email).success) return null;
  return email;
}
