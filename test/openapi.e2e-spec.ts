import { Validator } from '@seriousme/openapi-schema-validator';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument, OPENAPI_FILE, serializeDocument } from '../apps/api/src/openapi/document';
import { WAITING_ENTRY } from '../apps/api/src/openapi/examples';
import { bearer } from './support/flows';
import { Answer, deliveryProblems, exampleProblems, expectDocumentedAnswer, openApiProblems, validatingFetch } from './support/openapi';
import { Stack } from './support/stack';

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(serializeDocument(buildOpenApiDocument())));
    expect(result.errors ?? []).toEqual([]);
    expect(validator.version).toBe('3.1');
  });

  it('is committed as docs/openapi.json as the code builds it', () => {
    const committed = readFileSync(join(__dirname, '..', OPENAPI_FILE), 'utf8');
    if (committed !== serializeDocument(buildOpenApiDocument())) {
      throw new Error(`${OPENAPI_FILE} is stale: run \`npm run docs:openapi\` and commit it.`);
    }
  });

  it('holds examples that match their own schemas', () => {
    expect(exampleProblems()).toEqual([]);
  });
});

describe('GET /api/v1/openapi.json', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { PUBLIC_BASE_URL: 'https://waitlist.example.com' } });
  });
  afterAll(() => stack.stop());

  it('answers the document without a key, with this instance as its server, cacheable', async () => {
    const response = await stack.request({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('public, max-age=3600');
    expect(response.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument('https://waitlist.example.com'))));
    expect(response.json().servers).toEqual([{ url: 'https://waitlist.example.com' }]);
  });

  it('is checked by validatingFetch over HTTP, as a client sees it', async () => {
    const url = await stack.url();
    const checked = validatingFetch();
    expect((await checked(`${url}/api/v1/openapi.json`)).status).toBe(200);
    const refused = await checked(`${url}/api/v1/entries`, { headers: bearer('sk_test_unknown') });
    expect(await refused.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
  });
});

