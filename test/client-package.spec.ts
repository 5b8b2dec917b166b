import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * @waitlist/client as someone who installs it gets it: compiled by its own tsconfig, packed with its
 * package.json's `files`, unpacked into a project's node_modules, then imported by Node.js (as an ES
 * module and through require) and type-checked by TypeScript with Node's and bundlers' resolution.
 */
const ROOT = resolve(__dirname, '..');
const PACKAGE = join(ROOT, 'libs/client');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

const run = (command: string, args: string[], cwd: string) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: 'pipe' });

/** TypeScript's complaints about a project (empty when it type-checks). */
const typeErrors = (project: string) =>
  new Promise<string>((done) => execFile(process.execPath, [TSC, '-p', project], { cwd: project }, (_error, stdout) => done(stdout)));

const NODE_TYPES = { lib: ['es2022'], types: ['node'], typeRoots: [join(ROOT, 'node_modules/@types')] };

/** A project of each kind that installs the package: its package.json type and compiler options. */
const CONSUMERS = {
  'an ES module project with Node.js resolution and @types/node': { type: 'module', compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', ...NODE_TYPES } },
  'a CommonJS project on Node.js': { type: 'commonjs', compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', ...NODE_TYPES } },
  "a bundler's resolution with the DOM types": { type: 'module', compilerOptions: { module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom'], types: [] } },
};

/** What a consumer writes: every kind of import, typed answers and errors, and a mistake the types must catch. */
const CONSUMER_CODE = `
import { WaitlistApiError, WaitlistClient, verifyWebhook, type CodeCheck, type Entry, type WebhookEvent } from '@waitlist/client';
const client = new WaitlistClient({ baseUrl: 'https://waitlist.example.com', secretKey: 'sk_test_x', fetch, timeoutMs: 5_000, maxRetries: 1 });
export async function use(raw: string, header: string | null): Promise<string> {
  const entry: Entry = await client.inviteEntry('ent_1', { safeRetry: true, signal: AbortSignal.timeout(1_000) });
  const check: CodeCheck = await client.redeemInvite('code');
  const event: WebhookEvent = await verifyWebhook(raw, header, 'whsec_x', { toleranceSeconds: 60 });
  try {
    await client.getEntry(entry.id);
  } catch (error) {
    if (error instanceof WaitlistApiError && error.code === 'not_found') return error.message;
  }
  return check.valid ? check.email : event.type;
}
// @ts-expect-error a state the API does not have
client.listEntries({ state: 'deleted' });
`;

describe('the @waitlist/client package', () => {
  let work: string;
  let project: string;
  let files: string[];
  const checks = new Map<string, Promise<string>>();

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'waitlist-client-'));
    const staged = join(work, 'staged');
    mkdirSync(staged);
    cpSync(join(PACKAGE, 'package.json'), join(staged, 'package.json'));
    cpSync(join(PACKAGE, 'README.md'), join(staged, 'README.md'));
    run(process.execPath, [TSC, '-p', join(PACKAGE, 'tsconfig.build.json'), '--outDir', join(staged, 'dist')], ROOT);
    const [packed] = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], staged)) as { filename: string; files: { path: string }[] }[];
    files = packed.files.map((file) => file.path).sort();
    const install = (into: string) => {
      const installed = join(into, 'node_modules/@waitlist/client');
      mkdirSync(installed, { recursive: true });
      run('tar', ['-xzf', join(work, packed.filename), '-C', installed, '--strip-components=1'], work);
    };
    project = join(work, 'project');
    install(project);
    // The type checks take seconds each: they run side by side while the other tests go on.
    for (const [index, [name, { type, compilerOptions }]] of Object.entries(CONSUMERS).entries()) {
      const consumer = join(work, `consumer-${index}`);
      install(consumer);
      writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type }));
      writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...compilerOptions, strict: true, noEmit: true }, files: ['consumer.ts'] }));
      writeFileSync(join(consumer, 'consumer.ts'), CONSUMER_CODE);
      checks.set(name, typeErrors(consumer));
    }
  }, 60_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('holds its compiled code, declarations, README and package.json, and depends on nothing', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/client.js', 'dist/webhooks.js']));
    expect(files.filter((file) => !/^dist\/\w+\.(js|d\.ts|js\.map)$/.test(file))).toEqual(['README.md', 'package.json']);
    expect(files.some((file) => file.includes('spec'))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8'));
    expect(Object.keys(manifest).filter((key) => /dependencies$/i.test(key))).toEqual([]);
  });

  it('runs from an ES module and from require: a client, and a webhook checked with Web Crypto', () => {
    const body = '{"id":"evt_1","type":"webhook.test"}';
    const script = (load: string) => `
      ${load}
      const { createHmac } = require('node:crypto');
      const t = Math.floor(Date.now() / 1000);
      const header = 't=' + t + ',v1=' + createHmac('sha256', 'whsec_x').update(t + '.' + ${JSON.stringify(body)}).digest('hex');
      new client.WaitlistClient({ baseUrl: 'https://waitlist.example.com', secretKey: 'sk_test_x' });
      client.verifyWebhook(${JSON.stringify(body)}, header, 'whsec_x').then((event) => console.log(event.type, typeof client.WaitlistApiError));
    `;
    const esm = script(`import * as client from '@waitlist/client'; import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);`);
    expect(run(process.execPath, ['--input-type=module', '-e', esm], project).trim()).toBe('webhook.test function');
    const cjs = script(`const client = require('@waitlist/client');`);
    expect(run(process.execPath, ['--no-warnings', '-e', cjs], project).trim()).toBe('webhook.test function');
  });

  it.each(Object.keys(CONSUMERS))('type-checks in %s', async (name) => {
    expect(await checks.get(name)).toBe('');
  });
});
