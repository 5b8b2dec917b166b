import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, Product } from '@app/shared';
import { DataSource } from 'typeorm';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The start of the fixed window (UTC clock hour or day) that `now` falls in. */
export function windowStart(now: Date, lengthMs: number): Date {
  return new Date(now.getTime() - (now.getTime() % lengthMs));
}

/**
 * A product's mail quota (mailQuotaHourly, mailQuotaDaily): how many invitation mails a release may
 * still send in this UTC hour and day. Every invitation mail of the product counts (both modes, any
 * route), as its code: a code is written just before its mail leaves and taken back when the mail
 * never started. A release's count beyond the room waits for its next run in a window with room.
 */
@Injectable()
export class MailQuota {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  /** Infinity without a quota. */
  async room(productId: string): Promise<number> {
    const product = await this.db.getRepository(Product).findOne({ where: { id: productId }, select: { id: true, mailQuotaHourly: true, mailQuotaDaily: true } });
    const { mailQuotaHourly: hourly = null, mailQuotaDaily: daily = null } = product ?? {};
    if (hourly === null && daily === null) return Infinity;
    const now = this.clock.now();
    const [{ hour, day }]: { hour: number; day: number }[] = await this.db.query(
      `SELECT count(*) FILTER (WHERE c.created_at >= $3)::int AS hour, count(*)::int AS day
       FROM invite_codes c JOIN entries e ON e.id = c.entry_id WHERE e.product_id = $1 AND c.created_at >= $2`,
      [productId, windowStart(now, DAY_MS), windowStart(now, HOUR_MS)],
    );
    return Math.max(0, Math.min(hourly === null ? Infinity : hourly - hour, daily === null ? Infinity : daily - day));
  }
}
