import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, Release } from '@app/shared';
import { DataSource } from 'typeorm';
import type { ProductScope } from '../common/scope';
import { Capacity } from '../invitations/capacity';
import { MailQuota } from './mail-quota';

/** What a run now would invite, and what bounds it; each bound null when there is none. */
export interface RunForecast {
  asked: number;
  /** Places free under the capacity cap. */
  capacityFree: number | null;
  /** Mails the product's quota still allows this hour and day. */
  quotaRoom: number | null;
  /** People who could be taken from the line, counted up to `asked`. */
  waiting: number;
  invites: number;
}

/**
 * The forecast the dashboard asks "Run now" with: min(count, places under the cap, the mail quota's
 * room, the people in line who could be taken), each read as ReleaseRunner.run and the line's take
 * read them. Counted without locks, so a forecast: the run counts again.
 */
@Injectable()
export class RunForecasts {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly capacity: Capacity,
    private readonly quota: MailQuota,
    private readonly clock: Clock,
  ) {}

  async of(release: Release): Promise<RunForecast> {
    const scope: ProductScope = { productId: release.productId, mode: release.mode };
    const [capacity, room, waiting] = await Promise.all([this.capacity.free(scope), this.quota.room(release.productId), this.waiting(scope, release.count)]);
    const quotaRoom = Number.isFinite(room) ? room : null;
    const invites = Math.min(release.count, capacity?.free ?? Infinity, room, waiting);
    return { asked: release.count, capacityFree: capacity?.free ?? null, quotaRoom, waiting, invites };
  }

  /** The line's take (TAKE_FRONT_OF_LINE) without taking: confirmed, not held, deliverable; at most `limit` counted. */
  private async waiting(scope: ProductScope, limit: number): Promise<number> {
    const [{ n }]: { n: number }[] = await this.db.query(
      `SELECT count(*)::int AS n FROM (
         SELECT 1 FROM entries WHERE product_id = $1 AND mode = $2 AND state = 'confirmed'
           AND (invite_held_until IS NULL OR invite_held_until < $4) AND undeliverable_at IS NULL
         LIMIT $3) waiting`,
      [scope.productId, scope.mode, limit, this.clock.now()],
    );
    return n;
  }
}
