import { Browser, Page } from 'playwright-core';
import { EntryRecord } from '@app/shared';
import { join } from 'node:path';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { dashboardPage } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { Product, Stack } from './support/stack';

const FILE = join(__dirname, 'fixtures/imports/getwaitlist.csv');
/** An export of a tool the import does not know: its columns are picked on the page. */
const OLD_TOOL = {
  name: 'old-tool.csv',
  mimeType: 'text/csv',
  buffer: Buffer.from('E-Mail Address,Joined On,Their Code\nbarbara@example.com,2024-11-02T09:00:00.000Z,BARB1\nedsger@example.com,2024-11-03T09:00:00.000Z,EDS2\n'),
};

/** The dashboard's import, clicked through in Debian's chromium: a dry run with a bad row, then the import. */
describe('dashboard import in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let acme: Product;
  /** Where the stack's dashboard is served. */
  let origin: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'] });
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ browser, page } = await dashboardPage(stack, 'ada@example.com', PASSWORD));
    origin = new URL(page.url()).origin;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('uploads a GetWaitlist export once, sees the dry run with its bad row and nothing written, imports that same upload and sees the entries', async () => {
    await page.getByRole('link', { name: 'Acme' }).click();
    await page.getByRole('navigation').getByRole('link', { name: 'Entries', exact: true }).click();
    await page.getByRole('link', { name: 'Import CSV' }).click();

    await page.getByLabel('CSV file').setInputFiles(FILE);
    await page.getByRole('button', { name: 'Show the columns' }).click();
    // A recognised export comes with its fields already chosen.
    expect(await page.getByLabel('Field of column referral_token').inputValue()).toBe('referralCode');
    // The file is held on the server: it is not chosen again.
    expect(await page.getByLabel('CSV file').count()).toBe(0);
    await page.getByRole('button', { name: 'Check the file (dry run)' }).click();
    expect(await page.getByRole('heading', { name: 'Dry run: nothing was written' }).count()).toBe(1);
    const badRows = page.locator('h2:has-text("Bad rows") + div table');
    expect(await badRows.textContent()).toContain('4');
    expect(await badRows.textContent()).toContain('not a valid email address');
    expect(await stack.db.getRepository(EntryRecord).countBy({ productId: acme.id })).toBe(0);

    expect(await page.getByLabel('CSV file').count()).toBe(0);
    await page.getByRole('button', { name: 'Import 3 entries' }).click();
    expect(page.url()).toMatch(/\/entries$/);
    expect(await page.getByRole('status').textContent()).toContain('Imported 3 entries');
    for (const email of ['ada@example.com', 'grace@example.com', 'linus@example.com']) expect(await page.getByRole('link', { name: email }).count()).toBe(1);
    expect(await page.locator('tr', { hasText: 'ada@example.com' }).textContent()).toContain('2025-03-01');
  });

  it('import with the column picker: without JavaScript, a file of a tool it does not know shows its columns with the first rows, takes the fields picked beside them, dry-runs and imports that same upload: the file is chosen once', async () => {
    // Without JavaScript: the picker, the dry run and the import are plain forms.
    const context = await browser.newContext({ baseURL: origin, javaScriptEnabled: false });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto('/dashboard/login');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.goto(`/dashboard/${acme.id}/live/entries/import`);
    await page.getByLabel('CSV file').setInputFiles(OLD_TOOL);
    await page.getByRole('button', { name: 'Show the columns' }).click();

    const columns = page.locator('#columns');
    expect(await columns.textContent()).toContain('E-Mail Address');
    expect(await columns.textContent()).toContain('barbara@example.com');
    expect(await columns.textContent()).toContain('2024-11-02');
    // "E-Mail Address" names a field; "Joined On" and "Their Code" do not.
    expect(await page.getByLabel('Field of column E-Mail Address').inputValue()).toBe('email');
    expect(await page.getByLabel('Field of column Joined On').inputValue()).toBe('');
    await page.getByLabel('Field of column Joined On').selectOption('createdAt');
    await page.getByLabel('Field of column Their Code').selectOption('referralCode');

    // The file was chosen once, at the upload: the picker's form carries the upload held on the server.
    expect(await page.getByLabel('CSV file').count()).toBe(0);
    await page.getByRole('button', { name: 'Check the file (dry run)' }).click();
    expect(await page.getByRole('heading', { name: 'Dry run: nothing was written' }).count()).toBe(1);
    expect(await page.locator('h2:has-text("Rows") + div table').textContent()).toContain('edsger@example.com');
    expect(await stack.db.getRepository(EntryRecord).countBy({ productId: acme.id, email: 'barbara@example.com' })).toBe(0);

    expect(await page.getByLabel('CSV file').count()).toBe(0);
    await page.getByRole('button', { name: 'Import 2 entries' }).click();
    expect(page.url()).toMatch(/\/entries$/);
    expect(await page.getByRole('status').textContent()).toContain('Imported 2 entries');
    expect(await page.locator('tr', { hasText: 'barbara@example.com' }).textContent()).toContain('2024-11-02');
    expect(await page.getByRole('link', { name: 'edsger@example.com' }).count()).toBe(1);
    // Imported, the upload is no longer held.
    expect(await stack.db.query('SELECT id FROM import_uploads WHERE product_id = $1', [acme.id])).toEqual([]);
    await context.close();
  });

  it('an upload no longer held (its hour is over) is refused in words at the dry run, with the upload form to start again', async () => {
    await page.goto(`/dashboard/${acme.id}/test/entries/import`);
    await page.getByLabel('CSV file').setInputFiles(OLD_TOOL);
    await page.getByRole('button', { name: 'Show the columns' }).click();
    expect(await page.getByLabel('Field of column E-Mail Address').inputValue()).toBe('email');
    await stack.db.query(`UPDATE import_uploads SET expires_at = now() - interval '1 second' WHERE product_id = $1 AND mode = 'test'`, [acme.id]);
    await page.getByRole('button', { name: 'Check the file (dry run)' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('The uploaded file is no longer held');
    expect(await page.getByRole('button', { name: 'Show the columns' }).count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'Dry run: nothing was written' }).count()).toBe(0);
  });
});
