import { Delivery, DeliveryAttempt, WebhookEndpoint } from '@app/shared';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { signUp } from './support/flows';
import { Receiver } from './support/receiver';
import { Stack } from './support/stack';
import { waitFor } from './support/wait';

describe('webhook URLs when private addresses are not allowed', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'webhooks'], env: { WEBHOOK_RETRY_DELAYS: '100ms', WEBHOOK_TIMEOUT: '500ms' } });
  });
  afterAll(() => stack.stop());

  it.each([
    'https://127.0.0.1/hook',
    'https://10.1.2.3/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://localhost/hook',
    'http://example.com/hook',
    // IPv6 spellings of private IPv4 addresses: IPv4-compatible, IPv4-mapped, NAT64, 6to4.
    'https://[::127.0.0.1]/hook',
    'https://[::7f00:1]/hook',
    'https://[::a9fe:a9fe]/latest/meta-data',
    'https://[::a00:1]/hook',
    'https://[::ffff:a9fe:a9fe]/latest/meta-data',
    'https://[64:ff9b::a9fe:a9fe]/latest/meta-data',
    'https://[2002:a9fe:a9fe::1]/latest/meta-data',
  ])(
    '%s is refused at creation',
    async (url) => {
      const product = await stack.createProduct();
      await expect(stack.api.get(WebhooksService).create({ productId: product.id, mode: 'live', url })).rejects.toThrow(/https|public/);
    },
  );

  it('a host name that resolves to a private address is refused when connecting', async () => {
    const receiver = await new Receiver().start();
    try {
      const product = await stack.createProduct();
      const { SecretBox, newId, isPublicAddress } = await import('@app/shared');
      const id = newId('we');
      // The machine's own name passes the URL check (a name, not an address); its address is refused on connect.
      const name = hostname();
      const addresses = await lookup(name, { all: true });
      expect(addresses.every(({ address }) => !isPublicAddress(address))).toBe(true);
      await stack.db.getRepository(WebhookEndpoint).insert({
        id,
        productId: product.id,
        mode: 'test',
        url: receiver.url.replace('http://127.0.0.1', `https://${name}`),
        events: ['entry.created'],
        secret: new SecretBox(stack.config.ENCRYPTION_KEY).seal('whsec_x'),
        createdAt: new Date(),
      });
      await signUp(stack, product.keys.test.publishable, 'rebind@example.com');
      const deliveries = stack.db.getRepository(Delivery);
      await waitFor(async () => (await deliveries.findOneBy({ endpointId: id }))?.status === 'failed', 'the delivery to be given up');
      const attempts = await stack.db.getRepository(DeliveryAttempt).find({ where: { deliveryId: (await deliveries.findOneByOrFail({ endpointId: id })).id } });
      expect(attempts.map((attempt) => attempt.error)).toEqual(Array(2).fill(expect.stringContaining('private address')));
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.stop();
    }
  });

  it.each(['127.0.0.1', '[::7f00:1]', '[::ffff:7f00:1]'])('a private address that got in anyway, %s, is refused at delivery, without a connection', async (host) => {
    const receiver = await new Receiver().start();
    try {
      const product = await stack.createProduct();
      const { SecretBox, newId } = await import('@app/shared');
      const id = newId('we');
      await stack.db.getRepository(WebhookEndpoint).insert({
        id,
        productId: product.id,
        mode: 'test',
        url: receiver.url.replace('http://127.0.0.1', `https://${host}`),
        events: ['entry.created'],
        secret: new SecretBox(stack.config.ENCRYPTION_KEY).seal('whsec_x'),
        createdAt: new Date(),
      });
      await signUp(stack, product.keys.test.publishable, `embedded-${host.replace(/\W/g, '')}@example.com`);
      const deliveries = stack.db.getRepository(Delivery);
      await waitFor(async () => (await deliveries.findOneBy({ endpointId: id }))?.status === 'failed', 'the delivery to be given up');
      const attempts = await stack.db.getRepository(DeliveryAttempt).find({ where: { deliveryId: (await deliveries.findOneByOrFail({ endpointId: id })).id } });
      expect(attempts.map((attempt) => attempt.error)).toEqual(Array(2).fill('refused: the URL must point at a public address'));
      expect([receiver.connections, receiver.received]).toEqual([0, []]);
    } finally {
      await receiver.stop();
    }
  });
});
