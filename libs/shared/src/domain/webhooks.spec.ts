import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { isPublicAddress, newSigningSecret, SecretBox, signatureHeader, signingHeaders, webhookUrlProblem } from './webhooks';

describe(signatureHeader.name, () => {
  it('signs <t>.<body> with the whole secret string, one v1 per secret', () => {
    const body = '{"id":"evt_1"}';
    const expected = createHmac('sha256', 'whsec_abc').update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader(['whsec_abc'], body, 1700000000)).toBe(`t=1700000000,v1=${expected}`);
    expect(signatureHeader(['whsec_new', 'whsec_old'], body, 1).split(',')).toHaveLength(3);
  });
});

describe(newSigningSecret.name, () => {
  it('ours: whsec_ and 256 random bits in base64url, as before', () => {
    expect(newSigningSecret('service')).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  });

  it('Standard Webhooks: whsec_ and 32 random bytes in standard base64, which the standardwebhooks package takes', () => {
    const secrets = Array.from({ length: 50 }, () => newSigningSecret('standard'));
    expect(new Set(secrets).size).toBe(50);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
      expect(() => new Webhook(secret)).not.toThrow();
    }
  });
});

describe(signingHeaders.name, () => {
  const body = '{"id":"evt_1","type":"entry.created"}';

  it('ours: the Service-Signature header alone, byte for byte what signatureHeader makes', () => {
    expect(signingHeaders('service', ['whsec_new', 'whsec_old'], { eventId: 'evt_1', body, unixSeconds: 1700000000 })).toEqual({
      'service-signature': signatureHeader(['whsec_new', 'whsec_old'], body, 1700000000),
    });
  });

  it('Standard Webhooks: webhook-id is the event id, and each secret signs; the standardwebhooks verifier accepts either secret', () => {
    const [current, previous, other] = [newSigningSecret('standard'), newSigningSecret('standard'), newSigningSecret('standard')];
    const unixSeconds = Math.floor(Date.now() / 1000);
    const headers = signingHeaders('standard', [current, previous], { eventId: 'evt_1', body, unixSeconds });
    expect(Object.keys(headers).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe(String(unixSeconds));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(other).verify(body, headers)).toThrow('No matching signature found');
    expect(() => new Webhook(current).verify(body.replace('created', 'deleted'), headers)).toThrow('No matching signature found');
    expect(() => new Webhook(current).verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow('No matching signature found');
  });
});

describe(SecretBox.name, () => {
  it('opens what it sealed, and refuses a box sealed under another key or changed', () => {
    const box = new SecretBox(Buffer.alloc(32, 1));
    const sealed = box.seal('whsec_secret');
    expect(sealed.toString('utf8')).not.toContain('whsec_secret');
    expect(box.open(sealed)).toBe('whsec_secret');
    expect(() => new SecretBox(Buffer.alloc(32, 2)).open(sealed)).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 1), 'another purpose').open(sealed)).toThrow();
    sealed[sealed.length - 1] ^= 1;
    expect(() => box.open(sealed)).toThrow();
  });

  it('is a key ring after a rotation: the first key seals, every key opens what it sealed', () => {
    const [old, next] = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];
    const before = new SecretBox(old).seal('whsec_before');
    const ring = new SecretBox([next, old]);
    const after = ring.seal('whsec_after');
    expect([ring.open(before), ring.open(after)]).toEqual(['whsec_before', 'whsec_after']);
    expect([ring.sealedWithFirst(before), ring.sealedWithFirst(after)]).toEqual([false, true]);
    expect(new SecretBox(next).open(after)).toBe('whsec_after');
    expect(() => new SecretBox(next).open(before)).toThrow('No key of ENCRYPTION_KEY opens this secret');
    expect(() => ring.open(Buffer.alloc(5))).toThrow();
  });
});

