import { createHmac } from 'node:crypto';
import type { WebhookEvent } from './types.js';
import { verifyWebhook, WebhookVerificationError, WebhookVerificationFailure } from './webhooks.js';

const SECRET = 'whsec_test_secret';
const T = 1_795_000_000;
const NOW = new Date(T * 1000);
const EVENT: WebhookEvent = {
  id: 'evt_1',
  type: 'entry.invited',
  createdAt: '2026-11-18T09:46:40.000Z',
  mode: 'test',
  productId: 'prod_1',
  data: {
    entry: {
      id: 'ent_1',
      email: 'ada@example.com',
      state: 'invited',
      createdAt: '2026-11-18T09:00:00.000Z',
      confirmedAt: '2026-11-18T09:10:00.000Z',
      invitedAt: '2026-11-18T09:46:40.000Z',
      redeemedAt: null,
      referralCode: 'k7m3x9q2w4zr',
      referrals: 0,
    },
  },
};
const BODY = JSON.stringify(EVENT);
const sign = (secret: string, body = BODY, t = T) => createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

async function failure(promise: Promise<unknown>): Promise<WebhookVerificationFailure> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  if (!(error instanceof WebhookVerificationError)) throw new Error(`Expected a WebhookVerificationError, got ${String(error)}`);
  expect(error.message).not.toContain(SECRET);
  return error.reason;
}

describe('verifyWebhook', () => {
  it('returns the event of a delivery signed with the secret, from a string or the raw bytes', async () => {
    const header = `t=${T},v1=${sign(SECRET)}`;
    await expect(verifyWebhook(BODY, header, SECRET, { now: NOW })).resolves.toEqual(EVENT);
    await expect(verifyWebhook(new TextEncoder().encode(BODY), header, SECRET, { now: NOW })).resolves.toEqual(EVENT);
  });

  it('takes any one v1 that matches, so deliveries during a secret rotation pass with either secret', async () => {
    const header = `t=${T},v1=${sign('whsec_new')},v1=${sign('whsec_old')}`;
    await expect(verifyWebhook(BODY, header, 'whsec_new', { now: NOW })).resolves.toEqual(EVENT);
    await expect(verifyWebhook(BODY, header, 'whsec_old', { now: NOW })).resolves.toEqual(EVENT);
    expect(await failure(verifyWebhook(BODY, header, 'whsec_other', { now: NOW }))).toBe('no_matching_signature');
  });

  it('refuses a body changed by one byte, or re-serialised', async () => {
    const header = `t=${T},v1=${sign(SECRET)}`;
    expect(await failure(verifyWebhook(BODY.replace('ada@', 'eve@'), header, SECRET, { now: NOW }))).toBe('no_matching_signature');
    expect(await failure(verifyWebhook(JSON.stringify(EVENT, null, 1), header, SECRET, { now: NOW }))).toBe('no_matching_signature');
  });

  it('refuses a signature whose time was changed', async () => {
    expect(await failure(verifyWebhook(BODY, `t=${T + 1},v1=${sign(SECRET)}`, SECRET, { now: NOW }))).toBe('no_matching_signature');
  });

  it('refuses signatures more than the tolerance away from now, either way, and accepts them at the bound', async () => {
    const header = `t=${T},v1=${sign(SECRET)}`;
    const at = (seconds: number) => new Date((T + seconds) * 1000);
    await expect(verifyWebhook(BODY, header, SECRET, { now: at(300) })).resolves.toEqual(EVENT);
    await expect(verifyWebhook(BODY, header, SECRET, { now: at(-300) })).resolves.toEqual(EVENT);
    expect(await failure(verifyWebhook(BODY, header, SECRET, { now: at(301) }))).toBe('timestamp_too_old');
    expect(await failure(verifyWebhook(BODY, header, SECRET, { now: at(-301) }))).toBe('timestamp_too_new');
    await expect(verifyWebhook(BODY, header, SECRET, { now: at(3600), toleranceSeconds: 3600 })).resolves.toEqual(EVENT);
  });

  it.each([
    ['', 'missing_header'],
    [null, 'missing_header'],
    [undefined, 'missing_header'],
    ['garbage', 'malformed_header'],
    [`v1=${sign(SECRET)}`, 'malformed_header'],
    [`t=${T}`, 'malformed_header'],
    [`t=${T},v0=${sign(SECRET)}`, 'malformed_header'],
    [`t=soon,v1=${sign(SECRET)}`, 'malformed_header'],
    [`t=${T},t=${T},v1=${sign(SECRET)}`, 'malformed_header'],
    [`t=${T},v1=not-hex`, 'malformed_header'],
    [`t=${T},v1=abc`, 'malformed_header'],
    [`t=${T},v1=${sign(SECRET).slice(2)}`, 'no_matching_signature'],
  ] as const)('header %p: %s', async (header, reason) => {
    expect(await failure(verifyWebhook(BODY, header, SECRET, { now: NOW }))).toBe(reason);
  });

  it('tolerates spaces around the parts of the header', async () => {
    await expect(verifyWebhook(BODY, `t=${T}, v1=${sign(SECRET)}`, SECRET, { now: NOW })).resolves.toEqual(EVENT);
  });

  it('refuses a signed body that is not JSON', async () => {
    expect(await failure(verifyWebhook('not json', `t=${T},v1=${sign(SECRET, 'not json')}`, SECRET, { now: NOW }))).toBe('malformed_body');
  });

  it('takes no empty secret', async () => {
    await expect(verifyWebhook(BODY, `t=${T},v1=${sign(SECRET)}`, '', { now: NOW })).rejects.toThrow(TypeError);
  });
});
