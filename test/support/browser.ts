import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Browser, chromium, Page } from 'playwright-core';
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

/** A page of chromium on the stack's dashboard (served on a real port), signed in as `email` and on its products' list. */
export async function dashboardPage(stack: Stack, email: string, password: string): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchBrowser();
  const page = await browser.newPage({ baseURL: await serve(stack) });
  // Far below a test's own timeout, so that a missing element is reported by name.
  page.setDefaultTimeout(10_000);
  await signInOn(page, email, password);
  return { browser, page };
}

/** Signs in by the sign-in form, as a person does, and waits for the products' list. */
export async function signInOn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/dashboard/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your products' }).waitFor();
}

/** A customer's page on another origin, with a Content-Security-Policy that allows only the service's origin. */
export async function customerPage(base: string, snippet: string): Promise<{ server: Server; url: string }> {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme Notes</title></head>
<body><h1>Acme Notes</h1><p>Notes for teams, soon.</p>
${snippet}</body></html>`;
  const policy = `default-src 'none'; script-src ${base}; connect-src ${base}; style-src ${base}; img-src ${base}; base-uri 'none'; form-action 'none'`;
  const server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': policy }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // localhost against the service's 127.0.0.1: another origin on the same machine.
  return { server, url: `http://localhost:${(server.address() as AddressInfo).port}/?ref=` };
}
