import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { Browser, chromium } from 'playwright-core';
import type { Stack } from './stack';

/** Debian's chromium, which `.ci/run` installs when it is missing; CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Run once per test run: installs Debian's chromium when it is missing and this is a root shell on
 * Debian (as on our development and CI machines), so that `npm test` alone runs every test.
 */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM_PATH) || process.env.CHROMIUM_PATH || process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) return;
  process.stdout.write('\nInstalling Debian\'s chromium for the browser tests (apt-get install chromium)…\n');
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

/** Headless chromium that calls nobody on its own: the machine's network is closed to it. */
export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No chromium at ${CHROMIUM_PATH}: install Debian's (apt-get install chromium) or set CHROMIUM_PATH to one.`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Puts the stack's API on a real port of this machine, for a browser; its base URL. */
export async function serve(stack: Stack): Promise<string> {
  await stack.api.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(stack.api.getHttpServer().address() as AddressInfo).port}`;
}
