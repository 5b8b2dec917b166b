import type { Translator } from '../i18n/messages';
import type { MailLinks } from './footer';
import type { TemplateValues } from './variables';

const HOUR_MS = 3_600_000;

/**
 * What a template of each kind is given, in the entry's language: the same function for a real mail
 * (the mailer) and for the editor's preview and test mail (the API), so that a test mail reads as the
 * real one would. Durations and dates are said the way the default mail of the kind says them.
 */
export function confirmationValues(t: Translator, productName: string, confirmUrl: string, links: MailLinks, keptForMs: number): TemplateValues {
  return { product_name: productName, confirm_url: confirmUrl, kept_for: t.duration(keptForMs, 'in'), unsubscribe_url: links.unsubscribe };
}

/** The link of a confirmation mail, under PUBLIC_BASE_URL. */
export function confirmationLink(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/confirm/${token}`;
}

/** An invitation sent at `sentAt` whose code works until `expiresAt`. */
export function invitationValues(t: Translator, productName: string, invitationUrl: string, links: MailLinks, sentAt: Date, expiresAt: Date): TemplateValues {
  return {
    product_name: productName,
    invitation_url: invitationUrl,
    valid_for: t.duration(expiresAt.getTime() - sentAt.getTime(), 'for'),
    expires_at: t.dateTime(expiresAt),
    unsubscribe_url: links.unsubscribe,
  };
}

/** A reminder sent at `sentAt` of a code that works until `expiresAt`. */
export function reminderValues(t: Translator, productName: string, invitationUrl: string, links: MailLinks, sentAt: Date, expiresAt: Date): TemplateValues {
  return {
    product_name: productName,
    invitation_url: invitationUrl,
    time_left: t.duration(reminderTimeLeft(sentAt, expiresAt), 'in'),
    expires_at: t.dateTime(expiresAt),
    unsubscribe_url: links.unsubscribe,
  };
}

/** How long a reminder says its link still works: in whole hours (a round sends it a little after its time), at least one. */
export function reminderTimeLeft(sentAt: Date, expiresAt: Date): number {
  return Math.max(1, Math.round((expiresAt.getTime() - sentAt.getTime()) / HOUR_MS)) * HOUR_MS;
}
