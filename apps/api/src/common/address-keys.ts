import { derivedKeys } from '@app/shared';
import { createHmac } from 'node:crypto';

/**
 * How an address is named in a Redis key: an HMAC under a key derived from ENCRYPTION_KEY's first key,
 * so Redis (its keys, a dump, MONITOR) never holds an address, while every replica, before and after
 * a restart, names an address alike. A rotation of ENCRYPTION_KEY starts the windows of addresses afresh.
 */
export class AddressKeys {
  private readonly key: Buffer;

  constructor(encryptionKey: Buffer[]) {
    [this.key] = derivedKeys(encryptionKey[0], 'waitlist address keys');
  }

  of(address: string): string {
    return createHmac('sha256', this.key).update(address).digest('base64url');
  }
}