describe(isPublicAddress.name, () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '224.0.0.1', 'not-an-ip'])(
    '%s is not public',
    (address) => expect(isPublicAddress(address)).toBe(false),
  );
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('%s is public', (address) => expect(isPublicAddress(address)).toBe(true));

  // IPv6 forms that carry an IPv4 address, which is where the connection may end up.
  it.each([
    ['::7f00:1', 'IPv4-compatible 127.0.0.1', false],
    ['::127.0.0.1', 'IPv4-compatible 127.0.0.1, dotted', false],
    ['::a9fe:a9fe', 'IPv4-compatible 169.254.169.254', false],
    ['::a00:1', 'IPv4-compatible 10.0.0.1', false],
    ['::c0a8:101', 'IPv4-compatible 192.168.1.1', false],
    ['::808:808', 'IPv4-compatible 8.8.8.8 (deprecated form, refused whatever it carries)', false],
    ['::ffff:7f00:1', 'IPv4-mapped 127.0.0.1, hex', false],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped 169.254.169.254', false],
    ['::ffff:10.0.0.1', 'IPv4-mapped 10.0.0.1', false],
    ['::ffff:0:7f00:1', 'IPv4-translated 127.0.0.1', false],
    ['::ffff:0:808:808', 'IPv4-translated 8.8.8.8', false],
    ['64:ff9b::7f00:1', 'NAT64 127.0.0.1', false],
    ['64:ff9b::a9fe:a9fe', 'NAT64 169.254.169.254', false],
    ['64:ff9b::808:808', 'NAT64 8.8.8.8', false],
    ['64:ff9b:1::a00:1', 'local-use NAT64 10.0.0.1', false],
    ['2002:7f00:1::1', '6to4 via 127.0.0.1', false],
    ['2002:a9fe:a9fe::1', '6to4 via 169.254.169.254', false],
    ['2002:808:808::1', '6to4 via 8.8.8.8', false],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo, client 127.0.0.1', false],
    ['2001:0:4136:e378:8000:63bf:f5ff:fefe', 'Teredo, client 10.0.1.1', false],
    ['::ffff:808:808', 'IPv4-mapped 8.8.8.8', true],
    ['::ffff:93.184.216.34', 'IPv4-mapped 93.184.216.34', true],
  ])('%s (%s): public %p', (address, _form, expected) => expect(isPublicAddress(address)).toBe(expected));
});

describe(webhookUrlProblem.name, () => {
  it.each([
    ['http://example.com/hook', 'must be an https URL'],
    ['https://127.0.0.1/hook', 'must point at a public address'],
    ['https://[::1]/hook', 'must point at a public address'],
    ['https://169.254.169.254/latest', 'must point at a public address'],
    ['https://10.0.0.5/hook', 'must point at a public address'],
    ['https://[::127.0.0.1]/', 'must point at a public address'],
    ['https://[::7f00:1]/hook', 'must point at a public address'],
    ['https://[::a9fe:a9fe]/latest', 'must point at a public address'],
    ['https://[::a00:1]/hook', 'must point at a public address'],
    ['https://[::ffff:a9fe:a9fe]/latest', 'must point at a public address'],
    ['https://[64:ff9b::a9fe:a9fe]/latest', 'must point at a public address'],
    ['https://[2002:a9fe:a9fe::1]/latest', 'must point at a public address'],
    ['https://localhost/hook', 'must point at a public address'],
    ['https://user:pass@example.com/hook', 'must not carry credentials'],
    ['not a url', 'is not a URL'],
    ['https://hooks.example.com/a\u0000b', 'cannot hold control characters'],
    ['https://hooks.example.com/a\r\nb', 'cannot hold control characters'],
  ])('%j %s', (url, problem) => expect(webhookUrlProblem(url, false)).toBe(problem));

  it('accepts public https URLs, and http or private ones only when allowed', () => {
    expect(webhookUrlProblem('https://hooks.example.com/waitlist', false)).toBeNull();
    expect(webhookUrlProblem('http://127.0.0.1:8080/hook', true)).toBeNull();
  });
});
