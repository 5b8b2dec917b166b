import { AddressInfo } from 'node:net';
import { Browser, chromium } from 'playwright-core';
import { toolPath } from './debian-tools';
import type { Stack } from './stack';

/** Headless chromium that calls nobody on its own: the machine's network is closed to it. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: toolPath('chromium'),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Puts the stack's API on a real port of this machine, for a browser; its base URL. */
export async function serve(stack: Stack): Promise<string> {
  await stack.api.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(stack.api.getHttpServer().address() as AddressInfo).port}`;
}
