import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiKey, Clock, hashToken, KeyKind, Mode, newId, newToken } from '@app/shared';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import type { KeyScope, ProductScope } from '../common/scope';

export interface KeyPair {
  secret: string;
  publishable: string;
}

const LAST_USED_RESOLUTION = "interval '1 minute'";

@Injectable()
export class KeysService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

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

  /** Revokes a secret key; true when a key that was in use is now revoked. */
  async revoke(secret: string): Promise<boolean> {
    const result = await this.db
      .getRepository(ApiKey)
      .update({ hash: hashToken(secret), kind: 'secret', revokedAt: IsNull() }, { revokedAt: this.clock.now() });
    return (result.affected ?? 0) > 0;
  }

  /** The keys of a product and mode, newest first, as the dashboard lists them. */
  async list(productId: string, mode: Mode): Promise<ApiKey[]> {
    return this.db.getRepository(ApiKey).find({ where: { productId, mode }, order: { createdAt: 'DESC', kind: 'DESC' } });
  }

  /** Revokes one key of a product by its id; false when there is no such unrevoked key. */
  /** Revokes a key of this product and mode; false when it has no such key in use. */
  async revokeById(scope: ProductScope, keyId: string): Promise<boolean> {
    const result = await this.db
      .getRepository(ApiKey)
      .update({ id: keyId, productId: scope.productId, mode: scope.mode, revokedAt: IsNull() }, { revokedAt: this.clock.now() });
    return (result.affected ?? 0) > 0;
  }

  /** The scope of a valid, unrevoked key of the given kind, or null. */
  async authenticate(key: string, kind: KeyKind): Promise<KeyScope | null> {
    if (!key.startsWith(kind === 'secret' ? 'sk_' : 'pk_') || key.length > 200) return null;
    const found = await this.db
      .getRepository(ApiKey)
      .findOne({ where: { hash: hashToken(key), kind, revokedAt: IsNull() }, select: { id: true, productId: true, mode: true } });
    if (!found) return null;
    if (kind === 'secret') this.touch(found.id);
    return { keyId: found.id, productId: found.productId, mode: found.mode };
  }

  /** Records when a secret key was last used, at most once a minute, off the request's path. */
  private touch(keyId: string): void {
    void this.db
      .query(
        `UPDATE api_keys SET last_used_at = $2 WHERE id = $1
           AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - ${LAST_USED_RESOLUTION})`,
        [keyId, this.clock.now()],
      )
      .catch(() => undefined);
  }
}
