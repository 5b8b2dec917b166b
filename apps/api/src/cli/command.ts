import type { AppConfig } from '@app/shared';

/** What a command prints: `json` with --json (one object on one line), `text` otherwise. */
export interface Output {
  json: object;
  text: string;
}

/** A command called the wrong way: its message and the command's help go to stderr, and it exits 1. */
export class UsageError extends Error {}

export interface CliOption {
  /** commander's syntax: `--name <N>` takes a value (N names it in the help), `--operator` is a switch. */
  flags: string;
  description: string;
  /** Checked before the command runs: missing, it fails with '--name is required.', or with this message. */
  required?: true | string;
}

/**
 * One operator command. `run` gets the options by commander's camelCase names (`--invite-url` is
 * `inviteUrl`), the required ones checked, and the configuration; what it returns is printed.
 */
export interface CliCommand<Options extends object> {
  /** The words operators type, e.g. 'products create'. */
  name: string;
  description: string;
  /** A value typed after the words (entries import FILE), handed to run as the option named `key`. */
  argument?: { name: string; key: string; description: string };
  options: CliOption[];
  run(options: Options, config: AppConfig): Promise<Output>;
}
