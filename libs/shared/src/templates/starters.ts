import type { TemplateSource } from './engine';
import type { MailKind } from './variables';

const button = (url: string, label: string) =>
  `<p><a href="{{ ${url} }}" style="display:inline-block;padding:10px 18px;background:#1f6feb;color:#fff;border-radius:6px;text-decoration:none">${label}</a></p>`;
const small = (words: string) => `<p style="color:#59636e;font-size:13px">${words}</p>`;

/**
 * What the dashboard's editor starts from where a product has no template: the service's default
 * mail of the kind, written as a template (the unsubscribe footer is added to every mail anyway).
 */
export const STARTERS: Record<MailKind, TemplateSource> = {
  confirmation: {
    subject: 'Confirm your address for the {{ product_name }} waitlist',
    text: `You asked to join the {{ product_name }} waitlist. Confirm your address to take your place in line:

{{ confirm_url }}

If this was not you, ignore this mail: without confirmation the address is removed in {{ kept_for }}.
`,
    html: `<p>You asked to join the <strong>{{ product_name }}</strong> waitlist. Confirm your address to take your place in line.</p>
${button('confirm_url', 'Confirm my address')}
${small('If this was not you, ignore this mail: without confirmation the address is removed in {{ kept_for }}.')}
`,
  },
  invitation: {
    subject: "You're invited to {{ product_name }}",
    text: `Your wait is over: you're invited to {{ product_name }}. Use your personal invitation link to get in:

{{ invitation_url }}

The link is yours alone and works for {{ valid_for }}.
`,
    html: `<p>Your wait is over: you're invited to <strong>{{ product_name }}</strong>.</p>
${button('invitation_url', 'Accept my invitation')}
${small('The link is yours alone and works for {{ valid_for }}.')}
`,
  },
  reminder: {
    subject: "Reminder: you're invited to {{ product_name }}",
    text: `Your invitation to {{ product_name }} is still waiting for you. Use your personal invitation link to get in:

{{ invitation_url }}

Your invitation ends in {{ time_left }}; after that the link no longer works.
`,
    html: `<p>Your invitation to <strong>{{ product_name }}</strong> is still waiting for you.</p>
${button('invitation_url', 'Accept my invitation')}
${small('Your invitation ends in {{ time_left }}; after that the link no longer works.')}
`,
  },
};
