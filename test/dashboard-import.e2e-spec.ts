import { EntryRecord } from '@app/shared';
import { createHash } from 'node:crypto';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { MaintenanceService } from '../apps/api/src/maintenance/maintenance.service';
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
  const upload = (file: string, at = base, who = session) =>
    stack.request({
      method: 'POST',
      url: `${at}/entries/import?_csrf=${who.csrf}`,
      headers: { cookie: who.cookie, 'content-type': 'multipart/form-data; boundary=x' },
      payload: `--x\r\nContent-Disposition: form-data; name="file"; filename="list.csv"\r\nContent-Type: text/csv\r\n\r\n${file}\r\n--x--\r\n`,
    });
  const pageAt = async (path: string, at = base, who = session) => (await stack.request({ method: 'GET', url: `${at}${path}`, headers: { cookie: who.cookie } })).text;
  /** The picker's and the import's forms, as a browser posts them: the upload held on the server, never the file. */
  const post = (fields: Record<string, string>, at = base, who = session) =>
    stack.request({
      method: 'POST',
      url: `${at}/entries/import/staged`,
      headers: { cookie: who.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ _csrf: who.csrf, ...fields }),
    });
  /** Uploads `file` and answers the picker's page and the id of the upload its forms carry. */
  const picked = async (file: string) => {
    expect((await upload(file)).headers.location).toBe(`${base}/entries/import`);
    const page = await pageAt('/entries/import');
    return { held: /name="upload" value="([0-9a-f-]{36})"/.exec(page)![1], page };
  };
  const NO_LONGER_HELD = 'The uploaded file is no longer held';

  it('holds an uploaded file on the server for an hour and shows its columns with its first rows and the fields it recognises; its forms carry the upload, not the file', async () => {
    const file = 'Mail,Joined,Created_At\nada@example.com,yesterday,2025-03-01\nbob@example.com,today,2025-03-02\n';
    const { page, held } = await picked(file);
    expect(page).toMatch(/<strong class="wrap">Joined<\/strong>\s*<p[^>]*>yesterday<br>today<\/p>/);
    expect(page).toMatch(/name="column0"[^>]*>.*<option value="email" selected>/s);
    expect(page).toMatch(/name="column2"[^>]*>.*?<option value="createdAt" selected>/s);
    expect(page).not.toContain('type="file"');
    const [row] = await stack.db.query(
      `SELECT product_id, mode, user_id, file_name, convert_from(bytes, 'UTF8') AS text, sha256, extract(epoch FROM expires_at - created_at)::int AS seconds FROM import_uploads WHERE id = $1`,
      [held],
    );
    const [user] = await stack.db.query(`SELECT id FROM dashboard_users WHERE email = 'ada@example.com'`);
    expect(row).toEqual({ product_id: product.id, mode: 'test', user_id: user.id, file_name: 'list.csv', text: file, sha256: createHash('sha256').update(file).digest('hex'), seconds: 3600 });
    expect(page).toContain(row.sha256.slice(0, 12));
  });

  it('refuses a pick for a column the file does not have, or of no field, naming it, with the picker again', async () => {
    const { held } = await picked('email\nada@example.com\n');
    await post({ upload: held, column0: 'email', column1: 'createdAt', dryRun: 'true' });
    const page = await pageAt('/entries/import');
    expect(page).toContain('The file has no column 2: createdAt was picked for it.');
    expect(page).toContain(`name="upload" value="${held}"`);
    await post({ upload: held, column0: 'address', dryRun: 'true' });
    expect(await pageAt('/entries/import')).toContain('Pick one of email, createdAt, referralCode, referredBy, referralCount, state, id for the column email.');
    expect(await stack.db.getRepository(EntryRecord).countBy({ productId: product.id })).toBe(0);
  });

  it('refuses, in words and with the upload form, an upload that is unknown, expired, of another product or mode, or of another person, and never answers 5xx', async () => {
    const { held } = await picked('email\nada@example.com\n');
    const refused = async (answer: { status: number; headers: Record<string, unknown> }, at = base, who = session) => {
      expect([answer.status, answer.headers.location]).toEqual([303, `${at}/entries/import`]);
      const page = await pageAt('/entries/import', at, who);
      expect(page).toContain(NO_LONGER_HELD);
      expect(page).toContain('Show the columns');
      expect(page).not.toContain('Dry run: nothing was written');
    };
    await refused(await post({ upload: 'made-up', column0: 'email', dryRun: 'true' }));
    await refused(await post({ column0: 'email', dryRun: 'true' }));
    await refused(await post({ upload: '00000000-0000-4000-8000-000000000000', column0: 'email', dryRun: 'true' }));

    await refused(await post({ upload: held, column0: 'email', dryRun: 'true' }, `/dashboard/${product.id}/live`), `/dashboard/${product.id}/live`);
    const other = await stack.createProduct({ name: 'Other' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, other.id);
    const otherBase = `/dashboard/${other.id}/test`;
    await refused(await post({ upload: held, column0: 'email', dryRun: 'true' }, otherBase), otherBase);
    await stack.api.get(DashboardAuthService).createUser('bob@example.com', PASSWORD, product.id);
    const bob = await signIn(stack, 'bob@example.com');
    await refused(await post({ upload: held, column0: 'email', dryRun: 'true' }, base, bob), base, bob);

    // Still held for its own product, mode and person, until its hour is over.
    await post({ upload: held, column0: 'email', dryRun: 'true' });
    expect(await pageAt('/entries/import')).toContain('Dry run: nothing was written');
    await stack.db.query(`UPDATE import_uploads SET expires_at = now() - interval '1 second' WHERE id = $1`, [held]);
    await refused(await post({ upload: held, column0: 'email', dryRun: 'true' }));
    await refused(await post({ upload: held, column0: 'email', dryRun: 'false', checksum: 'a'.repeat(64) }));
    expect(await stack.db.getRepository(EntryRecord).countBy({ productId: product.id })).toBe(0);
  });

  it('imports only what its dry run showed of the upload, then no longer holds it', async () => {
    const { held } = await picked('email,state\nada@example.com,\n');
    const options = { upload: held, column0: 'email', column1: '', state: 'confirmed' };
    expect((await post({ ...options, dryRun: 'true' })).headers.location).toBe(`${base}/entries/import`);
    const checked = await pageAt('/entries/import');
    expect(checked).toContain('Import 1 entry<');
    const checksum = /name="checksum" value="([0-9a-f]{64})"/.exec(checked)![1];
    // Read another way (another state, another mapping) the rows are not those the dry run showed.
    for (const other of [{ state: 'pending' }, { column1: 'state' }]) {
      const answer = await post({ ...options, ...other, dryRun: 'false', checksum });
      expect([answer.status, answer.headers.location]).toEqual([303, `${base}/entries/import`]);
      const refused = await pageAt('/entries/import');
      expect(refused).toContain('The file is not the one the dry run checked (a row, the mapping or the state differs); nothing was imported.');
      expect(refused).toContain('Check the file (dry run)');
    }
    // An import without a dry run's check is refused too: the dashboard imports only what it showed.
    await post({ ...options, dryRun: 'false' });
    expect(await pageAt('/entries/import')).toContain('Check the file (dry run) first');
    expect(await stack.db.getRepository(EntryRecord).countBy({ productId: product.id })).toBe(0);

    const done = await post({ ...options, dryRun: 'false', checksum });
    expect(done.headers.location).toBe(`${base}/entries`);
    expect(await pageAt('/entries')).toContain('Imported 1 entry (0 already here, 0 deleted or unsubscribed before, 0 bad rows).');
    expect(await stack.db.getRepository(EntryRecord).findBy({ productId: product.id })).toEqual([expect.objectContaining({ email: 'ada@example.com', state: 'confirmed' })]);
    expect(await stack.db.query('SELECT id FROM import_uploads WHERE id = $1', [held])).toEqual([]);
    await post({ ...options, dryRun: 'false', checksum });
    expect(await pageAt('/entries/import')).toContain(NO_LONGER_HELD);
  });

  it('text PostgreSQL cannot store, in the file’s name or in any field of the held upload’s forms, is refused or left out, never a 5xx, and imports nothing', async () => {
    const named = await stack.request({
      method: 'POST',
      url: `${base}/entries/import?_csrf=${session.csrf}`,
      headers: { cookie: session.cookie, 'content-type': 'multipart/form-data; boundary=x' },
      payload: `--x\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8\'\'li%00st.csv\r\nContent-Type: text/csv\r\n\r\nemail\nnul@example.com\r\n--x--\r\n`,
    });
    expect(named.status).toBe(303);
    const page = await pageAt('/entries/import');
    expect(page).toContain('list.csv');
    const held = /name="upload" value="([0-9a-f-]{36})"/.exec(page)![1];
    const fields = { upload: held, column0: 'email', state: 'confirmed', dryRun: 'false', checksum: 'a'.repeat(64) };
    for (const field of Object.keys(fields)) {
      for (const bad of ['\u0000', '\ud800']) {
        const answer = await post({ ...fields, [field]: `${fields[field as keyof typeof fields]}${bad}` });
        const page = await stack.request({ method: 'GET', url: String(answer.headers.location), headers: { cookie: session.cookie } });
        expect([field, answer.status, page.status]).toEqual([field, 303, 200]);
      }
    }
    expect(await stack.db.getRepository(EntryRecord).countBy({ productId: product.id, email: 'nul@example.com' })).toBe(0);
  });

  it('the maintenance round removes the uploads whose hour is over and keeps the others', async () => {
    const { held: old } = await picked('email\nold@example.com\n');
    const { held: fresh } = await picked('email\nfresh@example.com\n');
    await stack.db.query(`UPDATE import_uploads SET expires_at = now() - interval '1 second' WHERE id = $1`, [old]);
    expect(await stack.api.get(MaintenanceService).runOnce()).toBe(true);
    const held = (await stack.db.query('SELECT id FROM import_uploads WHERE id = ANY($1)', [[old, fresh]])).map((row: { id: string }) => row.id);
    expect(held).toEqual([fresh]);
  });
});
