import '@app/shared/startup/check-node';
import 'reflect-metadata';
import { CommanderError } from 'commander';
import { CliCommand } from './command';
import { demo } from './demo.command';
import { entriesImport } from './entries-import.command';
import { keysCreate } from './keys-create.command';
import { keysRevoke } from './keys-revoke.command';
import { migrate } from './migrate.command';
import { productsCreate } from './products-create.command';
import { productsUpdate } from './products-update.command';
import { releasesCreate } from './releases-create.command';
import { releasesDelete } from './releases-delete.command';
import { releasesList } from './releases-list.command';
import { releasesRun } from './releases-run.command';
import { releasesRuns } from './releases-runs.command';
import { releasesUpdate } from './releases-update.command';
import { secretsReencrypt } from './secrets-reencrypt.command';
import { cliProgram } from './program';
import { usersCreate } from './users-create.command';
import { webhooksCreate } from './webhooks-create.command';
import { webhooksTest } from './webhooks-test.command';

/** In the order the help lists them. */
const COMMANDS: CliCommand<object>[] = [migrate, productsCreate, productsUpdate, keysCreate, keysRevoke, webhooksCreate, webhooksTest, entriesImport, releasesList, releasesCreate, releasesUpdate, releasesRun, releasesRuns, releasesDelete, usersCreate, secretsReencrypt, demo];

async function main(): Promise<void> {
  try {
    await cliProgram(COMMANDS).parseAsync(process.argv);
  } catch (error) {
    // commander has written its own message (a usage error) or the help already.
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}

void main();
