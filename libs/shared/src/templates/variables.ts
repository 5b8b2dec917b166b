/** The mails a product may write its own template for. */
export const MAIL_KINDS = ['confirmation', 'invitation', 'reminder'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

export function isMailKind(value: unknown): value is MailKind {
  return typeof value === 'string' && (MAIL_KINDS as readonly string[]).includes(value);
}

export interface TemplateVariable {
  /** What it holds, as the dashboard and docs/templates.md say it. */
  about: string;
  /** Its value in the check at save (a preview and a test mail carry a real mail's values, templates/values.ts). */
  sample: string;
}

/**
 * What each kind's template may show, and nothing else: every value is text the service makes. No
 * code of its own: an invitation's code reaches a template inside invitation_url only, and a
 * confirmation knows nothing of invitations.
 */
const PRODUCT_NAME: TemplateVariable = { about: 'The product’s name.', sample: 'Acme' };
const UNSUBSCRIBE_URL: TemplateVariable = { about: 'The link that unsubscribes the address (the service adds it below every mail anyway).', sample: 'https://waitlist.example/unsubscribe/sample-unsubscribe-token' };
const EXPIRES_AT: TemplateVariable = { about: 'When the link stops working, in UTC, written the entry’s language’s way ("2026-12-25 09:00 UTC").', sample: '2026-12-25 09:00 UTC' };

export const TEMPLATE_VARIABLES: Record<MailKind, Record<string, TemplateVariable>> = {
  confirmation: {
    product_name: PRODUCT_NAME,
    confirm_url: { about: 'The link that confirms the address (required in the text and the HTML).', sample: 'https://waitlist.example/confirm/sample-confirmation-token' },
    kept_for: { about: 'How long an unconfirmed address is kept, in words of the entry’s language ("3 days").', sample: '3 days' },
    unsubscribe_url: UNSUBSCRIBE_URL,
  },
  invitation: {
    product_name: PRODUCT_NAME,
    invitation_url: { about: 'The personal invitation link, holding the code (required in the text and the HTML).', sample: 'https://acme.example/welcome?invite=sample-invitation-code' },
    valid_for: { about: 'How long the link works, in words of the entry’s language ("30 days").', sample: '30 days' },
    expires_at: EXPIRES_AT,
    unsubscribe_url: UNSUBSCRIBE_URL,
  },
  reminder: {
    product_name: PRODUCT_NAME,
    invitation_url: { about: 'The same invitation link as the invitation’s (required in the text and the HTML).', sample: 'https://acme.example/welcome?invite=sample-invitation-code' },
    time_left: { about: 'How long the link still works, in words of the entry’s language ("24 hours").', sample: '24 hours' },
    expires_at: EXPIRES_AT,
    unsubscribe_url: UNSUBSCRIBE_URL,
  },
};

/** The link without which a mail of the kind is of no use: its text and HTML must both show it. */
export const REQUIRED_LINK: Record<MailKind, string> = {
  confirmation: 'confirm_url',
  invitation: 'invitation_url',
  reminder: 'invitation_url',
};

/** A kind's values, by variable name. */
export type TemplateValues = Record<string, string>;

export function sampleValues(kind: MailKind): TemplateValues {
  return Object.fromEntries(Object.entries(TEMPLATE_VARIABLES[kind]).map(([name, variable]) => [name, variable.sample]));
}
