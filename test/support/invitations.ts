import { EntryRecord, Mode, newId } from '@app/shared';
import { bearer, joinLine } from './flows';
import { SinkMail } from './smtp-sink';
import { AppName, Product, Stack } from './stack';

/** The invite code in an invitation mail (the invite query parameter of its link). */
export function codeIn(mail: SinkMail): string {
  const link = mail.text.split(/\s+/).find((word) => word.includes('invite='));
  if (!link) throw new Error(`No invitation link in "${mail.subject}"`);
  return new URL(link).searchParams.get('invite')!;
}

export function invitationsTo(stack: Stack, email: string): SinkMail[] {
  return stack.mail.to(email).filter((mail) => mail.subject.includes('invited'));
}

/** Confirmed entries, joined in the order given. */
export async function line(stack: Stack, pk: string, emails: string[]): Promise<EntryRecord[]> {
  const entries: EntryRecord[] = [];
  for (const email of emails) entries.push(await joinLine(stack, pk, email));
  return entries;
}

export function api(stack: Stack, secret: string) {
  const call = (method: 'GET' | 'POST', url: string, body?: unknown, headers: Record<string, string> = {}) =>
    stack.request({ method, url, body, headers: { ...bearer(secret), ...headers } });
  return {
    invite: (id: string, headers?: Record<string, string>) => call('POST', `/api/v1/entries/${id}/invite`, undefined, headers),
    reinvite: (id: string, headers?: Record<string, string>) => call('POST', `/api/v1/entries/${id}/reinvite`, undefined, headers),
    inviteNext: (count: number, headers?: Record<string, string>) => call('POST', '/api/v1/entries/invite-next', { count }, headers),
    moveUp: (id: string, places: number) => call('POST', `/api/v1/entries/${id}/move-up`, { places }),
    verify: (token: string) => call('POST', '/api/v1/invites/verify', { token }),
    redeem: (token: string, headers?: Record<string, string>) => call('POST', '/api/v1/invites/redeem', { token }, headers),
    get: (id: string) => call('GET', `/api/v1/entries/${id}`),
  };
}

export type InvitationApi = ReturnType<typeof api>;

/** Far above what any test here does: only the rate-limit tests meet a limit. */
const LIMITS_OUT_OF_THE_WAY = { RATE_LIMIT_SIGNUP: '10000/1m', RATE_LIMIT_SIGNUP_ADDRESS: '100/1h', RATE_LIMIT_API: '10000/1s' };

/**
 * What the invitation specs start from: api and mailer (or the apps given) with rate limits out of the
 * way, one product, its publishable key and the API as its secret key calls it, both of `mode`. The
 * caller stops the stack.
 */
export async function invitationStack(
  { mode = 'test', apps = ['api', 'mailer'], env = {} }: { mode?: Mode; apps?: AppName[]; env?: Record<string, string> } = {},
): Promise<{ stack: Stack; product: Product; pk: string; client: InvitationApi }> {
  const stack = await Stack.start({ apps, env: { ...LIMITS_OUT_OF_THE_WAY, ...env } });
  const product = await stack.createProduct();
  return { stack, product, pk: product.keys[mode].publishable, client: api(stack, product.keys[mode].secret) };
}

export interface Scope {
  productId: string;
  mode: Mode;
}

/** `count` waiting entries written straight into the table, at the back of the line in the order made. */
export async function seedLine(stack: Stack, scope: Scope, count: number, prefix: string): Promise<EntryRecord[]> {
  const [{ seq }]: { seq: string }[] = await stack.db.query(
    `INSERT INTO line_counters (product_id, mode, last_seq) VALUES ($1, $2, $3)
     ON CONFLICT (product_id, mode) DO UPDATE SET last_seq = line_counters.last_seq + $3 RETURNING last_seq - $3 AS seq`,
    [scope.productId, scope.mode, count],
  );
  const rows = Array.from({ length: count }, (_, i) => {
    const position = Number(seq) + i + 1;
    return Object.assign(new EntryRecord(), {
      id: newId('ent'),
      ...scope,
      email: `${prefix}-${i}@example.com`,
      state: 'confirmed' as const,
      createdAt: new Date(),
      confirmedAt: new Date(),
      referralCode: `${prefix}${i}`,
      referrals: 0,
      movedUp: 0,
      confirmationSeq: position,
      lineKey: position,
    });
  });
  // PostgreSQL takes at most 65,535 parameters per statement.
  for (let i = 0; i < rows.length; i += 2000) await stack.db.getRepository(EntryRecord).insert(rows.slice(i, i + 2000));
  return rows;
}
