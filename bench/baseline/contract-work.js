// The hot-read baseline's third mode (BASELINE_CONTRACT=1): in plain code, the work the API's contract
// asks of every request beside the read itself, and nothing more. docs/api.md: every answer carries its
// X-Request-Id (the caller's when it is one we take, else a new UUID) and the security headers;
// docs/operations.md: every request is counted by its key's rate limit in Redis (shared by the
// replicas, taken in leases as the service does), observed in waitlist_http_request_duration_seconds by
// method, route and status, and logged as one `request completed` line under its requestId, through a
// logger that redacts secrets (at the level the benchmark gives the api: silent). No framework beyond
// Fastify, no validation library, no caches but the keys in memory.
const { randomUUID } = require('node:crypto');
const helmet = require('helmet');
const { LogController } = require('fastify');
const Redis = require('ioredis');
const pino = require('pino');
const { Histogram, Registry } = require('prom-client');
const { RateLimiterRedis, RateLimiterRes } = require('rate-limiter-flexible');

const requests = new Histogram({
  name: 'waitlist_http_request_duration_seconds',
  help: 'HTTP requests by method, route template and status, and how long their answers took',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [new Registry()],
});
const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;
const REDACTED = ['req.headers.authorization', 'req.headers.cookie', 'token', 'secret', 'password', 'email', '*.token', '*.secret', '*.password', '*.email'];

/** Fastify's options for the mode: the request id, and a request logger like the api's. */
function contractOptions() {
  const logger = pino({
    level: process.env.LOG_LEVEL ?? 'silent',
    base: { app: 'baseline' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
  });
  const genReqId = (request) => {
    const given = request.headers['x-request-id'];
    return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  };
  return { loggerInstance: logger, genReqId, logController: new AnswerEnd() };
}

/** Where Fastify reports each request's end (as the api's RequestLog): the metric and the log line. */
class AnswerEnd extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'requestId' });
  }

  incomingRequest() {}

  requestCompleted(error, request, reply) {
    requests.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode }, reply.elapsedTime / 1000);
    if (!request.log.isLevelEnabled(error ? 'error' : 'info')) return;
    const line = { method: request.method, url: request.url.replace(/\?.*$/, '?[redacted]'), status: reply.statusCode, ms: Math.round(reply.elapsedTime) };
    if (error) request.log.error({ ...line, err: error }, 'request errored');
    else request.log.info(line, 'request completed');
  }
}

/** helmet's headers with the api's options for its JSON answers, written once (they never change). */
async function securityHeaders() {
  const headers = {};
  const response = { setHeader: (name, value) => void (headers[name.toLowerCase()] = value), removeHeader: () => undefined };
  const directives = { defaultSrc: ["'none'"], styleSrc: ["'unsafe-inline'"], imgSrc: ["'self'"], formAction: ["'self'"], baseUri: ["'none'"], frameAncestors: ["'none'"] };
  const options = { contentSecurityPolicy: { useDefaults: false, directives }, xFrameOptions: false, referrerPolicy: { policy: 'no-referrer' }, crossOriginResourcePolicy: false, strictTransportSecurity: false };
  await new Promise((resolve, reject) => helmet(options)({}, response, (error) => (error ? reject(error) : resolve())));
  return headers;
}

/**
 * A key's fixed-window limit counted in Redis in leases, as the service's Limiter counts it: a tenth of
 * what the window has left is taken at once and spent locally; the key's other requests wait for a
 * lease being taken. `limit` is RATE_LIMIT_API's form, `<points>/<seconds>s`.
 */
function rateLimit(redis, limit) {
  const [points, seconds] = limit.replace(/s$/, '').split('/').map(Number);
  const store = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'baseline:rl:api', points, duration: seconds });
  const leases = new Map();
  const leasing = new Map();
  async function lease(key, size) {
    const answer = await store.consume(key, size).catch((rejection) => {
      if (rejection instanceof RateLimiterRes) return rejection;
      throw rejection;
    });
    const within = answer.consumedPoints <= points ? size : Math.max(0, points - (answer.consumedPoints - size));
    leases.set(key, { left: Math.max(0, within - 1), remaining: answer.remainingPoints, until: Date.now() + answer.msBeforeNext });
    return within > 0;
  }
  return async function take(key) {
    for (let waiting = leasing.get(key); waiting; waiting = leasing.get(key)) await waiting.catch(() => null);
    const current = leases.get(key);
    const live = current && current.until > Date.now() ? current : undefined;
    if (live && live.left > 0) {
      live.left--;
      return true;
    }
    const size = Math.max(1, Math.floor((live ? live.remaining : points) / 10));
    const taken = lease(key, size).finally(() => leasing.delete(key));
    leasing.set(key, taken);
    return taken;
  };
}

/**
 * Adds the contract's per-request work to `app` (made with contractOptions()): the headers on every
 * answer and the rate limit through the function returned (called by the key check with the key id);
 * the metric and the log line are contractOptions()'s logController's.
 */
async function addContractWork(app) {
  const headers = await securityHeaders();
  const redis = new Redis(process.env.REDIS_URL);
  app.addHook('onClose', () => redis.quit());
  const take = rateLimit(redis, process.env.RATE_LIMIT_API ?? '1000000/1s');
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers);
    reply.header('x-request-id', request.id);
    done();
  });
  return take;
}

module.exports = { addContractWork, contractOptions };
