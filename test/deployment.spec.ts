import { loadConfig } from '@app/shared';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { scripts } from '../package.json';
import { toolPath } from './support/debian-tools';
import { freePort } from './support/throwaway-redis';
import { waitFor } from './support/wait';

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

/** What the stack's setup step exports before docker compose up. */
const SECRETS = { ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'), METRICS_TOKEN: 'f'.repeat(32) };

const seconds = (duration: string | undefined) => Number(/^(\d+)s$/.exec(duration ?? '')?.[1] ?? NaN);

describe('the compose stack (docker-compose.yml and its Caddyfile)', () => {
  let config: ReturnType<typeof composeConfig>;
  let services: Record<string, Service>;

  beforeAll(() => {
    config = composeConfig(SECRETS);
    services = parse(config.stdout)?.services;
  });

  it('is valid Compose, and refuses to run without ENCRYPTION_KEY, saying how to make one', () => {
    expect(config).toMatchObject({ status: 0 });
    const without = composeConfig({ METRICS_TOKEN: SECRETS.METRICS_TOKEN });
    expect(without.status).not.toBe(0);
    expect(without.stderr).toContain('set ENCRYPTION_KEY (openssl rand -base64 32)');
  });

  it('refuses to run without METRICS_TOKEN, saying how to make one, and gives it to every app: /metrics never rests on the proxy’s path matcher alone', () => {
    for (const empty of [{}, { METRICS_TOKEN: '' }] as Record<string, string>[]) {
      const without = composeConfig({ ENCRYPTION_KEY: SECRETS.ENCRYPTION_KEY, ...empty });
      expect(without.status).not.toBe(0);
      expect(without.stderr).toContain('set METRICS_TOKEN (openssl rand -hex 16)');
    }
    for (const app of APPS) expect(services[app].environment).toMatchObject({ METRICS_TOKEN: SECRETS.METRICS_TOKEN });
    // The apps take it as it is: at least 16 characters.
    expect(loadConfig({ METRICS_TOKEN: SECRETS.METRICS_TOKEN }).METRICS_TOKEN).toBe(SECRETS.METRICS_TOKEN);
  });

  it('scales: only the proxy takes a host port, the apps share one named image and run as their start scripts', () => {
    const published = Object.entries(services).flatMap(([name, service]) => (service.ports ?? []).map((port) => `${name}:${port.published}`));
    expect(published.sort()).toEqual(['mailpit:8025', 'proxy:3000']);
    for (const app of APPS) expect(services[app].image).toBe('waitlist-service');
    for (const app of APPS) expect(['node', ...services[app].command!.slice(1)].join(' ')).toBe(scripts[`start:${app}` as keyof typeof scripts]);
  });

  it('trusts the X-Forwarded-For of its one proxy on the api, not a client’s, and gives each app time to stop cleanly', () => {
    // Caddy replaces a client's X-Forwarded-For with the address it sees: the api takes that last hop only.
    expect(services.api.environment).toMatchObject({ TRUST_PROXY: '1' });
    expect(loadConfig({ TRUST_PROXY: services.api.environment!.TRUST_PROXY }).TRUST_PROXY).toBe(1);
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

  it('its proxy answers 404 for /metrics however it is written, and passes other paths on', async () => {
    const caddy = toolPath('caddy');
    const adapted = JSON.parse(execFileSync(caddy, ['adapt', '--config', 'Caddyfile', '--adapter', 'caddyfile'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString());
    const port = await freePort();
    for (const server of Object.values<{ listen: string[] }>(adapted.apps.http.servers)) server.listen = [`127.0.0.1:${port}`];
    const folder = mkdtempSync(join(tmpdir(), 'caddy-'));
    writeFileSync(join(folder, 'caddy.json'), JSON.stringify(adapted));
    const proxy = spawn(caddy, ['run', '--config', join(folder, 'caddy.json')], { stdio: 'ignore', env: { PATH: process.env.PATH, HOME: folder, XDG_DATA_HOME: folder, XDG_CONFIG_HOME: folder } });
    try {
      const status = (path: string) => fetch(`http://127.0.0.1:${port}${path}`).then((answer) => answer.status);
      await waitFor(() => status('/metrics').then(() => true, () => false), 'Caddy to listen');
      // The api's router decodes the path: it serves /%6detrics as /metrics.
      for (const path of ['/metrics', '/%6detrics', '/%6Detrics', '/METRICS', '//metrics', '/./metrics', '/x/../metrics']) expect([path, await status(path)]).toEqual([path, 404]);
      // No api runs here: a path passed on finds no replica (503 once lb_try_duration is over).
      expect(await status('/healthz')).toBe(503);
    } finally {
      proxy.kill();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
