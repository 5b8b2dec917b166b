/**
 * The development inbox (SMTP_URL unset): the mailer keeps the newest mails in a Redis list and the
 * API shows them at /dev/mail. Development only; nothing of it runs when SMTP_URL is set.
 */
export const DEV_INBOX_SIZE = 100;

export const devInboxKey = (queuePrefix: string) => `${queuePrefix}:dev-inbox`;

export interface DevMail {
  id: string;
  receivedAt: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}
