import { Metrics } from '../metrics/metrics';
import type { FeedbackKind } from './feedback';

/**
 * The bounces and complaints applied, counted once per provider event (not per entry it touched), in
 * the api (the providers' hooks) and the mailer (refusals at handover): summed over the processes, and
 * over waitlist_mails_total, they are the rates the providers watch (docs/operations/alerts.yml).
 */
export function feedbackCounter(metrics: Metrics): (kind: FeedbackKind) => void {
  const bounces = metrics.counter({
    name: 'waitlist_mail_bounces_total',
    help: 'Bounces applied, once per provider event, by kind: hard (or a 5xx at handover with MAIL_BOUNCE_ON_REFUSAL), or soft',
    labelNames: ['kind'],
  });
  const complaints = metrics.counter({ name: 'waitlist_mail_complaints_total', help: 'Complaints (marked as spam) applied, once per provider event' });
  return (kind) => (kind === 'complaint' ? complaints.inc() : bounces.inc({ kind: kind === 'hard_bounce' ? 'hard' : 'soft' }));
}
