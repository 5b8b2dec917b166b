/** What stands for the hidden letters of a masked address: always three, so that no length shows. */
const HIDDEN = '•••';

/**
 * An address as the public leaderboard shows it: the first letter of the local part and of the
 * domain's first label, then the top-level domain (`ada@gmail.com` → `a•••@g•••.com`). The rest, and
 * every length, is hidden, so it cannot be recovered; a domain without a dot shows its first letter only.
 */
export function maskedEmail(email: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, Math.max(at, 0));
  const labels = email.slice(at + 1).split('.');
  const tld = labels.length > 1 ? `.${labels.at(-1)}` : '';
  return `${firstOf(local)}${HIDDEN}@${firstOf(labels[0])}${HIDDEN}${tld}`;
}

/** The first character (a whole code point), or the mask alone for an empty part. */
const firstOf = (part: string): string => [...part][0] ?? '';
