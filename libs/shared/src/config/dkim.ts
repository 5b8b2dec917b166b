import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A sending domain's DKIM key, as nodemailer's `dkim` option takes it. */
export interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

const SELECTOR = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const DOMAIN = /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

type Problem = { variable: string; message: string };

/**
 * The DKIM keys of the DKIM_* settings, by signing domain: DKIM_PRIVATE_KEY (a PEM key, or the path of
 * a file holding one) for DKIM_DOMAIN (default: MAIL_FROM's domain) under DKIM_SELECTOR; DKIM_KEYS adds
 * more domains as `domain:selector:/path/key.pem`, comma-separated. Problems name the variable and
 * never quote a key.
 */
export function parseDkimKeys(env: Record<string, string | undefined>, mailFrom: string): { keys: Map<string, DkimKey>; problems: Problem[] } {
  const keys = new Map<string, DkimKey>();
  const problems: Problem[] = [];
  const add = (variables: { domain: string; selector: string; key: string }, domain: string, selector: string, keyOrPath: string) => {
    if (!DOMAIN.test(domain)) {
      const message = variables.domain === 'MAIL_FROM' ? `has no domain DKIM can sign for (${JSON.stringify(domain)}): set DKIM_DOMAIN` : `expected a domain to sign for, like example.com (got ${JSON.stringify(domain)})`;
      return problems.push({ variable: variables.domain, message });
    }
    if (!SELECTOR.test(selector)) return problems.push({ variable: variables.selector, message: `expected a selector of letters, digits, - and dots, like waitlist2026 (got ${JSON.stringify(selector)})` });
    const key = readKey(keyOrPath);
    if ('problem' in key) return problems.push({ variable: variables.key, message: key.problem });
    keys.set(domain.toLowerCase(), { domainName: domain.toLowerCase(), keySelector: selector, privateKey: key.pem });
  };
  if (env.DKIM_PRIVATE_KEY && !env.DKIM_SELECTOR) {
    problems.push({ variable: 'DKIM_SELECTOR', message: 'is required with DKIM_PRIVATE_KEY: the name of the DNS record <selector>._domainkey.<domain> that holds the public key' });
  } else if (env.DKIM_PRIVATE_KEY && env.DKIM_SELECTOR) {
    const single = { domain: env.DKIM_DOMAIN ? 'DKIM_DOMAIN' : 'MAIL_FROM', selector: 'DKIM_SELECTOR', key: 'DKIM_PRIVATE_KEY' };
    add(single, env.DKIM_DOMAIN ?? domainOf(mailFrom), env.DKIM_SELECTOR, env.DKIM_PRIVATE_KEY);
  } else if (env.DKIM_SELECTOR || env.DKIM_DOMAIN) {
    problems.push({ variable: 'DKIM_PRIVATE_KEY', message: 'is required with DKIM_SELECTOR and DKIM_DOMAIN: a PEM private key, or the path of a file holding one' });
  }
  const listed = { domain: 'DKIM_KEYS', selector: 'DKIM_KEYS', key: 'DKIM_KEYS' };
  for (const item of (env.DKIM_KEYS ?? '').split(',').filter((part) => part.trim())) {
    const [domain, selector, ...path] = item.trim().split(':');
    if (selector === undefined || path.length === 0) problems.push({ variable: 'DKIM_KEYS', message: 'expected domain:selector:/path/to/key.pem, separated by commas' });
    else add(listed, domain, selector, path.join(':'));
  }
  return { keys, problems };
}

/** The key of the sender's domain, if it has one: a mail from any other domain goes out unsigned. */
export function dkimFor(keys: ReadonlyMap<string, DkimKey> | undefined, from: string): DkimKey | undefined {
  return keys?.size ? keys.get(domainOf(from).toLowerCase()) : undefined;
}

/** The domain of an address, bare or in `Name <address>` form. */
export function domainOf(address: string): string {
  const bare = /<([^>]+)>\s*$/.exec(address)?.[1] ?? address.trim();
  return bare.slice(bare.lastIndexOf('@') + 1);
}

function readKey(keyOrPath: string): { pem: string } | { problem: string } {
  // An environment file cannot hold line breaks: a key written on one line with \n is taken as well.
  const inline = keyOrPath.replace(/\\n/g, '\n');
  let pem = inline;
  if (!inline.trimStart().startsWith('-----BEGIN')) {
    try {
      pem = readFileSync(keyOrPath, 'utf8');
    } catch (error) {
      return { problem: `cannot read the key file ${keyOrPath} (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
    }
  }
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'ed25519') return { problem: 'expected an RSA (2048 bits or more) or Ed25519 private key' };
  } catch {
    return { problem: 'is not a private key in PEM form (openssl genrsa 2048)' };
  }
  return { pem };
}
