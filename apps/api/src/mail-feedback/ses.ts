import type { AppConfig, MailFeedback } from '@app/shared';
import { z } from 'zod';
import { ApiError } from '../common/api-error';
import { ISO_TIME, jsonBody, MailHook, perRecipient, readPayload, unauthorized } from './mail-hook';
import { SNS_MESSAGE, SnsMessages } from './sns';

const RECIPIENTS = z.array(z.object({ emailAddress: z.string() }));

/** An SES notification (notificationType) or an event of a configuration set (eventType): the parts read. */
const SES_EVENT = z.object({
  notificationType: z.string().optional(),
  eventType: z.string().optional(),
  bounce: z.object({ bounceType: z.string(), bouncedRecipients: RECIPIENTS, timestamp: ISO_TIME }).optional(),
  complaint: z.object({ complainedRecipients: RECIPIENTS, timestamp: ISO_TIME, complaintFeedbackType: z.string().optional() }).optional(),
});

/**
 * Amazon SES's bounce and complaint notifications, published to SNS topics that post to the hook. Any
 * AWS account's topic is signed by SNS alike, so only the topics of MAIL_HOOK_SES_TOPIC_ARNS are heard;
 * their subscription is confirmed when SNS asks.
 */
export function sesHook(config: AppConfig): MailHook | null {
  if (config.MAIL_HOOK_SES_TOPIC_ARNS === undefined) return null;
  const topics = new Set(config.MAIL_HOOK_SES_TOPIC_ARNS);
  // Anchored whatever the setting says, so that a pattern without ^ and $ cannot let other hosts through.
  const sns = new SnsMessages(new RegExp(`^(?:${config.MAIL_HOOK_SES_CERT_HOST})$`));
  return {
    provider: 'ses',
    async receive(call) {
      const message = readPayload(SNS_MESSAGE, jsonBody(call));
      if (!topics.has(message.TopicArn)) throw unauthorized('The message comes from an SNS topic that MAIL_HOOK_SES_TOPIC_ARNS does not list.');
      await sns.verify(message);
      if (message.Type === 'SubscriptionConfirmation') await sns.confirm(message);
      return { feedback: message.Type === 'Notification' ? feedbackOf(message.MessageId, message.Message) : [] };
    },
  };
}

/** SES's notification in the SNS message: Permanent bounces are hard, Transient and Undetermined soft. */
function feedbackOf(messageId: string, text: string): MailFeedback[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_request', 'The SNS message is not an Amazon SES notification (its Message is not JSON).');
  }
  const event = readPayload(SES_EVENT, parsed, 'Message');
  const type = event.notificationType ?? event.eventType;
  if (type === 'Bounce') {
    if (!event.bounce) throw new ApiError('invalid_request', 'Message field bounce: a Bounce notification carries its bounce.', { param: 'bounce' });
    const addresses = event.bounce.bouncedRecipients.map((recipient) => recipient.emailAddress);
    return perRecipient('ses', messageId, event.bounce.bounceType === 'Permanent' ? 'hard_bounce' : 'soft_bounce', addresses, event.bounce.timestamp);
  }
  if (type === 'Complaint') {
    if (!event.complaint) throw new ApiError('invalid_request', 'Message field complaint: a Complaint notification carries its complaint.', { param: 'complaint' });
    // A mailbox provider's report that a message is not spam is no complaint.
    if (event.complaint.complaintFeedbackType === 'not-spam') return [];
    const addresses = event.complaint.complainedRecipients.map((recipient) => recipient.emailAddress);
    return perRecipient('ses', messageId, 'complaint', addresses, event.complaint.timestamp);
  }
  return [];
}
