import { EntryRecord } from '@app/shared';
import { linkIn } from './smtp-sink';
import { ProductsService, ProductSettings } from '../../apps/api/src/products/products.service';
import { Product, Stack } from './stack';

/** Signs an address up through the public JSON endpoint and expects 202. */
export async function signUp(stack: Stack, key: string, email: string, ref?: string): Promise<void> {
  const response = await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key, email, ...(ref ? { ref } : {}) } });
  if (response.status !== 202) throw new Error(`Sign-up answered ${response.status}: ${response.text}`);
}

/** The path of the confirmation link in the newest confirmation mail to `email` (waits for it). */
export async function confirmPath(stack: Stack, email: string, count = 1): Promise<string> {
  const mail = await stack.mail.waitFor(email, count);
  return new URL(linkIn(mail, `${stack.config.PUBLIC_BASE_URL}/confirm/`)).pathname;
}

/** Signs up, opens the mail and presses the confirm button: a confirmed entry. */
export async function joinLine(stack: Stack, key: string, email: string, ref?: string): Promise<EntryRecord> {
  await signUp(stack, key, email, ref);
  const response = await stack.request({ method: 'POST', url: await confirmPath(stack, email) });
  if (response.status !== 303) throw new Error(`Confirm answered ${response.status}: ${response.text}`);
  return stack.db.getRepository(EntryRecord).findOneByOrFail({ email });
}

export function bearer(secret: string): Record<string, string> {
  return { authorization: `Bearer ${secret}` };
}

/**
 * The events committed so far, oldest first, as their envelopes: the body is in the event's outbox row
 * until its first attempts are logged, and in the event while a delivery of it waits for a retry.
 */
export async function events(stack: Stack): Promise<{ id: string; type: string; mode: string; productId: string; data: { entry: Record<string, unknown> } }[]> {
  const rows: { id: string; type: string; mode: string; productId: string; body: string | null }[] = await stack.db.query(
    `SELECT e.id, e.type, e.mode, e.product_id AS "productId", COALESCE(o.body, e.body) AS body
     FROM events e LEFT JOIN outbox o ON o.queue = 'webhooks' AND o.data->>'eventId' = e.id ORDER BY e.created_at, o.id`,
  );
  return rows.map((row) => (row.body ? JSON.parse(row.body) : { id: row.id, type: row.type, mode: row.mode, productId: row.productId, data: null }));
}

/** A new product with these settings (the rest as made). */
export async function productWith(stack: Stack, settings: Partial<ProductSettings>): Promise<Product> {
  const product = await stack.createProduct();
  await stack.api.get(ProductsService).update(product.id, settings);
  return product;
}

/** A sign-up through the referrer's link (test mode), confirmed from `ip`. */
export async function referredFrom(stack: Stack, product: Product, referrer: EntryRecord, email: string, ip: string): Promise<void> {
  await signUp(stack, product.keys.test.publishable, email, referrer.referralCode!);
  const response = await stack.request({ method: 'POST', url: await confirmPath(stack, email), remoteAddress: ip });
  if (response.status !== 303) throw new Error(`Confirm answered ${response.status}: ${response.text}`);
}
