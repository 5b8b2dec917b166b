import { loadConfig } from '@app/shared';
import { Command, Option } from 'commander';
import { CliCommand, CliOption, UsageError } from './command';

/** How operators run it; the help's usage lines start with it. */
const INVOCATION = 'npm run --silent cli --';

const JSON_OPTION: CliOption = { flags: '--json', description: 'print one JSON object and nothing else on stdout' };

/**
 * The operator CLI as a commander program: 'products create' is the command create of the group
 * products; --help on every command, group and the program, whose help lists every command with its
 * flags. Errors come back from parseAsync instead of exiting (exitOverride): main sets the exit code.
 */
export function cliProgram(commands: CliCommand<object>[]): Command {
  const program = new Command(INVOCATION)
    .description(
      'The operator CLI. With --json a command prints one JSON object and nothing else on stdout; a command ' +
        'that fails exits non-zero with a message on stderr.',
    )
    .exitOverride()
    .showHelpAfterError()
    // Every command with its flags, however deep, so that one --help shows the whole CLI. A line with
    // the flags is too long for two columns: each description goes on the line below its command.
    .configureHelp({
      visibleCommands: commandsBelow,
      subcommandTerm: (command) => `${wordsOf(command).join(' ')} ${command.usage()}\n      ${command.description()}`,
      subcommandDescription: () => '',
      padWidth: (command, helper) => Math.max(helper.longestOptionTermLength(command, helper), helper.longestArgumentTermLength(command, helper)),
    });
  unknownCommandsFail(program);
  for (const spec of commands) addCommand(program, spec);
  return program;
}

function addCommand(program: Command, spec: CliCommand<object>): void {
  const words = spec.name.split(' ');
  let group = program;
  for (const word of words.slice(0, -1)) {
    group = group.commands.find((command) => command.name() === word) ?? unknownCommandsFail(group.command(word));
  }
  const command = group.command(words.at(-1)!).description(spec.description).usage(usage(spec.options, spec.argument?.name));
  if (spec.argument) command.argument(`<${spec.argument.name}>`, spec.argument.description);
  for (const { flags, description } of [...spec.options, JSON_OPTION]) command.option(flags, description);
  command.action((...args: unknown[]) =>
    act(command, async () => {
      const values = (spec.argument ? { ...(args[1] as object), [spec.argument.key]: args[0] } : args[0]) as Record<string, unknown>;
      for (const { flags, required } of spec.options) {
        const option = new Option(flags);
        if (required && !values[option.attributeName()]) throw new UsageError(required === true ? `${option.long} is required.` : required);
      }
      const output = await spec.run(values, loadConfig());
      process.stdout.write(`${values.json === true ? JSON.stringify(output.json) : output.text}\n`);
    }),
  );
}

/** A group (or the program) given no command or an unknown one: our message ('Unknown command: keys x'), not commander's. */
function unknownCommandsFail(group: Command): Command {
  return group
    .usage('<command> [options]')
    .argument('[command...]')
    .action((rest: string[]) =>
      act(group, async () => {
        const typed = [...wordsOf(group), ...rest].join(' ');
        throw new UsageError(typed ? `Unknown command: ${typed}` : 'No command given.');
      }),
    );
}

/** Runs an action; a UsageError is reported through commander: the message, then the command's help. */
async function act(command: Command, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof UsageError) command.error(error.message);
    throw error;
  }
}

/** `[FILE] --name N [--invite-url U] [--json]`: the argument and flags as the help's usage line shows them. */
function usage(options: CliOption[], argument?: string): string {
  const flags = [...options, JSON_OPTION]
    .map((option) => {
      const shown = option.flags.replace(/<([^>]+)>/, '$1');
      return option.required ? shown : `[${shown}]`;
    })
    .join(' ');
  return argument ? `${argument} ${flags}` : flags;
}

/** The words that run a command, without the program's name: ['products', 'create']. */
function wordsOf(command: Command): string[] {
  return command.parent ? [...wordsOf(command.parent), command.name()] : [];
}

/** What a help lists: the commands that run, below the groups ('products create', not 'products'). */
function commandsBelow(command: Command): Command[] {
  return command.commands.flatMap((sub) => (sub.commands.length ? commandsBelow(sub) : [sub]));
}
