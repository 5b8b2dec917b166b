import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { leaderboardShows, Product } from '@app/shared';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { ProductScope } from '../common/scope';
import { KeysService } from '../keys/keys.service';
import type { Leader, Leaderboard } from './leaderboard.dto';
import { maskedEmail } from './masked-email';

/**
 * How long a leaderboard is served from memory: a credit, a grant or a revoke shows within this, on
 * every replica, with no invalidation to send (docs/decisions/referrals.md, *Leaderboard*).
 */
export const LEADERBOARD_CACHE_MS = 2_000;

/** A referrer on the leaderboard as the team sees it: the whole address, and its entry. */
export interface Referrer extends Leader {
  id: string;
}

/** A product and mode's leaderboard as read: null when the product does not show it in that mode. */
type Board = Referrer[] | null;

/**
 * The top referrers of a product and mode by credited referrals, at equal counts in line order: the
 * first rows of the entries_leaderboard index (LIMIT of at most 100, whatever the line's length),
 * read at most once per LEADERBOARD_CACHE_MS per product and mode and process.
 */
@Injectable()
export class LeaderboardService {
  private readonly boards = new Map<string, { until: number; board: Promise<Board> }>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly keys: KeysService,
  ) {}

  /** The public leaderboard of a publishable key's product and mode, masked; 404 unless it opted in. */
  async ofPublishableKey(key: string): Promise<Leaderboard> {
    const scope = await this.keys.authenticate(key, 'publishable');
    if (!scope) throw new ApiError('unauthorized', 'Unknown or revoked publishable key.', { param: 'key' });
    const board = await this.maskedBoard(scope);
    if (!board) throw new ApiError('not_found', 'This product shows no leaderboard.');
    return { data: board };
  }

  /** The leaderboard as the public sees it (the status page, the form's result); null when not shown in this mode. */
  async maskedBoard(scope: ProductScope): Promise<Leader[] | null> {
    const board = await this.board(scope);
    return board && masked(board);
  }

  /** The leaderboard with whole addresses, for the team; null when the product does not show one in this mode. */
  async board(scope: ProductScope): Promise<Board> {
    const line = `${scope.productId}|${scope.mode}`;
    const now = Date.now();
    const cached = this.boards.get(line);
    if (cached && cached.until > now) return cached.board;
    const board = this.read(scope);
    this.boards.set(line, { until: now + LEADERBOARD_CACHE_MS, board });
    // A failed read is not kept: the next call asks again.
    board.catch(() => this.boards.delete(line));
    return board;
  }

  private async read(scope: ProductScope): Promise<Board> {
    const product = await this.db.getRepository(Product).findOneBy({ id: scope.productId });
    if (!product || !leaderboardShows(product.leaderboard, scope.mode)) return null;
    const rows: { id: string; email: string; referrals: number }[] = await this.db.query(
      `SELECT id, email, referrals FROM entries WHERE product_id = $1 AND mode = $2 AND referrals > 0
       ORDER BY referrals DESC, line_key, confirmation_seq LIMIT $3`,
      [scope.productId, scope.mode, product.leaderboardSize],
    );
    return rows.map((row, index) => ({ rank: index + 1, ...row }));
  }
}

const masked = (board: Referrer[]): Leader[] => board.map(({ rank, email, referrals }) => ({ rank, email: maskedEmail(email), referrals }));
