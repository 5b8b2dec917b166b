import { html } from '@app/shared';
import { MailContent, MailLinks, mailButton, mailLayout, textFooter } from './layout';

/** The answer to the my-data form: a signed link that works for `validFor` (MY_DATA_LINK_MS, in words). */
export function myDataMail(productName: string, dataUrl: string, links: MailLinks, validFor: string): MailContent {
  const notYou = `The link works for ${validFor}. If you did not ask for it, ignore this mail: nothing changes.`;
  return {
    subject: `The link to your data on the ${productName} waitlist`,
    text: `You asked to see what the ${productName} waitlist keeps about you. This link shows it, lets you download it and lets you delete it:

${dataUrl}

${notYou}

${textFooter(links)}`,
    html: mailLayout(
      html`<p>You asked to see what the <strong>${productName}</strong> waitlist keeps about you. This link shows it, lets you download it and lets you delete it.</p>
${mailButton(dataUrl, 'See my data')}
<p style="color:#59636e;font-size:13px">${notYou}</p>`,
      links,
    ),
  };
}
