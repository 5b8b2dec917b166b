export type FeedbackKind = 'hard_bounce' | 'soft_bounce' | 'complaint';
export interface MailFeedback {
  provider: 'ses' | 'postmark' | 'resend' | 'sendgrid' | 'mailgun' | 'smtp';
  /** The provider's id of this event (its replay key), e.g. SNS MessageId, Svix id, sg_event_id. */
  eventId: string;
  kind: FeedbackKind;
  /** The recipient address as the provider reports it. */
  address: string;
  at: Date;
}
