import { html } from '@app/shared';
import { MailContent, MailLinks, mailButton, mailLayout, textFooter } from './layout';

/** `validFor`: how long the code works (INVITE_CODE_TTL, in words). */
export function invitationMail(productName: string, inviteUrl: string, links: MailLinks, validFor: string): MailContent {
  const yours = `The link is yours alone and works for ${validFor}.`;
  return {
    subject: `You're invited to ${productName}`,
    text: `Your wait is over: you're invited to ${productName}. Use your personal invitation link to get in:

${inviteUrl}

${yours}

${textFooter(links)}`,
    html: mailLayout(
      html`<p>Your wait is over: you're invited to <strong>${productName}</strong>.</p>
${mailButton(inviteUrl, 'Accept my invitation')}
<p style="color:#59636e;font-size:13px">${yours}</p>`,
      links,
    ),
  };
}

/**
 * The one reminder of an invitation not redeemed yet, with the same link as the invitation (no new
 * code). `left`: how long the link still works, in words.
 */
export function invitationReminderMail(productName: string, inviteUrl: string, links: MailLinks, left: string): MailContent {
  const ends = `Your invitation ends in ${left}; after that the link no longer works.`;
  return {
    subject: `Reminder: you're invited to ${productName}`,
    text: `Your invitation to ${productName} is still waiting for you. Use your personal invitation link to get in:

${inviteUrl}

${ends}

${textFooter(links)}`,
    html: mailLayout(
      html`<p>Your invitation to <strong>${productName}</strong> is still waiting for you.</p>
${mailButton(inviteUrl, 'Accept my invitation')}
<p style="color:#59636e;font-size:13px">${ends}</p>`,
      links,
    ),
  };
}