describe('the answer check', () => {
  const entry = WAITING_ENTRY;
  const json = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req-1' };
  const answer = (overrides: Partial<Answer>): Answer => ({ method: 'GET', url: `/api/v1/entries/${entry.id}`, status: 200, headers: json, body: JSON.stringify(entry), ...overrides });

  it('passes answers the document describes', () => {
    expect(openApiProblems(answer({}))).toEqual([]);
    expect(openApiProblems(answer({ method: 'DELETE', status: 204, headers: { 'x-request-id': 'req-1' }, body: '' }))).toEqual([]);
    const limited = { error: { code: 'rate_limited', message: 'Too many requests with this key; try again in 1 s.' } };
    expect(openApiProblems(answer({ status: 429, headers: { ...json, 'retry-after': '1' }, body: JSON.stringify(limited) }))).toEqual([]);
  });

  it('refuses an undocumented status, naming the request and the status', () => {
    expect(() => expectDocumentedAnswer(answer({ status: 500, body: '{"error":{"code":"internal_error","message":"…"}}' }))).toThrow(
      /^GET \/api\/v1\/entries\/ent_\w+ answered 500, which the OpenAPI document does not describe:\n- status 500 is not documented/,
    );
  });

  it('refuses a body that does not match, naming what does not', () => {
    const { referrals: _, ...withoutReferrals } = entry;
    expect(openApiProblems(answer({ body: JSON.stringify({ ...withoutReferrals, secret: 'x' }) }))).toEqual([
      expect.stringMatching(/^body .*must have required property 'referrals'.*must NOT have additional properties/),
    ]);
    expect(openApiProblems(answer({ body: JSON.stringify({ ...entry, createdAt: 'yesterday' }) }))).toEqual([expect.stringMatching(/^body \/createdAt must match format "date-time"/)]);
    expect(openApiProblems(answer({ headers: { ...json, 'content-type': 'text/html' }, body: '<p>hello</p>' }))).toEqual(['a body of type text/html, documented: application/json']);
    expect(openApiProblems(answer({ method: 'DELETE', status: 204, headers: json, body: '{}' }))).toEqual(['a body of type application/json, documented: no body']);
  });

  it('refuses an error code the route does not answer', () => {
    const body = JSON.stringify({ error: { code: 'invalid_cursor', message: 'The cursor was not issued for this listing.' } });
    expect(openApiProblems({ method: 'POST', url: '/api/v1/invited', status: 400, headers: json, body })).toEqual([
      expect.stringMatching(/^body \/error\/code must be equal to one of the allowed values/),
    ]);
  });

  it('refuses an answer without X-Request-Id or with one the service would not take, except a 400 for a request it could not read', () => {
    const { 'x-request-id': _, ...withoutId } = json;
    expect(openApiProblems(answer({ headers: withoutId }))).toEqual(['header X-Request-Id is missing']);
    expect(openApiProblems(answer({ headers: { ...json, 'x-request-id': 'a line\nforged' } }))).toEqual([expect.stringMatching(/^header X-Request-Id: .* must match pattern/)]);
    const unreadable = JSON.stringify({ error: { code: 'invalid_request', message: 'The URL could not be read.' } });
    expect(openApiProblems(answer({ status: 400, headers: withoutId, body: unreadable }))).toEqual([]);
  });

  it('refuses a 429 without Retry-After', () => {
    const body = JSON.stringify({ error: { code: 'rate_limited', message: 'Too many requests.' } });
    expect(openApiProblems(answer({ status: 429, body }))).toEqual(['header Retry-After is missing']);
  });

  it('leaves out what the document does not cover: other paths, and methods a documented path does not have', () => {
    expect(openApiProblems({ method: 'GET', url: '/dashboard/login', status: 200, headers: { 'content-type': 'text/html' }, body: '<html></html>' })).toEqual([]);
    expect(openApiProblems({ method: 'PUT', url: '/api/v1/entries', status: 404, headers: json, body: '{"error":{"code":"not_found","message":"No such resource."}}' })).toEqual([]);
  });

  it('checks webhook deliveries against the webhooks: the envelope, a known type, one signature format', () => {
    const event = { id: 'evt_1', type: 'entry.confirmed', createdAt: '2026-11-23T09:30:00.000Z', mode: 'live', productId: 'prod_1', data: { entry } };
    const ours = { 'service-event': 'entry.confirmed', 'service-delivery': 'dlv_1', 'service-signature': 't=1,v1=00' };
    const standard = { 'service-event': 'entry.confirmed', 'service-delivery': 'dlv_1', 'webhook-id': 'evt_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,AA==' };
    expect(deliveryProblems(ours, JSON.stringify(event))).toEqual([]);
    expect(deliveryProblems(standard, JSON.stringify(event))).toEqual([]);
    expect(deliveryProblems({ ...ours, 'service-event': 'entry.moved' }, JSON.stringify(event))).toEqual(['Service-Event "entry.moved" is not an event of the document']);
    expect(deliveryProblems({ ...standard, 'service-signature': 't=1,v1=00' }, JSON.stringify(event))).toEqual([
      'the headers of exactly one signature format, ours or Standard Webhooks, were expected',
    ]);
    expect(deliveryProblems(ours, JSON.stringify({ ...event, data: { entry, code: 'secret' } }))).toEqual([expect.stringMatching(/^body \/data must NOT have additional properties/)]);
  });

  it('makes validatingFetch reject an answer that does not match', async () => {
    const wrong = async () => new Response('{"valid":"yes"}', { status: 200, headers: json });
    await expect(validatingFetch(wrong)('http://localhost/api/v1/invites/verify', { method: 'POST' })).rejects.toThrow(
      /^POST \/api\/v1\/invites\/verify answered 200, which the OpenAPI document does not describe/,
    );
  });
});
