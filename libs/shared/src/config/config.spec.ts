import { isClusterConfig, loadConfig } from './config';
import { parseDuration, parseRateLimit } from './durations';

describe(loadConfig.name, () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      PUBLIC_BASE_URL: 'http://localhost:3000',
      DATABASE_URL: 'postgres://postgres@localhost:5432/waitlist',
      REDIS_URL: 'redis://localhost:6379',
      QUEUE_PREFIX: 'waitlist',
      MAIL_FROM: 'Waitlist <no-reply@localhost>',
      WEBHOOK_RETRY_DELAYS: [60_000, 300_000, 1_800_000, 7_200_000, 28_800_000],
      WEBHOOK_TIMEOUT: 5_000,
      WEBHOOK_ALLOW_PRIVATE_URLS: false,
      INVITE_CODE_TTL: 30 * 86_400_000,
      PENDING_ENTRY_TTL: 14 * 86_400_000,
      IDEMPOTENCY_TTL: 86_400_000,
      MAINTENANCE_INTERVAL: 60_000,
      RATE_LIMIT_API: { points: 100, durationMs: 1_000 },
      RATE_LIMIT_SIGNUP: { points: 10, durationMs: 60_000 },
      RATE_LIMIT_SIGNUP_ADDRESS: { points: 5, durationMs: 3_600_000 },
    });
    expect(config.SMTP_URL).toBeUndefined();
    expect(config.HEALTH_PORT).toBeUndefined();
    expect(config.ENCRYPTION_KEY.map((key) => key.length)).toEqual([32]);
  });

  it('names every bad variable and what it expects', () => {
    const load = () =>
      loadConfig({ HOST: 'localhost', PORT: 'eighty', WEBHOOK_TIMEOUT: '5 seconds', RATE_LIMIT_API: '100', SMTP_URL: 'mail.example.com', ENCRYPTION_KEY: 'short', METRICS_TOKEN: 'secret' });
    expect(load).toThrow(/HOST: expected an address of this machine to listen on, like 127.0.0.1/);
    expect(load).toThrow(/PORT: expected a port number/);
    expect(load).toThrow(/WEBHOOK_TIMEOUT: expected a duration like 5s/);
    expect(load).toThrow(/RATE_LIMIT_API: expected requests per window like 100\/1s/);
    expect(load).toThrow(/SMTP_URL: expected a smtp: or smtps: URL/);
    expect(load).toThrow(/ENCRYPTION_KEY: expected 32 random bytes in base64 \(openssl rand -base64 32\)/);
    expect(load).toThrow(/METRICS_TOKEN: expected at least 16 characters \(openssl rand -hex 16\)/);
  });

  it('refuses to run in production without ENCRYPTION_KEY or SMTP_URL, and accepts proper ones', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/ENCRYPTION_KEY: must be set when NODE_ENV=production/);
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(() => loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: key })).toThrow(/SMTP_URL: must be set when NODE_ENV=production/);
    expect(loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: key, SMTP_URL: 'smtp://mail:25' }).ENCRYPTION_KEY).toEqual([Buffer.alloc(32, 7)]);
    // A ring after a rotation: the new key first.
    const ring = `${Buffer.alloc(32, 8).toString('base64')}, ${key}`;
    expect(loadConfig({ ENCRYPTION_KEY: ring }).ENCRYPTION_KEY).toEqual([Buffer.alloc(32, 8), Buffer.alloc(32, 7)]);
    expect(() => loadConfig({ ENCRYPTION_KEY: `${key},short` })).toThrow(/ENCRYPTION_KEY: expected 32 random bytes/);
  });

  it('selects a Redis Cluster by a redis+cluster:// URL or by REDIS_CLUSTER_NODES, and says what is wrong with either', () => {
    expect(isClusterConfig(loadConfig({}))).toBe(false);
    expect(isClusterConfig(loadConfig({ REDIS_URL: 'rediss+cluster://user:pass@redis-1:6379' }))).toBe(true);
    const seeded = loadConfig({ REDIS_CLUSTER_NODES: 'redis-1:6379, 10.0.0.2:6380,[::1]:7000' });
    expect([isClusterConfig(seeded), seeded.REDIS_CLUSTER_NODES]).toEqual([true, ['redis-1:6379', '10.0.0.2:6380', '[::1]:7000']]);
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'redis-1,redis-2:6379' })).toThrow(/REDIS_CLUSTER_NODES: expected host:port pairs separated by commas/);
    expect(() => loadConfig({ REDIS_URL: 'redis+cluster://redis-1:6379/2' })).toThrow(/REDIS_URL: a Redis Cluster has only database 0/);
    expect(() => loadConfig({ REDIS_URL: 'redis://localhost/3', REDIS_CLUSTER_NODES: 'redis-1:6379' })).toThrow(/REDIS_URL: a Redis Cluster has only database 0/);
  });

  it('reads NODE_ENV without regard to case: Production is production', () => {
    for (const NODE_ENV of ['Production', 'PRODUCTION', ' production ']) {
      expect(() => loadConfig({ NODE_ENV })).toThrow(/ENCRYPTION_KEY: must be set when NODE_ENV=production/);
      expect(() => loadConfig({ NODE_ENV })).toThrow(/SMTP_URL: must be set when NODE_ENV=production/);
    }
  });

  it('takes TRUST_PROXY as a number of proxies or a list of their addresses and ranges, and refuses true, saying what to write', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 172.16.0.0/12,::1,fd00::/8, 192.0.2.7' }).TRUST_PROXY).toEqual(['10.0.0.0/8', '172.16.0.0/12', '::1', 'fd00::/8', '192.0.2.7']);
    expect(loadConfig({ TRUST_PROXY: 'loopback,uniquelocal' }).TRUST_PROXY).toEqual(['loopback', 'uniquelocal']);
    for (const TRUST_PROXY of ['true', 'True']) {
      expect(() => loadConfig({ TRUST_PROXY })).toThrow(
        "TRUST_PROXY: true would trust any client's X-Forwarded-For: write the number of proxies in front of the api (1 behind one proxy) or their addresses, like 10.0.0.0/8",
      );
    }
    for (const bad of ['0', '-1', '1.5', 'yes', '10.0.0.0/33', '300.1.1.1', '10.0.0.0/8,,', 'proxy.example.com']) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(/TRUST_PROXY: expected false, the number of proxies in front of the api \(1 behind one proxy\), or their addresses and ranges separated by commas, like 10\.0\.0\.0\/8,::1/);
    }
  });

  it('leaves every mail hook off by default, and names each bad mail hook setting with what it expects', () => {
    const off = loadConfig({});
    expect([off.MAIL_HOOK_SES_TOPIC_ARNS, off.MAIL_HOOK_POSTMARK_USERNAME, off.MAIL_HOOK_RESEND_SECRET, off.MAIL_HOOK_SENDGRID_PUBLIC_KEY, off.MAIL_HOOK_MAILGUN_SIGNING_KEY]).toEqual([undefined, undefined, undefined, undefined, undefined]);
    let message = '';
    try {
      loadConfig({
        MAIL_HOOK_SES_TOPIC_ARNS: 'arn:aws:sns:eu-west-1:123456789012:ok,ses-feedback',
        MAIL_HOOK_SES_CERT_HOST: '(',
        MAIL_HOOK_POSTMARK_USERNAME: 'postmark',
        MAIL_HOOK_RESEND_SECRET: 'not-a-secret',
        MAIL_HOOK_SENDGRID_PUBLIC_KEY: Buffer.from('not a key').toString('base64'),
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('MAIL_HOOK_SES_TOPIC_ARNS: expected the ARNs of the SNS topics');
    expect(message).toContain('MAIL_HOOK_SES_CERT_HOST: expected a regular expression');
    expect(message).toContain('MAIL_HOOK_POSTMARK_PASSWORD: must be set too');
    expect(message).toContain('MAIL_HOOK_RESEND_SECRET: expected the webhook');
    expect(message).toContain('MAIL_HOOK_SENDGRID_PUBLIC_KEY: expected the Event Webhook');
    const on = loadConfig({ MAIL_HOOK_SES_TOPIC_ARNS: 'arn:aws:sns:eu-west-1:123456789012:a, arn:aws-cn:sns:cn-north-1:123456789012:b.fifo' });
    expect(on.MAIL_HOOK_SES_TOPIC_ARNS).toEqual(['arn:aws:sns:eu-west-1:123456789012:a', 'arn:aws-cn:sns:cn-north-1:123456789012:b.fifo']);
    expect(new RegExp(on.MAIL_HOOK_SES_CERT_HOST).test('sns.eu-west-1.amazonaws.com')).toBe(true);
    expect(new RegExp(on.MAIL_HOOK_SES_CERT_HOST).test('sns.eu-west-1.amazonaws.com.evil.example')).toBe(false);
  });

  it('treats empty variables as unset', () => {
    const config = loadConfig({ SMTP_URL: '', PORT: '' });
    expect(config.SMTP_URL).toBeUndefined();
    expect(config.PORT).toBe(3000);
  });
});

describe(parseDuration.name, () => {
  it.each([
    ['500ms', 500],
    ['5s', 5_000],
    ['1m', 60_000],
    ['2h', 7_200_000],
    ['30d', 2_592_000_000],
  ])('reads %s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '5', 's', '1.5s', '-1s', '5 s', '1w'])('refuses %p', (text) => expect(parseDuration(text)).toBeNull());
});

describe(parseRateLimit.name, () => {
  it('reads requests per window', () => expect(parseRateLimit('10/1m')).toEqual({ points: 10, durationMs: 60_000 }));
  it.each(['10', '/1m', '0/1s', '10/500ms', 'x/1s'])('refuses %p', (text) => expect(parseRateLimit(text)).toBeNull());
});
