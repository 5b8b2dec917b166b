import { EntryRecord } from '@app/shared';
import { bearer, joinLine } from './flows';
import { SinkMail } from './smtp-sink';
import { Stack } from './stack';

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
