import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { answerHeaders, errorResponses, requestHeaders } from './operations';

interface MailHookOperation {
  operationId: string;
  summary: string;
  description: string;
  security: ZodOpenApiOperationObject['security'];
  headers?: z.ZodRawShape;
  contentType?: string;
  body: z.ZodType;
  example: unknown;
  /** Only the SES hook asks a server of the provider (SNS's certificate, the subscription link). */
  asksProvider?: boolean;
}

const OFF = 'Off until its settings are set (docs/operations.md): answers 404 without them. A call seen before is taken (204) and changes nothing.';

function mailHook(operation: MailHookOperation): { post: ZodOpenApiOperationObject } {
  return {
    post: {
      operationId: operation.operationId,
      tags: ['Mail feedback'],
      summary: operation.summary,
      description: `${operation.description} ${OFF}`,
      security: operation.security,
      requestParams: { header: requestHeaders(operation.headers) },
      requestBody: { required: true, content: { [operation.contentType ?? 'application/json']: { schema: operation.body, example: operation.example } } },
      responses: {
        204: { description: 'Taken: its bounces and complaints are applied, the rest of what it reports is ignored.', headers: answerHeaders() },
        ...errorResponses({
          400: ['invalid_request'],
          401: ['unauthorized'],
          404: ['not_found'],
          ...(operation.asksProvider ? { 503: ['provider_unavailable'] as const } : {}),
        }),
      },
    },
  };
}

const signatureHeader = (description: string, example: string) => z.string().meta({ description, example });

