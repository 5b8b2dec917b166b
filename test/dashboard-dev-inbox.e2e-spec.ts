import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { signUp } from './support/flows';
import { waitFor } from './support/wait';
import { Stack } from './support/stack';
import { PASSWORD, signIn } from './support/dashboard';

describe('dashboard: the development inbox (SMTP_URL unset)', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { SMTP_URL: '' } });
  });
  afterAll(() => stack.stop());

  it('is linked from the top bar and shows the mails the mailer would have sent', async () => {
    const acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    const { cookie } = await signIn(stack, 'ada@example.com');
    expect((await stack.request({ method: 'GET', url: '/dashboard', headers: { cookie } })).text).toContain('<a href="/dev/mail"');

    await signUp(stack, acme.keys.live.publishable, 'inbox@example.com');
    await waitFor(async () => (await stack.request({ method: 'GET', url: '/dev/mail' })).text.includes('to inbox@example.com'), 'the mail in the inbox');
    const inbox = (await stack.request({ method: 'GET', url: '/dev/mail' })).text;
    const mail = await stack.request({ method: 'GET', url: /href="(\/dev\/mail\/[^"]+)"/.exec(inbox)![1] });
    expect(mail.text).toContain(`${stack.config.PUBLIC_BASE_URL}/confirm/`);
  });

  it('a mail id that is not in the inbox answers a 404 page, whatever it looks like (400 when the URL cannot be decoded)', async () => {
    const ids = ['00000000-0000-0000-0000-000000000000', '42', '-1', '9'.repeat(400), '%C3%A9%F0%9F%98%80', '%00', '..%2F..%2Fdashboard'];
    for (const [id, status] of [...ids.map((id) => [id, 404] as const), ['%E0%A4%A', 400] as const]) {
      const answer = await stack.request({ method: 'GET', url: `/dev/mail/${id}` });
      expect([id, answer.status, answer.headers['content-type']]).toEqual([id, status, 'text/html; charset=utf-8']);
    }
  });

  it('is not linked, and not there, when mail goes to an SMTP server', async () => {
    const other = await Stack.start({ apps: ['api'] });
    try {
      const acme = await other.createProduct();
      await other.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
      const { cookie } = await signIn(other, 'ada@example.com');
      expect((await other.request({ method: 'GET', url: '/dashboard', headers: { cookie } })).text).not.toContain('/dev/mail');
      expect((await other.request({ method: 'GET', url: '/dev/mail' })).status).toBe(404);
    } finally {
      await other.stop();
    }
  });
});
