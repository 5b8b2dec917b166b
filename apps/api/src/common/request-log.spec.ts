import { redactUrl } from './request-log';

describe(redactUrl.name, () => {
  it.each([
    ['/confirm/abcDEF123_-', '/confirm/[redacted]'],
    ['/unsubscribe/abcDEF123_-?x=1', '/unsubscribe/[redacted]?[redacted]'],
    ['/api/v1/invited?email=ada@example.com', '/api/v1/invited?[redacted]'],
    ['/api/v1/entries', '/api/v1/entries'],
  ])('request logs show %s as %s', (url, logged) => expect(redactUrl(url)).toBe(logged));
});
