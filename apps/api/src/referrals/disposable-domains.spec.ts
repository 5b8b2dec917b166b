import { isDisposableDomain } from './disposable-domains';

describe(isDisposableDomain.name, () => {
  const list = new Set(['mailinator.com', 'yopmail.com']);
  const none = { blocked: [], allowed: [] };

  it('finds the domain, or a domain above it, on the list', () => {
    expect(isDisposableDomain('a@mailinator.com', list, none)).toBe(true);
    expect(isDisposableDomain('a@inbox.MAILINATOR.com', list, none)).toBe(true);
    expect(isDisposableDomain('a@example.com', list, none)).toBe(false);
    expect(isDisposableDomain('a@notmailinator.com', list, none)).toBe(false);
  });

  it("withholds the product's blocked domains and lets its allowed ones through", () => {
    expect(isDisposableDomain('a@spam.example', list, { blocked: ['spam.example'], allowed: [] })).toBe(true);
    expect(isDisposableDomain('a@x.spam.example', list, { blocked: ['spam.example'], allowed: [] })).toBe(true);
    expect(isDisposableDomain('a@ok.mailinator.com', list, { blocked: [], allowed: ['ok.mailinator.com'] })).toBe(false);
    expect(isDisposableDomain('a@mailinator.com', list, { blocked: [], allowed: ['ok.mailinator.com'] })).toBe(true);
  });

  it('lets the block list win over the allow list', () => {
    expect(isDisposableDomain('a@spam.example', list, { blocked: ['spam.example'], allowed: ['spam.example'] })).toBe(true);
  });
});
