import type { Mode } from '@app/shared';

/** What a caller may see and change: one product in one mode. */
export interface ProductScope {
  productId: string;
  mode: Mode;
}

/** A request authenticated with a secret key: its product and mode, and the key (for its rate limit). */
export interface KeyScope extends ProductScope {
  keyId: string;
}
