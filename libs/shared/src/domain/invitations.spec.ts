import { invitationLink } from './invitations';

describe(invitationLink.name, () => {
  it("is the product's invite URL with invite=<code>, keeping the URL's own query", () => {
    expect(invitationLink('https://acme.example/join?from=mail', 'https://w.example', 'abc_-1')).toBe('https://acme.example/join?from=mail&invite=abc_-1');
    expect(invitationLink('https://acme.example/join?invite=old', 'https://w.example', 'new')).toBe('https://acme.example/join?invite=new');
  });

  it("is the service's hosted invitation page for a product without an invite URL, under a base URL's path too", () => {
    expect(invitationLink(null, 'http://localhost:3000', 'abc')).toBe('http://localhost:3000/invitation?invite=abc');
    expect(invitationLink(null, 'https://example.com/waitlist', 'abc')).toBe('https://example.com/waitlist/invitation?invite=abc');
  });
});
