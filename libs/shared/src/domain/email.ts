import { z } from 'zod';

const EMAIL = z.email();

/** Trims and lowercases an address; null when it is not a valid email address. */
export function normalizeEmail(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const email = input.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.safeParse(email).success) return null;
  return email;
}

/** Domains whose mailboxes ignore dots in the local part; each maps to the domain of its mailboxes. */
const DOTLESS_DOMAINS = new Map([
  ['gmail.com', 'gmail.com'],
  ['googlemail.com', 'gmail.com'],
]);

/**
 * The mailbox behind a normalised address, for what must count once per person: referral credit and
 * the per-address mail limit. A +tag is dropped, and so are dots where the provider ignores them, so
 * flood+r1@x.example is flood@x.example and f.l.o.o.d@googlemail.com is flood@gmail.com.
 */
export function canonicalEmail(email: string): string {
  const at = email.lastIndexOf('@');
  let local = email.slice(0, at);
  const domain = email.slice(at + 1);
  const tag = local.indexOf('+');
  if (tag > 0) local = local.slice(0, tag);
  const mailboxDomain = DOTLESS_DOMAINS.get(domain);
  if (mailboxDomain) return `${local.replace(/\./g, '')}@${mailboxDomain}`;
  return `${local}@${domain}`;
}
