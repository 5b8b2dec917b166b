import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiKey, Clock, hashToken, hashTokenHex, KeyKind, Mode, newId, newToken } from '@app/shared';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import type { KeyScope, ProductScope } from '../common/scope';
import { CachedKey, KEY_REVOKED_CHANNEL, KeyCache } from './key-cache';

export interface KeyPair {
  secret: string;
  publishable: string;
}

/** How precisely a key's last use is kept: at most one write per key and process in this time. */
const LAST_USED_RESOLUTION_MS = 60_000;

@Injectable()
export class KeysService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly cache: KeyCache,
  ) {}

  /** Key lookups under way, by hash, with the cache's version when each started. */
  private readonly lookups = new Map<string, { version: number; found: Promise<CachedKey | null> }>();

  /** A new secret and publishable key for a product and mode; the keys are returned once, stored hashed. */
  async createPair(productId: string, mode: Mode, manager: EntityManager = this.db.manager): Promise<KeyPair> {
    const pair = { secret: newToken(`sk_${mode}_`), publishable: newToken(`pk_${mode}_`) };
    const now = this.clock.now();
    const row = (kind: KeyKind, key: string, hint: string) => ({
      id: newId('key'),
      productId,
      mode,
      kind,
      hash: hashToken(key),
      hint,
      createdAt: now,
    });
    await manager.insert(ApiKey, [
      row('secret', pair.secret, `${pair.secret.slice(0, 12)}…${pair.secret.slice(-4)}`),
      row('publishable', pair.publishable, pair.publishable),
    ]);
    return pair;
  }

  /**
   * Revokes a key in use, secret or publishable, and with `pair` the other key of its pair too (if that
   * one is in use); the kinds revoked, none when no such key is in use.
   */
  async revoke(key: string, { pair = false } = {}): Promise<KeyKind[]> {
    const kind = kindOf(key);
    const found = kind && (await this.db.getRepository(ApiKey).findOneBy({ hash: hashToken(key), kind, revokedAt: IsNull() }));
    if (!found) return [];
    const partner = pair ? await this.pairOf(found) : null;
    return this.revokeWhere('id = ANY($2)', [[found.id, ...(partner ? [partner.id] : [])]]);
  }

  /** The keys of a product and mode, newest first, as the dashboard lists them. */
  async list(productId: string, mode: Mode): Promise<ApiKey[]> {
    return this.db.getRepository(ApiKey).find({ where: { productId, mode }, order: { createdAt: 'DESC', kind: 'DESC' } });
  }

  /** The newest publishable key in use of a product and mode, which names its my-data page in mails; null without one. */
  async publishableInUse(productId: string, mode: Mode): Promise<string | null> {
    const key = await this.db.getRepository(ApiKey).findOne({ where: { productId, mode, kind: 'publishable', revokedAt: IsNull() }, order: { createdAt: 'DESC' } });
    return key?.hint ?? null;
  }

  /** A key of this product and mode that is in use, with the other key of its pair (made in the same instant), if any. */
  async inUse(scope: ProductScope, keyId: string): Promise<{ key: ApiKey; pairedWith: ApiKey | null } | null> {
    const keys = this.db.getRepository(ApiKey);
    const key = await keys.findOneBy({ id: keyId, productId: scope.productId, mode: scope.mode, revokedAt: IsNull() });
    if (!key) return null;
    return { key, pairedWith: await this.pairOf(key) };
  }

  /** The other key of a key's pair: the other kind, of the same product and mode, made in the same instant. */
  private pairOf(key: ApiKey): Promise<ApiKey | null> {
    return this.db
      .getRepository(ApiKey)
      .findOneBy({ productId: key.productId, mode: key.mode, createdAt: key.createdAt, kind: key.kind === 'secret' ? 'publishable' : 'secret' });
  }

  /** Revokes a key of this product and mode; false when it has no such key in use. */
  async revokeById(scope: ProductScope, keyId: string): Promise<boolean> {
    return (await this.revokeWhere('id = $2 AND product_id = $3 AND mode = $4', [keyId, scope.productId, scope.mode])).length > 0;
  }

  /**
   * Revokes the unrevoked key that `where` names and announces it to every process (KeyCache): the
   * notification leaves with the commit. This process forgets the key at once.
   */
  private async revokeWhere(where: string, parameters: unknown[]): Promise<KeyKind[]> {
    const revoked: { hash: string; kind: KeyKind }[] = await this.db.query(
      `WITH revoked AS (UPDATE api_keys SET revoked_at = $1 WHERE ${where} AND revoked_at IS NULL RETURNING encode(hash, 'hex') AS hash, kind)
       SELECT hash, kind, pg_notify('${KEY_REVOKED_CHANNEL}', hash) FROM revoked ORDER BY kind DESC`,
      [this.clock.now(), ...parameters],
    );
    for (const { hash } of revoked) this.cache.forget(hash);
    return revoked.map((key) => key.kind);
  }

  /** The scope of a valid, unrevoked key of the given kind, or null. */
  async authenticate(key: string, kind: KeyKind): Promise<KeyScope | null> {
    if (kindOf(key) !== kind || key.length > 200) return null;
    const hex = hashTokenHex(key);
    const now = this.clock.now().getTime();
    const known = this.cache.get(hex) ?? (await this.lookUp(hex));
    if (!known || known.kind !== kind) return null;
    if (kind === 'secret' && now - known.touchedAt >= LAST_USED_RESOLUTION_MS) {
      known.touchedAt = now;
      this.touch(known.scope.keyId, now);
    }
    return known.scope;
  }

  /**
   * The key by its hash in PostgreSQL, kept in the cache. The requests that miss the cache together (all
   * of a busy key's, each time its entry expires) share one lookup, unless a revocation came in between.
   */
  private lookUp(hex: string): Promise<CachedKey | null> {
    const version = this.cache.version;
    const running = this.lookups.get(hex);
    if (running?.version === version) return running.found;
    const found = this.db
      .getRepository(ApiKey)
      .findOne({ where: { hash: Buffer.from(hex, 'hex'), revokedAt: IsNull() }, select: { id: true, productId: true, mode: true, kind: true, lastUsedAt: true } })
      .then((key) => {
        if (!key) return null;
        const known = { scope: { keyId: key.id, productId: key.productId, mode: key.mode }, kind: key.kind, touchedAt: key.lastUsedAt?.getTime() ?? 0 };
        this.cache.set(hex, known, version);
        return known;
      })
      .finally(() => {
        if (this.lookups.get(hex)?.found === found) this.lookups.delete(hex);
      });
    this.lookups.set(hex, { version, found });
    return found;
  }

  /** Records when a secret key was last used, off the request's path; other processes may have done so already. */
  private touch(keyId: string, now: number): void {
    void this.db
      .query(`UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)`, [
        keyId,
        new Date(now),
        new Date(now - LAST_USED_RESOLUTION_MS),
      ])
      .catch(() => undefined);
  }
}

/** A key's kind, by its prefix (sk_… or pk_…); null for anything else. */
export function kindOf(key: string): KeyKind | null {
  return key.startsWith('sk_') ? 'secret' : key.startsWith('pk_') ? 'publishable' : null;
}
