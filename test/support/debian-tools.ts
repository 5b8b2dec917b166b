import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The programs some tests run, from Debian's packages (an environment variable points elsewhere). */
export const TOOLS = {
  /** The browser tests drive it. */
  chromium: { path: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', variable: 'CHROMIUM_PATH', pkg: 'chromium', only: false },
  /** Checks and unit-tests the alert rules, and parses the dashboard's queries. */
  // Only the package (its recommends are the server's exporters).
  promtool: { path: process.env.PROMTOOL_PATH ?? '/usr/bin/promtool', variable: 'PROMTOOL_PATH', pkg: 'prometheus', only: true },
  /** Reads docker-compose.yml as Compose does, where no Docker engine runs. */
  'docker-compose': { path: process.env.DOCKER_COMPOSE_PATH ?? '/usr/bin/docker-compose', variable: 'DOCKER_COMPOSE_PATH', pkg: 'docker-compose', only: true },
  /** Validates the Caddyfile of the compose stack's proxy. */
  caddy: { path: process.env.CADDY_PATH ?? '/usr/bin/caddy', variable: 'CADDY_PATH', pkg: 'caddy', only: true },
};

/**
 * Run once per test run: installs the missing ones when this is a root shell on Debian (as on our
 * development and CI machines), so that `npm test` alone runs every test.
 */
export function ensureDebianTools(): void {
  const missing = Object.values(TOOLS).filter((tool) => !existsSync(tool.path) && !process.env[tool.variable]);
  if (missing.length === 0 || process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) return;
  process.stdout.write(`\nInstalling Debian's ${missing.map((tool) => tool.pkg).join(' and ')} for the tests…\n`);
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
  for (const tool of missing) {
    const args = ['install', '-y', '-qq', ...(tool.only ? ['--no-install-recommends'] : []), tool.pkg];
    execFileSync('apt-get', args, { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  }
}

/** The tool's path, or a clear error saying how to get it. */
export function toolPath(name: keyof typeof TOOLS): string {
  const tool = TOOLS[name];
  if (!existsSync(tool.path)) throw new Error(`No ${name} at ${tool.path}: install Debian's (apt-get install ${tool.pkg}) or set ${tool.variable} to one.`);
  return tool.path;
}
