import { EntryRecord } from '@app/shared';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { WaitlistClient } from '@waitlist/client';
import { bearer } from './support/flows';
import { fixture } from './support/imports';
import { Product, Stack } from './support/stack';

const CLI = join(__dirname, '..', 'dist', 'apps', 'api', 'src', 'cli', 'main.js');

/** The import's three edges with real CSV bytes: the API route, the CLI and the typed client. */
describe('import of CSV bytes', () => {
  let stack: Stack;
  let product: Product;
  const entries = () => stack.db.getRepository(EntryRecord).find({ where: { productId: product.id, mode: 'test' }, order: { email: 'ASC' } });
  const post = (query: string, payload: string | Buffer) =>
    stack.request({ method: 'POST', url: `/api/v1/entries/import${query}`, headers: { ...bearer(product.keys.test.secret), 'content-type': 'text/csv' }, payload });

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error('The CLI is not built: npm test builds it (npm run build:js)');
    stack = await Stack.start({ apps: ['api'] });
  });
  afterAll(() => stack.stop());
  beforeEach(async () => {
    product = await stack.createProduct();
  });

  it('a dry run answers the report and writes nothing; the import then writes what it said', async () => {
    const dry = await stack.request({
      method: 'POST',
      url: '/api/v1/entries/import?dryRun=true',
      headers: { ...bearer(product.keys.test.secret), 'content-type': 'text/csv; charset=utf-8' },
      payload: fixture('getwaitlist.csv'),
    });
    expect(dry.status).toBe(200);
    expect(dry.json()).toMatchObject({ dryRun: true, format: 'getwaitlist', rows: 4, created: 3, invalid: 1, problems: [{ line: 4, reason: 'invalid_email' }] });
    expect(await entries()).toEqual([]);
    const done = await post('', fixture('getwaitlist.csv'));
    expect(done.json()).toMatchObject({ ...dry.json(), dryRun: false });
    expect((await entries()).map((entry) => entry.email)).toEqual(['ada@example.com', 'grace@example.com', 'linus@example.com']);
  });

  it("imports with a dry run's checksum only the rows it checked, read as it read them: another file, mapping or state is refused and writes nothing", async () => {
    const checked = (await post('?dryRun=true', fixture('getwaitlist.csv'))).json();
    expect(checked.checksum).toMatch(/^[0-9a-f]{64}$/);
    const other = fixture('getwaitlist.csv').replace('ada@example.com', 'eve@example.com');
    const refused = [
      await post(`?checksum=${checked.checksum}`, other),
      await post(`?checksum=${checked.checksum}&state=pending`, fixture('getwaitlist.csv')),
      await post(`?checksum=${checked.checksum}&mapping=${encodeURIComponent('{"email":"email"}')}`, fixture('getwaitlist.csv')),
      await post('?checksum=made-up', fixture('getwaitlist.csv')),
    ];
    expect(refused.map((answer) => [answer.status, answer.json().error.code, answer.json().error.param])).toEqual(Array(4).fill([400, 'invalid_request', 'checksum']));
    expect(refused[0].json().error.message).toBe('The file is not the one the dry run checked (a row, the mapping or the state differs); nothing was imported. Run the dry run on this file first.');
    expect(await entries()).toEqual([]);
    // The same rows in other bytes (\r\n line ends) are the same check.
    const done = await post(`?checksum=${checked.checksum}`, fixture('getwaitlist.csv').replaceAll('\n', '\r\n'));
    expect(done.json()).toEqual({ ...checked, dryRun: false });
    expect(await entries()).toHaveLength(3);
  });

  it('imports a checked file sent twice at once once', async () => {
    const { checksum } = (await post('?dryRun=true', fixture('getwaitlist.csv'))).json();
    const answers = await Promise.all([1, 2].map(() => post(`?checksum=${checksum}`, fixture('getwaitlist.csv'))));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers.map((answer) => answer.json().created).sort()).toEqual([0, 3]);
    expect(await entries()).toHaveLength(3);
  });

  it('reads quoted cells, quoted commas and line breaks, CRLF and a byte order mark, naming a bad row by the line it starts on', async () => {
    const file = '\uFEFFemail,created_at,referral_token,amount_referred\r\n"Ada@Example.com","2025-01-01T00:00:00Z","a,b",0\n"x\ny",2025-01-02,,0\r\nbob@example.com,2025-01-03,,1\r\n';
    const report = (await post('', file)).json();
    expect(report).toMatchObject({ created: 2, invalid: 1, problems: [{ line: 3, reason: 'invalid_email' }] });
    expect((await entries()).map((entry) => [entry.email, entry.referralCode === 'a,b'])).toEqual([['ada@example.com', false], ['bob@example.com', false]]);
  });

  it('refuses a file that is not CSV, naming the line, and one over 20 MiB; nothing is written', async () => {
    const broken = await post('?mapping=%7B%22email%22%3A%22email%22%7D', 'email\nada@example.com\n"unclosed\n');
    expect([broken.status, broken.json().error.code]).toEqual([400, 'invalid_request']);
    expect(broken.json().error.message).toMatch(/line 3/);
    const huge = await post('?mapping=%7B%22email%22%3A%22email%22%7D', Buffer.concat([Buffer.from('email\n'), Buffer.alloc(21 * 1024 * 1024, 'a@example.com\n')]));
    expect([huge.status, huge.json().error.message]).toEqual([400, expect.stringContaining('20 MiB')]);
    expect(await entries()).toEqual([]);
  });

  it('the CLI imports a file, and a second run changes nothing', async () => {
    const run = () =>
      promisify(execFile)('node', [CLI, 'entries', 'import', join(__dirname, 'fixtures/imports/viral-loops.csv'), '--product', product.id, '--mode', 'test', '--json'], {
        env: { PATH: process.env.PATH, NODE_PATH: process.env.NODE_PATH ?? '', DATABASE_URL: stack.config.DATABASE_URL, REDIS_URL: stack.config.REDIS_URL, LOG_LEVEL: 'silent' },
      });
    expect(JSON.parse((await run()).stdout)).toMatchObject({ format: 'viral-loops', created: 2, invalid: 1 });
    const before = await entries();
    expect(JSON.parse((await run()).stdout)).toMatchObject({ created: 0, existing: 2 });
    expect(await entries()).toEqual(before);
  });

  it('the client imports a text and a stream, held to its dry run by the checksum', async () => {
    const client = new WaitlistClient({ baseUrl: await stack.url(), secretKey: product.keys.test.secret });
    const checked = await client.importEntries(fixture('prefinery.csv'), { dryRun: true });
    expect(checked).toMatchObject({ dryRun: true, format: 'prefinery', created: 2 });
    await expect(client.importEntries(fixture('getwaitlist.csv'), { checksum: checked.checksum })).rejects.toMatchObject({ code: 'invalid_request', param: 'checksum' });
    expect(await client.importEntries(Readable.from([Buffer.from(fixture('prefinery.csv'))]), { checksum: checked.checksum })).toMatchObject({ dryRun: false, created: 2 });
    expect(await entries()).toHaveLength(2);
  });
});
