import { createPublicKey } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';
import { DkimKey, parseDkimKeys } from './dkim';
import { parseDuration, parseRateLimit } from './durations';
import { parseDomainPace } from './mail-pace';

export const DEVELOPMENT_ENCRYPTION_KEY = Buffer.alloc(32, 'development-only-key').toString('base64');

const duration = (example: string, min = 1) =>
  z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === null || ms < min) {
      ctx.addIssue({ code: 'custom', message: `expected a duration like ${example} (units ms, s, m, h, d)` });
      return z.NEVER;
    }
    return ms;
  });

const rateLimit = (example: string) =>
  z.string().transform((text, ctx) => {
    const limit = parseRateLimit(text);
    if (!limit) {
      ctx.addIssue({ code: 'custom', message: `expected requests per window like ${example} (window of 1s or more)` });
      return z.NEVER;
    }
    return limit;
  });

const url = (protocols: string[], example: string) =>
  z.string().refine(
    (text) => URL.canParse(text) && protocols.includes(new URL(text).protocol),
    `expected a ${protocols.join(' or ')} URL like ${example}`,
  );

const CLUSTER_NODE = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;

const port = z.coerce.number({ message: 'expected a port number' }).int().min(1).max(65535);

const bool = z.enum(['true', 'false'], { message: 'expected true or false' }).transform((v) => v === 'true');

/** proxy-addr's names for the reserved ranges, which Fastify takes among the addresses. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isAddressOrRange(text: string): boolean {
  if (PROXY_RANGE_NAMES.includes(text)) return true;
  const [address, bits, ...rest] = text.split('/');
  const version = isIP(address);
  if (!version || rest.length) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}

/**
 * Whose X-Forwarded-For the api believes: the number of proxies in front of it (the client is the address
 * the last of them appended), or the proxies' own addresses and ranges. Never everyone's: behind a proxy
 * that appends to the header, as most do, the first address is whatever the client wrote.
 */
const trustProxy = z.string().transform((text, ctx): false | number | string[] => {
  const value = text.trim();
  if (value === 'false') return false;
  if (value.toLowerCase() === 'true') {
    ctx.addIssue({
      code: 'custom',
      message: "true would trust any client's X-Forwarded-For: write the number of proxies in front of the api (1 behind one proxy) or their addresses, like 10.0.0.0/8",
    });
    return z.NEVER;
  }
  if (/^[1-9]\d{0,2}$/.test(value)) return Number(value);
  const addresses = value.split(',').map((part) => part.trim());
  if (addresses.every(isAddressOrRange)) return addresses;
  ctx.addIssue({
    code: 'custom',
    message: 'expected false, the number of proxies in front of the api (1 behind one proxy), or their addresses and ranges separated by commas, like 10.0.0.0/8,::1',
  });
  return z.NEVER;
});

/** SNS topics are named by their ARN: partition, region, account, name. */
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

/** Where Amazon SNS keeps its signing certificates and subscription links: sns.<region>.amazonaws.com. */
const SNS_HOST_PATTERN = '^sns\\.[a-z0-9-]+\\.amazonaws\\.com(\\.cn)?$';

function isRegExp(text: string): boolean {
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
}

/** SendGrid shows its Event Webhook's verification key as a base64 DER public key (SPKI) on the P-256 curve. */
function isP256PublicKey(text: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  } catch {
    return false;
  }
}

