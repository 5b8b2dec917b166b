import { parseRateLimit, RateLimit } from './durations';

/** MAIL_DOMAIN_PACE: the most mails per window to each receiving domain; `*` for every domain not named. */
export interface DomainPaceConfig {
  domains: ReadonlyMap<string, RateLimit>;
  /** The pace of each domain not named (counted per domain, not together); none: unpaced. */
  others?: RateLimit;
}

const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

/** Reads `gmail.com=600/1m,outlook.com=300/1m,*=1000/1m`; a sentence saying what is wrong otherwise. */
export function parseDomainPace(text: string): DomainPaceConfig | string {
  const domains = new Map<string, RateLimit>();
  let others: RateLimit | undefined;
  for (const part of text.split(',').map((item) => item.trim()).filter(Boolean)) {
    const [domain, limit, ...rest] = part.split('=');
    const pace = limit === undefined || rest.length > 0 ? null : parseRateLimit(limit);
    const name = domain.trim().toLowerCase();
    if (!pace || (name !== '*' && !DOMAIN.test(name))) {
      return `expected receiving domains with mails per window, like gmail.com=600/1m,*=1000/1m (window of 1s or more), not ${JSON.stringify(part)}`;
    }
    if (name === '*') others = pace;
    else domains.set(name, pace);
  }
  return { domains, others };
}

/** The pace of a receiving domain, or undefined when its mails go out unpaced. */
export function paceOf(config: DomainPaceConfig | undefined, domain: string): RateLimit | undefined {
  return config?.domains.get(domain.toLowerCase()) ?? config?.others;
}
