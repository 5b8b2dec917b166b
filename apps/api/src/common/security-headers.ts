import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import helmet, { HelmetOptions } from 'helmet';

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
/** Bull Board serves its own page and assets (scripts, fonts), behind the operator login. */
const OWN_POLICY = /^\/admin\/queues(\/|$)/;

/**
 * Every answer's security headers, in one place: helmet's defaults with our content security policy
 * (frame-ancestors decides framing, so X-Frame-Options is left out), no referrer (links hold tokens),
 * HSTS when the service is reached over https; per route, the sign-up form may be framed and Bull
 * Board keeps its own policy. Each policy's helmet is built once: @fastify/helmet builds it again for
 * every request, which cost the hot reads a few per cent of the api's time.
 */
export async function registerSecurityHeaders(app: NestFastifyApplication, https: boolean): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  const options: HelmetOptions = {
    contentSecurityPolicy: { useDefaults: false, directives: DIRECTIVES },
    xFrameOptions: false,
    referrerPolicy: { policy: 'no-referrer' },
    // Answers are fetched across origins by customers' pages (the public sign-up); CORS governs that.
    crossOriginResourcePolicy: false,
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
  };
  const everywhere = helmet(options);
  const embeddable = helmet({ ...options, contentSecurityPolicy: { useDefaults: false, directives: { ...DIRECTIVES, frameAncestors: null } } });
  fastify.addHook('onRequest', (request, reply, done) => {
    // The route's pattern, or the path for an unknown route (404).
    const route = request.routeOptions.url ?? request.url;
    if (OWN_POLICY.test(route)) return done();
    (EMBEDDABLE.test(route) ? embeddable : everywhere)(request.raw, reply.raw, (error) => done(error as Error | undefined));
  });
}
