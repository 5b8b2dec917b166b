import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, applyFeedback, Clock, EntryRecord, feedbackCounter, MailFeedback, Metrics } from '@app/shared';
import { DataSource, IsNull, Not } from 'typeorm';
import type { ProductScope } from '../common/scope';
import { notFound } from '../entries/entries.service';
import { unsubscribeEntry } from '../signups/signups.service';

/** How many undeliverable entries the dashboard's list shows, the most recent first. */
export const UNDELIVERABLE_PAGE = 200;

/**
 * Bounces and complaints that mail providers report (their hooks call apply), acted on once each by
 * the rule in libs/shared (applyFeedback), with a complaint unsubscribing as the hosted unsubscribe
 * does; and the dashboard's list of undeliverable entries, each cleared by the team.
 */
@Injectable()
export class MailFeedbackService {
  private readonly count;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    metrics: Metrics,
  ) {
    this.count = feedbackCounter(metrics);
  }

  /** Each item in a transaction of its own, in the order given; one applied before (same provider and event id) changes nothing. */
  async apply(feedback: MailFeedback[]): Promise<void> {
    for (const item of feedback) {
      const rules = { now: this.clock.now(), softBounceLimit: this.config.MAIL_SOFT_BOUNCE_LIMIT, unsubscribe: unsubscribeEntry };
      if (await this.db.transaction((manager) => applyFeedback(manager, item, rules))) this.count(item.kind);
    }
  }

  /** The undeliverable entries of a product's mode, the most recently marked first. */
  async undeliverable(scope: ProductScope): Promise<EntryRecord[]> {
    return this.db.getRepository(EntryRecord).find({
      where: { productId: scope.productId, mode: scope.mode, undeliverableAt: Not(IsNull()) },
      order: { undeliverableAt: 'DESC', id: 'ASC' },
      take: UNDELIVERABLE_PAGE,
    });
  }

  /** The team's word that the address takes mail again: deliverable, its soft bounces forgotten. No event. */
  async clear(scope: ProductScope, id: string): Promise<void> {
    const [, cleared]: [unknown, number] = await this.db.query(
      `UPDATE entries SET undeliverable_at = NULL, soft_bounces = 0 WHERE id = $1 AND product_id = $2 AND mode = $3`,
      [id, scope.productId, scope.mode],
    );
    if (cleared === 0) throw notFound();
  }
}
