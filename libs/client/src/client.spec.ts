import { inspect } from 'node:util';
import { WaitlistClient } from './client.js';

const SECRET = 'sk_test_do_not_show_me';

describe(WaitlistClient.name, () => {
  it('refuses options it cannot work with, naming the option and never the key', () => {
    const refusals = [
      { baseUrl: 'waitlist.example.com', secretKey: SECRET },
      { baseUrl: 'ftp://waitlist.example.com', secretKey: SECRET },
      { baseUrl: 'https://waitlist.example.com', secretKey: '' },
      { baseUrl: 'https://waitlist.example.com', secretKey: SECRET, timeoutMs: 0 },
      { baseUrl: 'https://waitlist.example.com', secretKey: SECRET, maxRetries: -1 },
      { baseUrl: 'https://waitlist.example.com', secretKey: SECRET, maxRetries: 1.5 },
    ];
    for (const options of refusals) {
      const error = (() => {
        try {
          new WaitlistClient(options);
        } catch (caught) {
          return caught as Error;
        }
      })();
      expect(error).toBeInstanceOf(TypeError);
      expect(error!.message).toMatch(/^WaitlistClient: (baseUrl|secretKey|timeoutMs|maxRetries) /);
      expect(error!.message).not.toContain(SECRET);
    }
  });

  it('keeps its key out of logs', () => {
    const client = new WaitlistClient({ baseUrl: 'https://waitlist.example.com', secretKey: SECRET });
    expect(inspect(client, { depth: 5, showHidden: true })).not.toContain(SECRET);
    expect(JSON.stringify(client)).not.toContain(SECRET);
  });
});
