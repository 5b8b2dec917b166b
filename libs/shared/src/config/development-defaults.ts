import type { Logger } from 'pino';
import { AppConfig, DEVELOPMENT_ENCRYPTION_KEY } from './config';

/** What an app falls back to outside production when a variable is unset (production refuses to start without them). */
export type DevelopmentDefault = 'SMTP_URL' | 'ENCRYPTION_KEY';

const WORDS: Record<DevelopmentDefault, string> = {
  SMTP_URL: 'development inbox at /dev/mail, mails not sent: set SMTP_URL',
  ENCRYPTION_KEY: 'development encryption key, public in the source: set ENCRYPTION_KEY (openssl rand -base64 32)',
};

const DEVELOPMENT_KEY = Buffer.from(DEVELOPMENT_ENCRYPTION_KEY, 'base64');

/** Those of `used` that this configuration takes. The development key counts only when it encrypts: later in the ring it only opens old secrets. */
export function developmentDefaultsTaken(config: AppConfig, used: DevelopmentDefault[]): DevelopmentDefault[] {
  const taken = { SMTP_URL: !config.SMTP_URL, ENCRYPTION_KEY: config.ENCRYPTION_KEY[0].equals(DEVELOPMENT_KEY) };
  return used.filter((name) => taken[name]);
}

/**
 * One warning line at start naming the development defaults the app takes among those it uses, so that
 * a deployment that forgot NODE_ENV=production does not run on them unawares.
 */
export function warnOfDevelopmentDefaults(logger: Logger, config: AppConfig, used: DevelopmentDefault[]): void {
  const taken = developmentDefaultsTaken(config, used);
  if (taken.length) logger.warn({ context: 'DevelopmentDefaults' }, `development defaults in use (NODE_ENV is not production): ${taken.map((name) => WORDS[name]).join('; ')}`);
}
