import { createDocument } from 'zod-openapi';
import { MAIL_HOOK_PATHS } from './mail-hook-paths';
import { PATHS } from './paths';
import { PUBLIC_PATHS } from './public-paths';
import { WEBHOOKS } from './webhooks';

export type OpenApiDocument = ReturnType<typeof createDocument>;

/** The committed copy, from the repository's root; `npm run docs:openapi` writes it. */
export const OPENAPI_FILE = 'docs/openapi.json';

/** The document as the committed file holds it. */
export const serializeDocument = (document: OpenApiDocument) => `${JSON.stringify(document, null, 2)}\n`;

/**
 * The OpenAPI 3.1 document of the HTTP API and its webhooks, built from the zod schemas the handlers
 * validate with and the answers are typed from. Served with `baseUrl` (the instance's PUBLIC_BASE_URL)
 * as its server; without one, as committed in docs/openapi.json, the server is a variable, so that the
 * file does not depend on where it was made.
 */
export function buildOpenApiDocument(baseUrl?: string): OpenApiDocument {
  return createDocument(
    {
      openapi: '3.1.1',
      info: {
        title: 'Waitlist API',
        version: '1',
        // package.json's UNLICENSED: no licence is granted (not the SPDX "Unlicense", which is the opposite).
        // SPDX has no id for that; LicenseRef- is its form for a licence of one's own.
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        // Each instance is self-hosted: its operators, not the authors, answer for it.
        contact: { name: 'The team that runs this instance' },
        description:
          "A waitlist and invitations in front of a product's sign-up. The product's server calls /api/v1 with a secret key to list, invite and manage entries and to check invitations; its sign-up form posts to /public/v1/signups with the publishable key; the service sends signed webhooks when entries change. Errors answer {\"error\": {\"code\", \"message\", \"param\"?}} with the status of the code.",
      },
      servers: baseUrl
        ? [{ url: baseUrl }]
        : [{ url: '{baseUrl}', description: 'Your instance', variables: { baseUrl: { default: 'http://localhost:3000', description: 'Its PUBLIC_BASE_URL.' } } }],
      tags: [
        { name: 'Entries', description: 'The addresses on the waitlist.' },
        { name: 'Line', description: 'The order in which waiting entries are invited, and the history of each entry\'s place.' },
        { name: 'Referrals', description: 'Sign-ups through an entry\'s referral link, their credit, and the team\'s grant and revoke.' },
        { name: 'Invitations', description: 'Inviting entries and checking invitations at sign-up.' },
        { name: 'Releases', description: 'Invitations on a schedule: invite count every tick of a cron expression in a time zone, once across every replica.' },
        { name: 'Sign-up', description: 'Joining the waitlist from a product\'s own form.' },
        { name: 'Sign-up hooks', description: 'Endpoints that login systems (Supabase Auth, Ory Kratos) call at each sign-up, with a hook made in the dashboard.' },
        { name: 'Mail feedback', description: 'Endpoints that mail providers call with bounces and complaints, each off until its settings are set.' },
        { name: 'Document', description: 'This document.' },
        { name: 'Webhooks', description: 'Events the service sends to the endpoints set up in the dashboard.' },
      ],
      paths: { ...PATHS, ...PUBLIC_PATHS, ...MAIL_HOOK_PATHS },
      webhooks: WEBHOOKS,
      components: {
        securitySchemes: {
          secretKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'sk_live_… or sk_test_…',
            description: "A secret key of the product and mode (live or test): Authorization: Bearer sk_…. It sees only that product's entries in that mode; keep it on your server.",
          },
          // A delivery carries no key: the receiver proves the sender by the signature in one of these headers,
          // whichever format the endpoint is set to. OpenAPI has no scheme for an HMAC over the body; apiKey
          // in a header is the nearest, and it tells a receiver's tools which header to check. Declaring no
          // security (security: []) would say a receiver may take deliveries unchecked.
          serviceSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'Service-Signature',
            description:
              "Not a key: t=<unix seconds>,v1=<hex HMAC-SHA256 over \"<t>.<raw body>\"> made with the endpoint's signing secret (whsec_…). Recompute it over the body as received, compare in constant time, refuse a t older than five minutes.",
          },
          standardWebhooksSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'webhook-signature',
            description:
              'Not a key: for endpoints set to the Standard Webhooks format, v1,<base64 HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<raw body>">, checked like any Standard Webhooks signature.',
          },
          loginHookSecret: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'lhsec_…',
            description: "A Kratos sign-up hook's secret, shown once when the hook is made in the dashboard: Authorization: Bearer lhsec_….",
          },
          postmarkBasicAuth: {
            type: 'http',
            scheme: 'basic',
            description: 'MAIL_HOOK_POSTMARK_USERNAME and MAIL_HOOK_POSTMARK_PASSWORD, written into the webhook URL set in Postmark (https://user:password@…).',
          },
          svixSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'svix-signature',
            description: 'Not a key: the Svix signature of a Resend webhook, v1,<base64 HMAC-SHA256 over "<svix-id>.<svix-timestamp>.<raw body>"> under MAIL_HOOK_RESEND_SECRET.',
          },
          sendgridSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Twilio-Email-Event-Webhook-Signature',
            description: "Not a key: SendGrid's ECDSA signature over X-Twilio-Email-Event-Webhook-Timestamp and the raw body, checked with MAIL_HOOK_SENDGRID_PUBLIC_KEY.",
          },
        },
      },
    },
    {
      override: ({ jsonSchema, zodSchema, io }) => {
        // A caught value is what bad input falls back to (an unknown key, an ignored ref), not a default to rely on.
        if (io === 'input' && zodSchema._zod.def.type === 'catch') delete jsonSchema.default;
        // format says it; zod's pattern for a timestamp is a wall of regex nobody reads.
        if (jsonSchema.format === 'date-time') delete jsonSchema.pattern;
        // zod's int() bounds are JavaScript's safe integers, not a limit of ours.
        if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
        if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      },
    },
  );
}
