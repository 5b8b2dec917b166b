import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Clients with IPv6 addresses of their own: a network namespace joined to this machine by a veth pair
 * (fd00:38::1 on our side, fd00:38::2 on its side), each client address on the namespace's loopback and
 * routed back to it. Needs root and iproute2 (as on our development and CI machines). The namespace and
 * its veth pair (with its routes) go with `remove`.
 */
export class Ipv6Hosts {
  static readonly SERVER = 'fd00:38::1';

  private constructor(private readonly namespace: string) {}

  /** A namespace whose loopback holds `addresses`, each reachable from and able to reach this machine. */
  static async create(addresses: string[]): Promise<Ipv6Hosts> {
    const id = randomBytes(3).toString('hex');
    const hosts = new Ipv6Hosts(`wltest6-${id}`);
    const [ours, theirs] = [`wl6a${id}`, `wl6b${id}`];
    const ns = hosts.namespace;
    try {
      await ip('netns', 'add', ns);
      await ip('link', 'add', ours, 'type', 'veth', 'peer', 'name', theirs, 'netns', ns);
      await ip('addr', 'add', `${Ipv6Hosts.SERVER}/64`, 'dev', ours, 'nodad');
      await ip('link', 'set', ours, 'up');
      await ip('-n', ns, 'link', 'set', 'lo', 'up');
      await ip('-n', ns, 'addr', 'add', 'fd00:38::2/64', 'dev', theirs, 'nodad');
      await ip('-n', ns, 'link', 'set', theirs, 'up');
      for (const address of addresses) {
        await ip('-n', ns, 'addr', 'add', `${address}/128`, 'dev', 'lo', 'nodad');
        await ip('-6', 'route', 'add', `${address}/128`, 'via', 'fd00:38::2', 'dev', ours);
      }
    } catch (error) {
      await hosts.remove();
      throw error;
    }
    return hosts;
  }

  /** The status of a request from `source` (one of the namespace's addresses) to a URL on this machine. */
  async status(source: string, method: 'GET' | 'POST', url: string): Promise<number> {
    // curl answers 000 (and exits non-zero) when it could not connect.
    const { stdout } = await run('ip', ['netns', 'exec', this.namespace, 'curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', '-X', method, '--interface', source, url]).catch((error: { stdout: string }) => error);
    return Number(stdout);
  }

  async remove(): Promise<void> {
    // Deleting the namespace deletes its end of the veth pair, and with it ours and our routes.
    await ip('netns', 'del', this.namespace).catch(() => undefined);
  }
}

async function ip(...args: string[]): Promise<void> {
  await run('ip', args);
}
