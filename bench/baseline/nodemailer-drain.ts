import { confirmationLink, newToken, translator } from '@app/shared';
import nodemailer from 'nodemailer';
import { SMTP_POOL } from '../../apps/mailer/src/mail-transport';
import { confirmationMail } from '../../apps/mailer/src/mails/confirmation';

/**
 * The confirmation-drain benchmark's baseline: nodemailer alone, with the mailer's pool (SMTP_POOL),
 * handing COUNT mails of the mailer's confirmation size to SMTP_URL, all given to the pool at once.
 * The mails are made at start, outside the clock; run forked (dist/bench/baseline), it answers
 * { type: 'ready' } and, on { type: 'go' }, sends them, answers { type: 'done' } (or { type: 'failed' }) and exits.
 */
const { SMTP_URL, PUBLIC_BASE_URL, PREFIX } = process.env as Record<string, string>;
const COUNT = Number(process.env.COUNT);
/** The mailer's default PENDING_ENTRY_TTL, which the mail names. */
const KEPT_FOR_MS = 14 * 86_400_000;

const t = translator('en');
const mails = Array.from({ length: COUNT }, (_, i) => {
  const unsubscribe = `${PUBLIC_BASE_URL}/unsubscribe/${newToken()}`;
  const links = { unsubscribe, myData: `${PUBLIC_BASE_URL}/w/pk_test_0123456789abcdef/my-data` };
  return {
    from: { name: 'Drain', address: 'no-reply@localhost' },
    to: `${PREFIX}-${i}@example.com`,
    ...confirmationMail(t, 'Drain', confirmationLink(PUBLIC_BASE_URL, newToken()), links, KEPT_FOR_MS),
    headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
});

process.on('message', (message: { type: string }) => {
  if (message.type !== 'go') return;
  const transport = nodemailer.createTransport({ url: SMTP_URL, ...SMTP_POOL });
  Promise.all(mails.map((mail) => transport.sendMail(mail))).then(
    // Then it exits of itself (a --cpu-prof profile is written at exit).
    () => process.send!({ type: 'done' }, () => {
      transport.close();
      process.disconnect();
    }),
    (error: Error) => process.send!({ type: 'failed', message: error.message }),
  );
});
process.send!({ type: 'ready' });
