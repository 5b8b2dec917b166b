import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Stack } from './stack';

const CLI = join(__dirname, '..', '..', 'dist', 'apps', 'api', 'src', 'cli', 'main.js');

// Each command is a node process that loads the CLI and its database and queue clients, about a second
// of CPU; a test runs up to a few dozen of them, which on a busy 2-core machine takes more than the
// suite's 30 s (seen at load averages above 7). A bound on a test's length, not a wait.
export const CLI_TEST_TIMEOUT = 120_000;

/** The stack the CLI's tests run it against: the api alone. */
export async function cliStack(): Promise<Stack> {
  if (!existsSync(CLI)) throw new Error('The CLI is not built: npm test builds it (npm run build:js)');
  return Stack.start({ apps: ['api'] });
}

/** Runs the built CLI on the stack's database and Redis: its exit code and what it printed. */
export async function runCli(stack: Stack, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)('node', [CLI, ...args], {
      env: { PATH: process.env.PATH, DATABASE_URL: stack.config.DATABASE_URL, REDIS_URL: stack.config.REDIS_URL, LOG_LEVEL: 'silent', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}
