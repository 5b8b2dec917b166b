import { ConfigError, dkimFor, loadConfig } from '@app/shared';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { generateKeyPairSync, KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signUp } from './support/flows';
import { Stack } from './support/stack';
import { waitFor } from './support/wait';

const DOMAIN = 'mail.example.com';
const SELECTOR = 'wl2026';

/** A DNS resolver that knows only the selector's TXT record, as the receiving server would look it up. */
function resolverFor(publicKey: KeyObject) {
  const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
  return async (name: string, type: string) => {
    if (name === `${SELECTOR}._domainkey.${DOMAIN}` && type === 'TXT') return [[record]];
    throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' });
  };
}

/** Every mail signed with the key of its sender's domain, checked by an independent verifier (mailauth). */
describe('DKIM signing', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  // The key given as a file, as a deployment would mount it.
  const keyFile = join(mkdtempSync(join(tmpdir(), 'dkim-')), 'key.pem');
  writeFileSync(keyFile, pem);
  let stack: Stack | undefined;

  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  it('a DKIM signature verifies with mailauth', async () => {
    const started = (stack = await Stack.start({ env: { MAIL_FROM: `Waitlist <no-reply@${DOMAIN}>`, DKIM_SELECTOR: SELECTOR, DKIM_PRIVATE_KEY: keyFile } }));
    const product = await started.createProduct();
    await signUp(started, product.keys.test.publishable, 'ada@example.org');
    await waitFor(() => started.mail.to('ada@example.org').length > 0, 'the confirmation mail');
    const [mail] = started.mail.to('ada@example.org');

    const { results } = await dkimVerify(mail.raw, { resolver: resolverFor(publicKey) });
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ signingDomain: DOMAIN, selector: SELECTOR, status: { result: 'pass' } });

    // A tampered body fails the same check, so the pass above is the signature's.
    const tampered = Buffer.from(mail.raw.toString('utf8').replace('ada@example.org', 'eve@example.org'));
    const { results: tamperedResults } = await dkimVerify(tampered, { resolver: resolverFor(publicKey) });
    expect(tamperedResults[0].status.result).not.toBe('pass');
  });

  it('without a DKIM key mails go out unsigned, as before', async () => {
    const started = (stack = await Stack.start({ env: { MAIL_FROM: `Waitlist <no-reply@${DOMAIN}>` } }));
    const product = await started.createProduct();
    await signUp(started, product.keys.test.publishable, 'bob@example.org');
    await waitFor(() => started.mail.to('bob@example.org').length > 0, 'the confirmation mail');
    const [mail] = started.mail.to('bob@example.org');
    expect(mail.headers['dkim-signature']).toBeUndefined();
  });

  it("picks the key of the From address's domain, and none for a domain without one", () => {
    const { DKIM } = loadConfig({ DKIM_KEYS: `a.example:s1:${keyFile},b.example:s2:${keyFile}` });
    expect(dkimFor(DKIM, 'Acme <news@B.example>')).toMatchObject({ domainName: 'b.example', keySelector: 's2' });
    expect(dkimFor(DKIM, 'news@a.example')).toMatchObject({ domainName: 'a.example', keySelector: 's1' });
    expect(dkimFor(DKIM, 'news@c.example')).toBeUndefined();
    expect(loadConfig({}).DKIM.size).toBe(0);
  });

  it('a DKIM setting that cannot work stops the start with a sentence that names it, never the key', () => {
    const bad = (env: Record<string, string>) => {
      try {
        loadConfig({ MAIL_FROM: `Waitlist <no-reply@${DOMAIN}>`, ...env });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error('the configuration was accepted');
    };
    expect(bad({ DKIM_PRIVATE_KEY: pem })).toMatch(/DKIM_SELECTOR: .*required/);
    expect(bad({ DKIM_SELECTOR: SELECTOR, DKIM_PRIVATE_KEY: '/nonexistent/key.pem' })).toMatch(/DKIM_PRIVATE_KEY: .*\/nonexistent\/key\.pem/);
    const notAKey = bad({ DKIM_SELECTOR: SELECTOR, DKIM_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----' });
    expect(notAKey).toMatch(/DKIM_PRIVATE_KEY: .*private key/);
    expect(notAKey).not.toContain('bm90IGEga2V5');
    expect(bad({ DKIM_SELECTOR: 'not a selector', DKIM_PRIVATE_KEY: pem })).toMatch(/DKIM_SELECTOR/);
    expect(bad({ DKIM_SELECTOR: SELECTOR, DKIM_PRIVATE_KEY: pem, DKIM_DOMAIN: 'not a domain' })).toMatch(/DKIM_DOMAIN/);
    expect(bad({ DKIM_SELECTOR: SELECTOR, DKIM_PRIVATE_KEY: pem, MAIL_FROM: 'Waitlist <no-reply@localhost>' })).toMatch(/MAIL_FROM: has no domain .*set DKIM_DOMAIN/);
    expect(bad({ MAIL_DOMAIN_PACE: 'gmail.com=fast' })).toMatch(/MAIL_DOMAIN_PACE: expected receiving domains/);
  });
});
