import { EntryRecord } from '@app/shared';
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

  it('the entries list links to the import, whose form uploads a file, the token in its action', async () => {
    const list = await stack.request({ method: 'GET', url: `${base}/entries`, headers: { cookie: session.cookie } });
    expect(list.text).toContain(`href="${base}/entries/import"`);
    const page = await stack.request({ method: 'GET', url: `${base}/entries/import`, headers: { cookie: session.cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`action="${base}/entries/import?_csrf=${session.csrf}" enctype="multipart/form-data"`);
    expect(page.text).toContain('Show the columns');
    expect(page.text).not.toContain('name="mapping"');
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

  /** The upload form as a browser posts it: its fields, then the file. */
  const upload = (fields: Record<string, string>, file: string) =>
    stack.request({
      method: 'POST',
      url: `${base}/entries/import?_csrf=${session.csrf}`,
      headers: { cookie: session.cookie, 'content-type': 'multipart/form-data; boundary=x' },
      payload: [
        ...Object.entries(fields).map(([name, value]) => `--x\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
        `--x\r\nContent-Disposition: form-data; name="file"; filename="list.csv"\r\nContent-Type: text/csv\r\n\r\n${file}\r\n--x--\r\n`,
      ].join(''),
    });
  const pageAt = async (path: string) => (await stack.request({ method: 'GET', url: `${base}${path}`, headers: { cookie: session.cookie } })).text;

  /** The picker's hidden copy of the file's columns, as the page carries it. */
  const columnsIn = (page: string) => /name="columns" value="([^"]+)"/.exec(page)![1].replaceAll('&quot;', '"').replaceAll('&amp;', '&');
  /** Uploads `file` and answers the columns its picker carries, with the picks it shows first. */
  const picked = async (file: string) => {
    expect((await upload({}, file)).headers.location).toBe(`${base}/entries/import`);
    const page = await pageAt('/entries/import');
    return { columns: columnsIn(page), page };
  };

  it('shows an uploaded file\'s columns with its first rows and the fields it recognises, its picks posted before the file', async () => {
    const { page, columns } = await picked('Mail,Joined,Created_At\nada@example.com,yesterday,2025-03-01\nbob@example.com,today,2025-03-02\n');
    expect(page).toMatch(/<strong class="wrap">Joined<\/strong>\s*<p[^>]*>yesterday<br>today<\/p>/);
    expect(page).toMatch(/name="column0"[^>]*>.*<option value="email" selected>/s);
    expect(page).toMatch(/name="column2"[^>]*>.*?<option value="createdAt" selected>/s);
    expect(page.indexOf('name="column2"')).toBeLessThan(page.indexOf('type="file"'));
    expect(JSON.parse(columns)).toEqual({ header: ['Mail', 'Joined', 'Created_At'], rows: [['ada@example.com', 'yesterday', '2025-03-01'], ['bob@example.com', 'today', '2025-03-02']], upload: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('refuses a pick for a column the file does not have, or of no field, naming it, and a dry run of another file than the one whose columns were picked', async () => {
    const file = 'email\nada@example.com\n';
    const { columns } = await picked(file);
    await upload({ columns, column0: 'email', column1: 'createdAt' }, file);
    expect(await pageAt('/entries/import')).toContain('The file has no column 2: createdAt was picked for it.');
    await upload({ columns, column0: 'address' }, file);
    expect(await pageAt('/entries/import')).toContain('Pick one of email, createdAt, referralCode, referredBy, referralCount, state, id for the column email.');
    // The columns the form carries back are text from outside too.
    await upload({ columns: columns.replace('"header":["email"]', '"header":["e\\u0000mail"]'), column0: 'email' }, file);
    expect(await pageAt('/entries/import')).toContain('The field “header” cannot hold a NUL character');
    await upload({ columns: '{"header":', column0: 'email' }, file);
    expect(await pageAt('/entries/import')).toContain('The columns of the file could not be read back');
    // The same header with other rows: the bytes of the upload tell them apart.
    await upload({ columns, column0: 'email' }, 'email\neve@example.com\n');
    const refused = await pageAt('/entries/import');
    expect(refused).toContain('This is not the file whose columns you picked');
    expect(refused).not.toContain('Dry run: nothing was written');
    expect(await stack.db.getRepository(EntryRecord).countBy({ productId: product.id })).toBe(0);
  });

  it('imports only the file its dry run checked: another file chosen for the import is refused, with nothing written', async () => {
    const { columns } = await picked('email\nada@example.com\n');
    const options = { columns, column0: 'email', state: 'confirmed' };
    expect((await upload({ ...options, dryRun: 'true' }, 'email\nada@example.com\n')).headers.location).toBe(`${base}/entries/import`);
    const checked = await pageAt('/entries/import');
    expect(checked).toContain('Import 1 entry<');
    const checksum = /name="checksum" value="([0-9a-f]{64})"/.exec(checked)![1];
    const other = await upload({ ...options, dryRun: 'false', checksum }, 'email\neve@example.com\nbob@example.com\n');
    expect([other.status, other.headers.location]).toEqual([303, `${base}/entries/import`]);
    const refused = await pageAt('/entries/import');
    expect(refused).toContain('The file is not the one the dry run checked (a row, the mapping or the state differs); nothing was imported. Run the dry run on this file first.');
    expect(refused).toContain('Check the file (dry run)');
    // An import without a dry run's check is refused too: the dashboard imports only what it showed.
    await upload({ ...options, dryRun: 'false' }, 'email\neve@example.com\n');
    expect(await pageAt('/entries/import')).toContain('Check the file (dry run) first');
    expect(await stack.db.getRepository(EntryRecord).countBy({ productId: product.id })).toBe(0);

    const done = await upload({ ...options, dryRun: 'false', checksum }, 'email\nada@example.com\n');
    expect(done.headers.location).toBe(`${base}/entries`);
    expect(await pageAt('/entries')).toContain('Imported 1 entry (0 already here, 0 deleted or unsubscribed before, 0 bad rows).');
    expect(await stack.db.getRepository(EntryRecord).findBy({ productId: product.id })).toEqual([expect.objectContaining({ email: 'ada@example.com' })]);
  });
});