const schema = z
  .object({
    // Production and PRODUCTION are production too: a deployment that capitalises it must not get development defaults.
    NODE_ENV: z
      .string()
      .default('development')
      .transform((text) => text.trim().toLowerCase()),
    // Where the api (and the workers' HEALTH_PORT) listen; unset: every address, IPv6 too where the host has it.
    HOST: z
      .string()
      .refine((text) => isIP(text) !== 0, 'expected an address of this machine to listen on, like 127.0.0.1, ::1, 0.0.0.0 (every IPv4 address) or :: (every address)')
      .optional(),
    PORT: port.default(3000),
    HEALTH_PORT: port.optional(),
    PUBLIC_BASE_URL: url(['http:', 'https:'], 'https://waitlist.example.com')
      .default('http://localhost:3000')
      .transform((text) => text.replace(/\/+$/, '')),
    DATABASE_URL: url(['postgres:', 'postgresql:'], 'postgres://user:pass@host:5432/waitlist').default(
      'postgres://postgres@localhost:5432/waitlist',
    ),
    REDIS_URL: url(['redis:', 'rediss:', 'redis+cluster:', 'rediss+cluster:'], 'redis://localhost:6379').default('redis://localhost:6379'),
    // Seed nodes of a Redis Cluster; REDIS_URL then gives only the credentials and TLS.
    REDIS_CLUSTER_NODES: z
      .string()
      .refine((text) => text.split(',').every((node) => CLUSTER_NODE.test(node.trim())), 'expected host:port pairs separated by commas, like redis-1:6379,redis-2:6379')
      .transform((text) => text.split(',').map((node) => node.trim()))
      .optional(),
    QUEUE_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected 1 to 64 letters, digits, _ or -')
      .default('waitlist'),
    SMTP_URL: url(['smtp:', 'smtps:'], 'smtp://user:pass@host:587').optional(),
    // Bounces and complaints (docs/decisions/mail.md): a 5xx at handover counts as a hard bounce only when asked.
    MAIL_BOUNCE_ON_REFUSAL: bool.default(false),
    MAIL_SOFT_BOUNCE_LIMIT: z.coerce.number({ message: 'expected a whole number of soft bounces, 1 or more' }).int().min(1).default(3),
    MAIL_FROM: z.string().min(3, 'expected a sender like Waitlist <no-reply@example.com>').default('Waitlist <no-reply@localhost>'),
    // Read with parseDkimKeys once the rest is valid (docs/operations.md, "Mail that arrives").
    DKIM_SELECTOR: z.string().optional(),
    DKIM_DOMAIN: z.string().optional(),
    DKIM_PRIVATE_KEY: z.string().optional(),
    DKIM_KEYS: z.string().optional(),
    MAIL_DOMAIN_PACE: z
      .string()
      .transform((text, ctx) => {
        const pace = parseDomainPace(text);
        if (typeof pace === 'string') {
          ctx.addIssue({ code: 'custom', message: pace });
          return z.NEVER;
        }
        return pace;
      })
      .optional(),
    // A key ring: the first key encrypts, every key decrypts (a rotation puts the new key first).
    ENCRYPTION_KEY: z
      .string()
      .refine(
        (text) => text.split(',').every((key) => Buffer.from(key.trim(), 'base64').length === 32),
        'expected 32 random bytes in base64 (openssl rand -base64 32), or several such keys separated by commas, the one to encrypt with first',
      )
      .optional(),
    WEBHOOK_RETRY_DELAYS: z.string().default('1m,5m,30m,2h,8h').transform((text, ctx) => {
      const delays = text.split(',').map((part) => parseDuration(part));
      if (delays.some((ms) => ms === null)) {
        ctx.addIssue({ code: 'custom', message: 'expected a comma-separated list of durations like 1m,5m,30m,2h,8h' });
        return z.NEVER;
      }
      return delays as number[];
    }),
    WEBHOOK_TIMEOUT: duration('5s').prefault('5s'),
    WEBHOOK_ALLOW_PRIVATE_URLS: bool.default(false),
    INVITE_CODE_TTL: duration('30d').prefault('30d'),
    PENDING_ENTRY_TTL: duration('14d').prefault('14d'),
    IDEMPOTENCY_TTL: duration('24h').prefault('24h'),
    MAINTENANCE_INTERVAL: duration('1m', 10).prefault('1m'),
    RECONCILE_INTERVAL: duration('30s', 100).prefault('30s'),
    SHUTDOWN_GRACE: duration('5s', 0).prefault('5s'),
    RATE_LIMIT_API: rateLimit('100/1s').prefault('100/1s'),
    RATE_LIMIT_SIGNUP: rateLimit('10/1m').prefault('10/1m'),
    RATE_LIMIT_SIGNUP_ADDRESS: rateLimit('5/1h').prefault('5/1h'),
    // The script-tag form asks every 3 s while its page waits: room for six such pages behind one address.
    RATE_LIMIT_SIGNUP_STATUS: rateLimit('120/1m').prefault('120/1m'),
    TRUST_PROXY: trustProxy.prefault('false'),
    METRICS_TOKEN: z.string().min(16, 'expected at least 16 characters (openssl rand -hex 16)').optional(),
    // The mail providers' bounce and complaint hooks (/hooks/mail/<provider>): each is off until its settings are set.
    MAIL_HOOK_SES_TOPIC_ARNS: z
      .string()
      .transform((text) => text.split(',').map((arn) => arn.trim()))
      .refine((arns) => arns.every((arn) => TOPIC_ARN.test(arn)), 'expected the ARNs of the SNS topics SES notifies, separated by commas, like arn:aws:sns:eu-west-1:123456789012:ses-feedback')
      .optional(),
    MAIL_HOOK_SES_CERT_HOST: z.string().refine(isRegExp, 'expected a regular expression for the host of SNS certificate and subscription URLs').default(SNS_HOST_PATTERN),
    MAIL_HOOK_POSTMARK_USERNAME: z.string().regex(/^[^:]+$/, 'expected a user name without a colon').optional(),
    MAIL_HOOK_POSTMARK_PASSWORD: z.string().min(16, 'expected at least 16 characters (openssl rand -hex 16)').optional(),
    MAIL_HOOK_RESEND_SECRET: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, 'expected the webhook\'s signing secret as Resend shows it, whsec_ and base64')
      .optional(),
    MAIL_HOOK_SENDGRID_PUBLIC_KEY: z.string().refine(isP256PublicKey, 'expected the Event Webhook\'s verification key as SendGrid shows it: a base64 P-256 public key, like MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE…').optional(),
    MAIL_HOOK_MAILGUN_SIGNING_KEY: z.string().min(16, 'expected the HTTP webhook signing key as Mailgun shows it').optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && !env.ENCRYPTION_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['ENCRYPTION_KEY'],
        message: 'must be set when NODE_ENV=production (openssl rand -base64 32)',
      });
    }
    if (isClusterConfig(env) && !['', '/', '/0'].includes(new URL(env.REDIS_URL).pathname)) {
      ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: 'a Redis Cluster has only database 0: leave the database number out of the URL' });
    }
    if ((env.MAIL_HOOK_POSTMARK_USERNAME === undefined) !== (env.MAIL_HOOK_POSTMARK_PASSWORD === undefined)) {
      const missing = env.MAIL_HOOK_POSTMARK_USERNAME === undefined ? 'MAIL_HOOK_POSTMARK_USERNAME' : 'MAIL_HOOK_POSTMARK_PASSWORD';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'must be set too: the Postmark hook takes a user name and a password, or neither' });
    }
    // Without SMTP_URL mails go to the development inbox, which shows every mail to anyone who asks.
    if (env.NODE_ENV === 'production' && !env.SMTP_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['SMTP_URL'],
        message: 'must be set when NODE_ENV=production, like smtp://user:pass@host:587 (without it mails would go to the public development inbox)',
      });
    }
  });

