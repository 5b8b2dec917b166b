import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock } from '@app/shared';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { ProductScope } from '../common/scope';

/** Any fixed number: the first half of the advisory lock a product's mode takes while it counts against its cap. */
const CAPACITY_LOCK = 727_002;

/**
 * Entries of a mode that hold a place under the cap: invited and not redeemed with a code still working
 * (an expired code no longer counts), and those being invited right now (held by a request), so that
 * a request waiting for its mails keeps the places it took without keeping a lock. An invited entry
 * whose address became undeliverable (its invitation bounced) holds no place.
 */
const OUTSTANDING = `
  SELECT count(*)::int AS n FROM entries e
  WHERE e.product_id = $1 AND e.mode = $2 AND (
    (e.state = 'invited' AND e.undeliverable_at IS NULL AND EXISTS (SELECT 1 FROM invite_codes c WHERE c.entry_id = e.id AND c.expires_at > $3))
    OR (e.state = 'confirmed' AND e.invite_held_until IS NOT NULL AND e.invite_held_until >= $3))`;

/**
 * A product's capacity cap: at most `capacity` entries of a mode invited and not redeemed. Whoever
 * invites counts and takes its holds in one short transaction under an advisory lock of the product's
 * mode; the lock ends with that transaction, before any mail is waited for (the mailer's handover
 * needs no lock of ours), and the holds keep the places counted until each mail is settled.
 */
@Injectable()
export class Capacity {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  /** The product's cap, or null: no cap, and nothing is counted. */
  async of(scope: ProductScope): Promise<number | null> {
    const [row]: { capacity: number | null }[] = await this.db.query('SELECT capacity FROM products WHERE id = $1', [scope.productId]);
    return row?.capacity ?? null;
  }

  /**
   * The cap and the places free under it now, or null without a cap: what a page that asks before
   * inviting tells. Counted without the lock, so a forecast: the invitations themselves count again.
   */
  async free(scope: ProductScope): Promise<{ cap: number; free: number } | null> {
    const cap = await this.of(scope);
    if (cap === null) return null;
    const [{ n }]: { n: number }[] = await this.db.query(OUTSTANDING, [scope.productId, scope.mode, this.clock.now()]);
    return { cap, free: Math.max(0, cap - n) };
  }

  /** Runs `take` alone among those inviting in the product's mode, with the places free under `cap`; its holds commit with it. */
  async within<T>(scope: ProductScope, cap: number, take: (manager: EntityManager, free: number) => Promise<T>): Promise<T> {
    return this.db.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [CAPACITY_LOCK, `${scope.productId}:${scope.mode}`]);
      const [{ n }]: { n: number }[] = await manager.query(OUTSTANDING, [scope.productId, scope.mode, this.clock.now()]);
      return take(manager, Math.max(0, cap - n));
    });
  }
}

export function capacityReached(cap: number, free: number): ApiError {
  return new ApiError(
    'capacity_reached',
    `The product's capacity of ${cap} invited entries not yet redeemed would be passed: ${free} ${free === 1 ? 'place is' : 'places are'} free. Nothing was changed.`,
  );
}
