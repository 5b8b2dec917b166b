import { MyDataLinks } from './my-data-links';

describe(MyDataLinks.name, () => {
  const key = Buffer.alloc(32, 1);
  const links = new MyDataLinks([key]);
  const now = new Date('2026-11-25T12:00:00.000Z');
  const token = links.sign('ent_1', new Date(now.getTime() + 3_600_000));

  it('opens its own token until its end', () => {
    expect(links.open(token, now)).toBe('ent_1');
    expect(links.open(token, new Date(now.getTime() + 3_600_000))).toBeNull();
  });

  it('refuses a token changed anywhere, or signed under another key', () => {
    expect(links.open(token.replace('ent_1', 'ent_2'), now)).toBeNull();
    expect(links.open(`${token}x`, now)).toBeNull();
    expect(links.open('ent_1.zzzzzzzz.abc', now)).toBeNull();
    expect(new MyDataLinks([Buffer.alloc(32, 2)]).open(token, now)).toBeNull();
  });

  it('keeps working across a rotation: a later first key, the old one still in the ring', () => {
    expect(new MyDataLinks([Buffer.alloc(32, 2), key]).open(token, now)).toBe('ent_1');
  });
});
