import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument, OpenApiDocument } from '../../apps/api/src/openapi/document';

/**
 * Every answer the e2e tests get from a documented operation must be one the OpenAPI document
 * describes: its status documented for that operation, each header the document requires present and
 * well formed, and a body of a documented media type, a JSON body matching its schema (ajv, JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1, with formats). Stack.request checks every answer;
 * validatingFetch does the same for tests that talk HTTP with fetch.
 *
 * Out of scope, so not checked: paths the document does not have (hosted pages, the dashboard, Bull
 * Board, the development inbox, health checks, unknown paths) and methods a documented path does not
 * have (the router's 404 for an unknown route). Requests Node's HTTP parser refuses never reach a route
 * and never come through either.
 */

type HeaderValue = string | string[] | number | undefined;

export interface Answer {
  method: string;
  /** The request's path and query, or a whole URL. */
  url: string;
  status: number;
  headers: Record<string, HeaderValue>;
  body: string;
}

interface MediaType {
  schema?: unknown;
}
interface HeaderObject {
  $ref?: string;
  required?: boolean;
  schema?: unknown;
}
interface ResponseObject {
  $ref?: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, MediaType>;
}
interface Operation {
  responses: Record<string, ResponseObject>;
}

const DOCUMENT_ID = 'openapi.json';

class OpenApiChecker {
  private readonly ajv = new Ajv2020({ allErrors: true, strictTypes: false });
  private readonly validators = new Map<string, ValidateFunction>();
  /** Path templates as patterns, paths without parameters first so that they win over a template. */
  private readonly routes: { template: string; pattern: RegExp }[];

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    // OpenAPI 3.1's own schema keywords, and the document's fields: ajv reads the whole document as the
    // schema that the answers' schemas are parts of, so that their $refs resolve in it.
    this.ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs', 'openapi', 'info', 'servers', 'tags', 'paths', 'webhooks', 'components']);
    this.ajv.addSchema(document, DOCUMENT_ID);
    this.routes = Object.keys(document.paths ?? {})
      .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`), parameters: template.split('{').length }))
      .sort((a, b) => a.parameters - b.parameters);
  }

  /** What does not match in `answer`; none for a matching answer or one out of scope. */
  problems(answer: Answer): string[] {
    const path = new URL(answer.url, 'http://localhost').pathname;
    const template = this.routes.find((route) => route.pattern.test(path))?.template;
    const method = answer.method.toLowerCase();
    const operation = template && ((this.document.paths![template] as Record<string, Operation | undefined>)[method]);
    if (!template || !operation) return [];
    const pointer = ['paths', template, method, 'responses'];
    const documented = operation.responses;
    const status = [String(answer.status), `${String(answer.status)[0]}XX`, 'default'].find((key) => documented[key]);
    if (!status) return [`status ${answer.status} is not documented (documented: ${Object.keys(documented).join(', ')})`];
    let response = documented[status];
    pointer.push(status);
    if (response.$ref) {
      pointer.splice(0, pointer.length, ...response.$ref.replace(/^#\//, '').split('/'));
      response = this.resolve(pointer) as ResponseObject;
    }
    return [...this.headerProblems(answer, response, pointer), ...this.bodyProblems(answer, response, pointer)];
  }

  private headerProblems(answer: Answer, response: ResponseObject, pointer: string[]): string[] {
    return Object.entries(response.headers ?? {}).flatMap(([name, declared]) => {
      // A header shared by many answers is a component (X-Request-Id).
      const at = declared.$ref ? declared.$ref.replace(/^#\//, '').split('/') : [...pointer, 'headers', name];
      const header = this.resolve(at) as HeaderObject;
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) return header.required ? [`header ${name} is missing`] : [];
      const errors = this.validate([...at, 'schema'], String(value));
      return errors ? [`header ${name}: ${JSON.stringify(value)} ${errors}`] : [];
    });
  }

  private bodyProblems(answer: Answer, response: ResponseObject, pointer: string[]): string[] {
    const content = response.content ?? {};
    if (answer.body === '') return Object.keys(content).length ? [`no body, documented: ${Object.keys(content).join(', ')}`] : [];
    const mediaType = String(answer.headers['content-type'] ?? '').split(';')[0].trim();
    if (!content[mediaType]) return [`a body of type ${mediaType || 'none'}, documented: ${Object.keys(content).join(', ') || 'no body'}`];
    if (!/^application\/([\w.-]+\+)?json$/.test(mediaType)) return [];
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return [`a body that is not JSON: ${answer.body.slice(0, 200)}`];
    }
    const errors = this.validate([...pointer, 'content', mediaType, 'schema'], body);
    return errors ? [`body ${errors}: ${answer.body.slice(0, 500)}`] : [];
  }

  /** What does not match in a webhook delivery: an event type the document has, its envelope's schema, the headers of one format. */
  deliveryProblems(headers: Record<string, HeaderValue>, body: string): string[] {
    const type = String(headers['service-event'] ?? '');
    if (!this.document.webhooks?.[type]) return [`Service-Event ${JSON.stringify(type)} is not an event of the document`];
    const formats = [headers['service-signature'] !== undefined, headers['webhook-signature'] !== undefined];
    const problems = formats[0] === formats[1] ? ['the headers of exactly one signature format, ours or Standard Webhooks, were expected'] : [];
    if (!headers['service-delivery']) problems.push('header Service-Delivery is missing');
    let event: unknown;
    try {
      event = JSON.parse(body);
    } catch {
      return [...problems, `a body that is not JSON: ${body.slice(0, 200)}`];
    }
    const errors = this.validate(['webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema'], event);
    return errors ? [...problems, `body ${errors}: ${body.slice(0, 500)}`] : problems;
  }

  /** Every example beside a schema (media types, parameters, headers) that its schema refuses. */
  exampleProblems(node: unknown = this.document, pointer: string[] = []): string[] {
    if (typeof node !== 'object' || node === null) return [];
    const { schema, example, examples } = node as { schema?: unknown; example?: unknown; examples?: Record<string, { value: unknown }> };
    const given = schema === undefined ? [] : [...(example === undefined ? [] : [example]), ...Object.values(examples ?? {}).map(({ value }) => value)];
    const own = given.flatMap((value) => {
      const errors = this.validate([...pointer, 'schema'], value);
      return errors ? [`${pointer.join(' ')}: example ${JSON.stringify(value)} ${errors}`] : [];
    });
    return [...own, ...Object.entries(node).flatMap(([key, child]) => this.exampleProblems(child, [...pointer, key]))];
  }

  /** The schema at `pointer` checked against `value`: null when it matches, else what did not. */
  private validate(pointer: string[], value: unknown): string | null {
    const ref = `${DOCUMENT_ID}#/${pointer.map((segment) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
    let validator = this.validators.get(ref);
    if (!validator) {
      validator = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validator);
    }
    if (validator(value)) return null;
    return (validator.errors ?? [])
      .map(({ instancePath, message, params }) => `${instancePath || '(the whole)'} ${message}${params.allowedValues ? ` (${params.allowedValues.join(', ')})` : ''}`)
      .join('; ');
  }

  private resolve(pointer: string[]): unknown {
    return pointer.reduce<unknown>((node, segment) => (node as Record<string, unknown>)[segment], this.document);
  }
}

