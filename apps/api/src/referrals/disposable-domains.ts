import { blacklist } from 'mailchecker';

/** A list of domains, as a Set or a package's list is asked. */
export interface DomainList {
  has(domain: string): boolean;
}

/** The injection token of the maintained list of disposable mail domains. */
export const DISPOSABLE_DOMAIN_LIST = Symbol('DisposableDomainList');

/** The maintained list: the npm package mailchecker's (docs/decisions/referrals.md says why that one). */
export const MAINTAINED_DISPOSABLE_DOMAINS: DomainList = blacklist();

/** The domain and each domain above it: inbox.mailinator.com, mailinator.com, com. */
function domainAndParents(domain: string): string[] {
  const labels = domain.split('.');
  return labels.map((_, i) => labels.slice(i).join('.'));
}

/**
 * Whether an address's domain is disposable for a product: on its block list (or below a blocked
 * domain), else on the maintained list unless its allow list lets it through.
 */
export function isDisposableDomain(email: string, list: DomainList, lists: { blocked: string[]; allowed: string[] }): boolean {
  const domains = domainAndParents(email.slice(email.lastIndexOf('@') + 1).toLowerCase());
  if (domains.some((domain) => lists.blocked.includes(domain))) return true;
  if (domains.some((domain) => lists.allowed.includes(domain))) return false;
  return domains.some((domain) => list.has(domain));
}
