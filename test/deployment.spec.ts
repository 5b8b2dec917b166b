import { loadConfig } from '@app/shared';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parse } from 'yaml';
import { scripts } from '../package.json';
import { toolPath } from './support/debian-tools';

const ROOT = join(__dirname, '..');
const APPS = ['api', 'mailer', 'webhooks'];

interface Service {
  image?: string;
  command?: string[];
  ports?: { published?: number | string; target?: number }[];
  expose?: string[];
  environment?: Record<string, string>;
  stop_grace_period?: string;
}

/** docker-compose.yml as Compose reads it (Debian's docker-compose: no Docker engine runs here). */
function composeConfig(env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(toolPath('docker-compose'), ['-f', 'docker-compose.yml', 'config'], { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const seconds = (duration: string | undefined) => Number(/^(\d+)s$/.exec(duration ?? '')?.[1] ?? NaN);

describe('the compose stack (docker-compose.yml and its Caddyfile)', () => {
  let config: ReturnType<typeof composeConfig>;
  let services: Record<string, Service>;

  beforeAll(() => {
    config = composeConfig({ ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') });
    services = parse(config.stdout)?.services;
  });

  it('is valid Compose, and refuses to run without ENCRYPTION_KEY, saying how to make one', () => {
    expect(config).toMatchObject({ status: 0 });
    const without = composeConfig({});
    expect(without.status).not.toBe(0);
    expect(without.stderr).toContain('set ENCRYPTION_KEY (openssl rand -base64 32)');
  });

  it('scales: only the proxy takes a host port, the apps share one named image and run as their start scripts', () => {
    const published = Object.entries(services).flatMap(([name, service]) => (service.ports ?? []).map((port) => `${name}:${port.published}`));
    expect(published.sort()).toEqual(['mailpit:8025', 'proxy:3000']);
    for (const app of APPS) expect(services[app].image).toBe('waitlist-service');
    for (const app of APPS) expect(['node', ...services[app].command!.slice(1)].join(' ')).toBe(scripts[`start:${app}` as keyof typeof scripts]);
  });

  it('trusts the proxy’s X-Forwarded-For on the api, and gives each app time to stop cleanly', () => {
    expect(services.api.environment).toMatchObject({ TRUST_PROXY: 'true' });
    // The api's drain, then its requests; a mail's handover (30 s); first attempts (10 s).
    expect(seconds(services.api.stop_grace_period)).toBeGreaterThan(loadConfig({}).SHUTDOWN_GRACE / 1000);
    expect(seconds(services.mailer.stop_grace_period)).toBeGreaterThan(30);
    expect(seconds(services.webhooks.stop_grace_period)).toBeGreaterThan(10);
    for (const worker of ['mailer', 'webhooks']) expect(services[worker].environment).toMatchObject({ HEALTH_PORT: '3001' });
  });

  it('runs Redis with AOF persistence and no eviction, as BullMQ asks', () => {
    const command = services.redis.command!.join(' ');
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--maxmemory-policy noeviction');
  });

  it('proxies to every api replica by name, and keeps /metrics off the public side', () => {
    const caddy = toolPath('caddy');
    execFileSync(caddy, ['validate', '--config', 'Caddyfile', '--adapter', 'caddyfile'], { cwd: ROOT, stdio: 'pipe' });
    const adapted = JSON.stringify(JSON.parse(execFileSync(caddy, ['adapt', '--config', 'Caddyfile', '--adapter', 'caddyfile'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString()));
    expect(adapted).toContain('"dynamic_upstreams":{"name":"api","port":"3000"');
    expect(adapted).toMatch(/"match":\[\{"path":\["\/metrics"\]\}\],"handle":\[\{"handler":"static_response","status_code":404\}\]/);
  });
});
