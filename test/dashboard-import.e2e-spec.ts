import { DashboardAuthService } from '../apps/api/src/dashboard/dashboard-auth.service';
import { csrfIn, form, PASSWORD, signIn } from './support/dashboard';
import { Product, Stack } from './support/stack';

describe('dashboard: import entries', () => {
  let stack: Stack;
  let product: Product;
  let session: { cookie: string; csrf: string };
  let base: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'] });
    product = await stack.createProduct();
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, product.id);
    session = await signIn(stack, 'ada@example.com');
    base = `/dashboard/${product.id}/test`;
  });
  afterAll(() => stack.stop());

  it('the entries list links to the import, whose form uploads a file after its options, the token in its action', async () => {
    const list = await stack.request({ method: 'GET', url: `${base}/entries`, headers: { cookie: session.cookie } });
    expect(list.text).toContain(`href="${base}/entries/import"`);
    const page = await stack.request({ method: 'GET', url: `${base}/entries/import`, headers: { cookie: session.cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`action="${base}/entries/import?_csrf=${session.csrf}" enctype="multipart/form-data"`);
    expect(page.text.indexOf('name="mapping"')).toBeLessThan(page.text.indexOf('type="file"'));
    expect(page.text).toContain('Check the file (dry run)');
  });

  it('refuses an upload without the token (403), and a form that is not multipart with the reason on the import page', async () => {
    const multipart = { cookie: session.cookie, 'content-type': 'multipart/form-data; boundary=x' };
    const forged = await stack.request({ method: 'POST', url: `${base}/entries/import?_csrf=made-up`, headers: multipart, payload: '--x--\r\n' });
    expect(forged.status).toBe(403);
    const urlencoded = await stack.request({
      method: 'POST',
      url: `${base}/entries/import`,
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ _csrf: session.csrf, file: 'email\nada@example.com' }),
    });
    expect([urlencoded.status, urlencoded.headers.location]).toEqual([303, `${base}/entries/import`]);
    const page = await stack.request({ method: 'GET', url: `${base}/entries/import`, headers: { cookie: session.cookie } });
    expect(page.text).toContain('Send the form as multipart/form-data, with its file.');
    expect(csrfIn(page.text)).toBe(session.csrf);
    // Shown once.
    expect((await stack.request({ method: 'GET', url: `${base}/entries/import`, headers: { cookie: session.cookie } })).text).not.toContain('multipart/form-data, with');
  });
});