let built: OpenApiChecker | undefined;
const checker = () => (built ??= new OpenApiChecker(buildOpenApiDocument()));

/** What in `answer` does not match the document built from the code (empty when all does, or it is out of scope). */
export function openApiProblems(answer: Answer): string[] {
  return checker().problems(answer);
}

/** What in a webhook delivery the service sent does not match the document's webhooks (empty when all does). */
export function deliveryProblems(headers: Record<string, HeaderValue>, body: string): string[] {
  return checker().deliveryProblems(headers, body);
}

/** The document's examples that their own schemas refuse. */
export function exampleProblems(): string[] {
  return checker().exampleProblems();
}

/** Throws, naming the request, the status and what does not match, unless `answer` matches the document. */
export function expectDocumentedAnswer(answer: Answer): void {
  const problems = openApiProblems(answer);
  if (problems.length) {
    const path = new URL(answer.url, 'http://localhost').pathname;
    throw new Error(`${answer.method} ${path} answered ${answer.status}, which the OpenAPI document does not describe:\n- ${problems.join('\n- ')}`);
  }
}

/** A fetch that checks every answer with expectDocumentedAnswer before handing it back. */
export function validatingFetch(inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    expectDocumentedAnswer({
      method: init?.method ?? (input instanceof Request ? input.method : 'GET'),
      url: input instanceof Request ? input.url : String(input),
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: await response.clone().text(),
    });
    return response;
  };
}
