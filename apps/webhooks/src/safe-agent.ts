import { isPublicAddress } from '@app/shared';
import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { Agent } from 'undici';

/**
 * An HTTP agent that connects only to public addresses, checked on the address it actually connects
 * to (after DNS), so a name that resolves to a private address, or starts to (DNS rebinding), is
 * refused, within the attempts' timeout. IP literals never reach the lookup: webhookUrlProblem checks those before each request.
 */
export function safeAgent(allowPrivate: boolean, connectTimeoutMs: number): Agent {
  return new Agent({
    connect: {
      // An attempt's deadline reaches a request once it is written: a connection is bounded here.
      timeout: connectTimeoutMs,
      lookup: (hostname, options, callback) => {
        dnsLookup(hostname, options, (error, address, family) => {
          if (error) return callback(error, address, family);
          const addresses: LookupAddress[] = Array.isArray(address) ? address : [{ address, family: family ?? 4 }];
          if (!allowPrivate && addresses.some((candidate) => !isPublicAddress(candidate.address))) {
            return callback(Object.assign(new Error('refused: the host resolves to a private address'), { code: 'EPRIVATE' }), address, family);
          }
          callback(null, address, family);
        });
      },
    },
  });
}
