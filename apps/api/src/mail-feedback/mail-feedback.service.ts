import { Injectable } from '@nestjs/common';
import type { MailFeedback } from '@app/shared';

/**
 * STUB, replaced at merge by the real service of the bounces branch (what a bounce or complaint does to
 * its address). It does nothing: the hooks' tests watch what they hand to apply().
 */
@Injectable()
export class MailFeedbackService {
  /** Acts on each feedback once by provider and eventId. */
  apply(feedback: MailFeedback[]): Promise<void> {
    void feedback;
    return Promise.resolve();
  }
}
