/**
 * Whether a confirmation came sooner after its confirmation mail's handover than a person can open
 * a mail, follow its link and press the page's button (0 seconds: never). The handover is when the
 * mailer stored the link's token, just before it handed the mail to SMTP.
 */
export function tooFast(mailedAt: Date, confirmedAt: Date, seconds: number): boolean {
  return seconds > 0 && confirmedAt.getTime() - mailedAt.getTime() < seconds * 1000;
}
