import helmet, { HelmetOptions } from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Pages load nothing from elsewhere, post only to us, and are never framed. */
const DIRECTIVES = {
  defaultSrc: ["'none'"],
  styleSrc: ["'unsafe-inline'"],
  imgSrc: ["'self'"],
  formAction: ["'self'"],
  baseUri: ["'none'"],
  frameAncestors: ["'none'"],
};

/** The hosted sign-up form (/w/…) may be embedded in the product's own site. */
const EMBEDDABLE = /^\/w\//;
/** A page that runs scripts of its own: its route's pattern and the hashes of the only scripts it may run, which may call us. */
export interface ScriptedPage {
  route: string;
  scriptHashes: string[];
}
/** Bull Board serves its own page and assets (scripts, fonts), behind the operator login. */
const OWN_POLICY = /^\/admin\/queues(\/|$)/;

/**
 * Every answer's security headers, in one place: helmet's defaults with our content security policy
 * (frame-ancestors decides framing, so X-Frame-Options is left out), no referrer (links hold tokens),
 * HSTS when the service is reached over https; per route, the sign-up form may be framed (and runs our
 * /challenge.js where its product's challenge is on: `withOwnScript`; so does the status page, /share.js), a page with
 * a script of its own runs that script alone (`scripted`), and Bull Board keeps its own policy (null).
 * Each policy's headers are the same for every request, so helmet runs once per policy here and an
 * answer gets the headers it wrote as Fastify reply headers: running helmet's middleware per request
 * (a dozen raw setHeader calls, which also put Node's writeHead on its slow path) cost the hot reads a
 * few per cent of the api's time.
 */
export async function securityHeaders(https: boolean, scripted: ScriptedPage[] = []): Promise<(route: string) => Record<string, string> | null> {
  const options: HelmetOptions = {
    contentSecurityPolicy: { useDefaults: false, directives: DIRECTIVES },
    xFrameOptions: false,
    referrerPolicy: { policy: 'no-referrer' },
    // Answers are fetched across origins by customers' pages (the public sign-up); CORS governs that.
    crossOriginResourcePolicy: false,
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
  };
  const everywhere = await headersOf(options);
  const embeddable = await headersOf({ ...options, contentSecurityPolicy: { useDefaults: false, directives: { ...DIRECTIVES, frameAncestors: null } } });
  const withScripts = new Map<string, Record<string, string>>();
  for (const { route, scriptHashes } of scripted) {
    const directives = { ...DIRECTIVES, scriptSrc: scriptHashes, connectSrc: ["'self'"] };
    withScripts.set(route, await headersOf({ ...options, contentSecurityPolicy: { useDefaults: false, directives } }));
  }
  return (route) => (OWN_POLICY.test(route) ? null : EMBEDDABLE.test(route) ? embeddable : (withScripts.get(route) ?? everywhere));
}

/**
 * The policy of a hosted page that runs a script of ours: the page's own, plus scripts from our own origin
 * (a sign-up form with its product's challenge: /challenge.js, which fetches its challenge from us; the
 * status page: /share.js, which fetches nothing). By 'self', never an inline script or eval.
 */
export const withOwnScript = (policy: string, fetches = true): string => `${policy};script-src 'self'${fetches ? ";connect-src 'self'" : ''}`;

/** The headers helmet sets with these options (none of ours depends on the request). */
async function headersOf(options: HelmetOptions): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
    removeHeader: () => undefined,
  };
  await new Promise<void>((resolve, reject) =>
    helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => (error ? reject(error) : resolve())),
  );
  return headers;
}