type Env = z.output<typeof schema>;

export interface AppConfig extends Omit<Env, 'ENCRYPTION_KEY' | 'DKIM_SELECTOR' | 'DKIM_DOMAIN' | 'DKIM_PRIVATE_KEY' | 'DKIM_KEYS'> {
  /** The key ring, the key that encrypts first. */
  ENCRYPTION_KEY: Buffer[];
  /** The DKIM keys by sending domain; empty: mails go out unsigned. */
  DKIM: Map<string, DkimKey>;
}

/** Where Redis is: what every connection to it is made from. */
export interface RedisConfig {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: string[];
}

/** A Redis Cluster is selected by a redis+cluster:// (or rediss+cluster://) URL or by REDIS_CLUSTER_NODES. */
export function isClusterConfig(config: RedisConfig): boolean {
  return config.REDIS_CLUSTER_NODES !== undefined || new URL(config.REDIS_URL).protocol.endsWith('+cluster:');
}

export class ConfigError extends Error {}

/** Reads and validates the environment once; the error names every bad variable and what it expects. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = schema.safeParse(present);
  const dkim = parseDkimKeys(present, result.data?.MAIL_FROM ?? present.MAIL_FROM ?? '');
  if (!result.success || dkim.problems.length > 0) {
    const lines = [
      ...(result.error?.issues ?? []).map((issue) => `  ${issue.path.join('.')}: ${issue.message}`),
      ...dkim.problems.map((problem) => `  ${problem.variable}: ${problem.message}`),
    ];
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const { DKIM_SELECTOR, DKIM_DOMAIN, DKIM_PRIVATE_KEY, DKIM_KEYS, ...data } = result.data;
  return {
    ...data,
    DKIM: dkim.keys,
    ENCRYPTION_KEY: (data.ENCRYPTION_KEY ?? DEVELOPMENT_ENCRYPTION_KEY).split(',').map((key) => Buffer.from(key.trim(), 'base64')),
  };
}

/** Injection token and module-free holder: every app receives its config object explicitly. */
export const APP_CONFIG = Symbol('APP_CONFIG');
