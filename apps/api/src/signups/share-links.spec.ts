import { shareLinks } from './share-links';

describe('shareLinks', () => {
  const link = 'https://acme.example/join?ref=Ab3&x=1';
  const links = shareLinks(link, 'Join the Acme & Co waitlist');

  it('carries the referral link whole in every link, the words too where the network takes them', () => {
    for (const { href } of links) expect(decodeURIComponent(href)).toContain(link);
    expect(links.map(({ network }) => network)).toEqual([null, 'X', 'LinkedIn', 'Facebook', 'WhatsApp', 'Telegram', 'Reddit']);
    expect(new URL(links[1].href).searchParams.get('text')).toBe('Join the Acme & Co waitlist');
  });

  it('writes the mail with spaces as %20, which mail programs read (never +)', () => {
    expect(links[0].href).toBe('mailto:?subject=Join%20the%20Acme%20%26%20Co%20waitlist&body=Join%20the%20Acme%20%26%20Co%20waitlist%0Ahttps%3A%2F%2Facme.example%2Fjoin%3Fref%3DAb3%26x%3D1');
  });
});