/** The mail providers' bounce and complaint webhooks, by path: each provider's own payload, verified as it documents. */
export const MAIL_HOOK_PATHS: ZodOpenApiPathsObject = {
  '/hooks/mail/ses': mailHook({
    operationId: 'sesFeedback',
    summary: 'Amazon SES bounces and complaints, through Amazon SNS',
    description:
      "An HTTPS subscription of the SNS topics SES notifies (MAIL_HOOK_SES_TOPIC_ARNS; other topics are refused). Each message is checked with SNS's signature (SignatureVersion 1 or 2) and the certificate at SigningCertURL, fetched over https from SNS's hosts only; a SubscriptionConfirmation is confirmed by getting its SubscribeURL. A Permanent bounce is hard, Transient and Undetermined soft; a complaint is a complaint.",
    security: [],
    contentType: 'text/plain',
    body: z.looseObject({ Type: z.enum(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']), MessageId: z.string(), TopicArn: z.string(), Message: z.string() }).meta({ description: 'An Amazon SNS message, JSON sent as text/plain.' }),
    example: {
      Type: 'Notification',
      MessageId: '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324',
      TopicArn: 'arn:aws:sns:eu-west-1:123456789012:ses-feedback',
      Message: '{"notificationType":"Bounce","bounce":{"bounceType":"Permanent","bouncedRecipients":[{"emailAddress":"ada@example.com"}],"timestamp":"2026-11-23T09:30:00.000Z"},"mail":{}}',
      Timestamp: '2026-11-23T09:30:00.000Z',
      SignatureVersion: '2',
      Signature: 'EXAMPLEpH+…',
      SigningCertURL: 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-….pem',
    },
    asksProvider: true,
  }),
  '/hooks/mail/postmark': mailHook({
    operationId: 'postmarkFeedback',
    summary: 'Postmark bounces and spam complaints',
    description:
      "Postmark's Bounce and Spam Complaint webhooks, with the user name and password of MAIL_HOOK_POSTMARK_USERNAME and MAIL_HOOK_POSTMARK_PASSWORD in the webhook's URL (HTTP basic auth, as Postmark documents). HardBounce and BadEmailAddress are hard, SoftBounce, Transient, DnsError and Blocked soft.",
    security: [{ postmarkBasicAuth: [] }],
    body: z.looseObject({ RecordType: z.string(), ID: z.number(), Type: z.string(), Email: z.string(), BouncedAt: z.string() }).meta({ description: "A Postmark webhook's record." }),
    example: { RecordType: 'Bounce', ID: 692560173, Type: 'HardBounce', TypeCode: 1, MessageID: '883953f4-6105-42a2-a16a-77a8eac79483', Email: 'ada@example.com', BouncedAt: '2026-11-23T09:30:00.000Z' },
  }),
  '/hooks/mail/resend': mailHook({
    operationId: 'resendFeedback',
    summary: 'Resend bounces and complaints',
    description:
      "Resend's email.bounced and email.complained events, signed by Svix with the endpoint's secret (MAIL_HOOK_RESEND_SECRET); refused when svix-timestamp is more than five minutes from now. A Permanent bounce is hard, others soft.",
    security: [{ svixSignature: [] }],
    headers: {
      'svix-id': signatureHeader('The message id.', 'msg_2pJ8Yh6ZqX3l2mJd9bK1f0cQwEr'),
      'svix-timestamp': signatureHeader('Unix seconds.', '1763890200'),
      'svix-signature': signatureHeader('v1,<base64 HMAC-SHA256 over id.timestamp.body>, one per secret, separated by spaces.', 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='),
    },
    body: z.looseObject({ type: z.string(), created_at: z.string(), data: z.looseObject({ to: z.array(z.string()) }) }).meta({ description: 'A Resend webhook event.' }),
    example: { type: 'email.bounced', created_at: '2026-11-23T09:30:00.000Z', data: { email_id: '56761188-7520-42d8-8898-ff6fc54ce618', to: ['ada@example.com'], bounce: { type: 'Permanent', subType: 'General' } } },
  }),
  '/hooks/mail/sendgrid': mailHook({
    operationId: 'sendgridFeedback',
    summary: 'SendGrid bounces, drops and spam reports',
    description:
      "SendGrid's signed Event Webhook: a batch of events, checked with the verification key (MAIL_HOOK_SENDGRID_PUBLIC_KEY). A bounce is hard, a blocked one soft; a drop for a Bounced Address is hard; a spam report is a complaint; other events are ignored.",
    security: [{ sendgridSignature: [] }],
    headers: {
      'X-Twilio-Email-Event-Webhook-Signature': signatureHeader('Base64 DER ECDSA (P-256, SHA-256) signature over the timestamp header and the body.', 'MEUCIQD…'),
      'X-Twilio-Email-Event-Webhook-Timestamp': signatureHeader('Unix seconds.', '1763890200'),
    },
    body: z.array(z.looseObject({ event: z.string(), email: z.string(), timestamp: z.number(), sg_event_id: z.string() })).meta({ description: 'A batch of SendGrid events.' }),
    example: [{ email: 'ada@example.com', timestamp: 1763890200, event: 'bounce', type: 'bounce', sg_event_id: 'ZGVsaXZlcmVkLTAtMjQ0', sg_message_id: '14c5d75ce93.dfd.64b469' }],
  }),
  '/hooks/mail/mailgun': mailHook({
    operationId: 'mailgunFeedback',
    summary: 'Mailgun failures and complaints',
    description:
      "Mailgun's webhooks (JSON), with the signature in the body: HMAC-SHA256 of timestamp and token under the signing key (MAIL_HOOK_MAILGUN_SIGNING_KEY). A timestamp more than fifteen minutes from now, or a token seen before, is refused. A permanent failure is hard, a temporary one soft; a complaint is a complaint.",
    security: [],
    body: z.looseObject({ signature: z.object({ timestamp: z.string(), token: z.string(), signature: z.string() }), 'event-data': z.looseObject({ event: z.string() }) }).meta({ description: 'A Mailgun webhook call.' }),
    example: {
      signature: { timestamp: '1763890200', token: 'e0b5477167110d68991efc6b9f89f0a11066af27834600e123', signature: '12d99f5a15355c180971bed7494d578b093c958f57766f3fe750761baed12345' },
      'event-data': { id: 'CPgfbmQMTCKtHW6uIWtuVe', event: 'failed', severity: 'permanent', recipient: 'ada@example.com', timestamp: 1763890200.5 },
    },
  }),
};
