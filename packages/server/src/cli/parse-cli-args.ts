import { parseArgs } from 'node:util';
import { UsageError } from './cli-errors.js';
import { COMMAND_GROUPS, COMMANDS, GLOBAL_OPTIONS, type CommandSpec } from './command-specs.js';

/** Options every command takes, as given on the command line (environment defaults not applied yet). */
export interface GlobalFlags {
  readonly databaseUrl: string | undefined;
  readonly dataDir: string | undefined;
  readonly json: boolean;
}

/** What a command line asks for. */
export type ParsedCli =
  | { readonly kind: 'help'; readonly command: CommandSpec | null; readonly group: string | null }
  | { readonly kind: 'version' }
  | {
      readonly kind: 'run';
      readonly command: CommandSpec;
      readonly global: GlobalFlags;
      /** The command's own options, by name. */
      readonly options: Readonly<Record<string, string | boolean | undefined>>;
      /** Every value of each option that may be repeated (`multiple`), in order; the last is also in `options`. */
      readonly repeated: Readonly<Record<string, readonly string[]>>;
      readonly positionals: readonly string[];
    };

const GLOBAL_VALUE_OPTIONS = new Set(
  Object.entries(GLOBAL_OPTIONS)
    .filter(([, option]) => option.type === 'string')
    .map(([name]) => `--${name}`),
);

/**
 * Parses `fleet-hours` arguments: the command words (e.g. `keys create`), the global options
 * (anywhere on the line) and the command's own options and positionals, strictly.
 *
 * @param argv The arguments after the program name.
 * @returns What to do.
 * @throws {UsageError} For an unknown command or option, a missing value, a missing required
 *   option or the wrong number of positionals.
 */
export function parseCliArgs(argv: readonly string[]): ParsedCli {
  const wantsHelp = argv.some((arg) => arg === '--help' || arg === '-h');
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) return { kind: 'version' };

  // The command words are the first two arguments that are neither options nor values of the
  // global options; a command's own options only come after its name.
  const wordIndexes: number[] = [];
  for (let index = 0; index < argv.length && wordIndexes.length < 2; index += 1) {
    const arg = argv[index]!;
    if (arg === '--') break;
    if (arg.startsWith('-') && arg !== '-') {
      if (GLOBAL_VALUE_OPTIONS.has(arg)) index += 1;
      if (wordIndexes.length > 0) break;
      continue;
    }
    const [first] = wordIndexes;
    if (first !== undefined && !(argv[first]! in COMMAND_GROUPS)) break;
    wordIndexes.push(index);
  }

  const words = wordIndexes.map((index) => argv[index]!);
  const [groupOrCommand, subcommand] = words;
  if (groupOrCommand === undefined || groupOrCommand === 'help') {
    if (wantsHelp || groupOrCommand === 'help') return { kind: 'help', command: null, group: null };
    throw new UsageError('No command given');
  }

  const isGroup = groupOrCommand in COMMAND_GROUPS;
  if (!isGroup && !COMMANDS.some((command) => command.name === groupOrCommand)) {
    throw new UsageError(`Unknown command "${groupOrCommand}"${suggest(groupOrCommand, topLevelWords())}`);
  }
  if (isGroup && subcommand === undefined) {
    if (wantsHelp) return { kind: 'help', command: null, group: groupOrCommand };
    throw new UsageError(`"${groupOrCommand}" needs a subcommand`, groupOrCommand);
  }
  const name = isGroup ? `${groupOrCommand} ${subcommand}` : groupOrCommand;
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    const siblings = COMMANDS.filter((candidate) => candidate.name.startsWith(`${groupOrCommand} `)).map(
      (candidate) => candidate.name.split(' ')[1]!,
    );
    throw new UsageError(`Unknown command "${name}"${suggest(subcommand!, siblings)}`, groupOrCommand);
  }
  if (wantsHelp) return { kind: 'help', command, group: null };

  const usedWords = isGroup ? wordIndexes : wordIndexes.slice(0, 1);
  const rest = argv.filter((_, index) => !usedWords.includes(index));
  const known = { ...GLOBAL_OPTIONS, ...command.options };
  // Not strict: the options are checked below, from parseArgs's tokens, so that each message is
  // ours and no error text of Node's needs to be read.
  const parsed = parseArgs({ args: [...rest], options: toParseArgsOptions(known), allowPositionals: true, strict: false, tokens: true });
  for (const token of parsed.tokens) {
    if (token.kind === 'option') checkOption(token, known, command.name);
  }

  const given = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const repeated: Record<string, readonly string[]> = {};
  const values: Record<string, string | boolean | undefined> = {};
  for (const [name, value] of Object.entries(given)) {
    if (Array.isArray(value)) repeated[name] = value;
    values[name] = Array.isArray(value) ? value[value.length - 1] : value;
  }
  for (const required of command.required) {
    if (values[required] === undefined) throw new UsageError(`Missing option --${required}`, command.name);
  }
  const expected = command.positionals.length;
  if (parsed.positionals.length !== expected) {
    const wanted = command.positionals.map((positional) => positional.name).join(' ');
    const message =
      parsed.positionals.length < expected
        ? `Missing argument ${command.positionals
            .slice(parsed.positionals.length)
            .map((positional) => positional.name)
            .join(' ')}`
        : `Unexpected argument "${parsed.positionals[expected]}"${expected === 0 ? '' : ` (expected ${wanted})`}`;
    throw new UsageError(message, command.name);
  }

  const options: Record<string, string | boolean | undefined> = {};
  for (const optionName of Object.keys(command.options)) options[optionName] = values[optionName];
  return {
    kind: 'run',
    command,
    global: {
      databaseUrl: values['database-url'] as string | undefined,
      dataDir: values['data-dir'] as string | undefined,
      json: values.json === true,
    },
    options,
    repeated,
    positionals: parsed.positionals,
  };
}

function toParseArgsOptions(options: CommandSpec['options']) {
  return Object.fromEntries(
    Object.entries(options).map(([name, option]) => [
      name,
      {
        type: option.type,
        ...(option.short ? { short: option.short } : {}),
        ...(option.multiple ? { multiple: true } : {}),
      },
    ]),
  ) as Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;
}

/** `-5h`, `-3`, `-.5`: a value, not an option. */
const NEGATIVE_NUMBER = /^-\.?\d/;

/** Refuses an option the command does not take, a value missing, or a value given to a flag. */
function checkOption(
  token: {
    readonly rawName: string;
    readonly name: string;
    readonly value?: string | undefined;
    readonly inlineValue?: boolean | undefined;
  },
  known: CommandSpec['options'],
  commandName: string,
): void {
  const option = Object.hasOwn(known, token.name) ? known[token.name] : undefined;
  if (option === undefined) throw new UsageError(`Unknown option ${token.rawName}`, commandName);
  if (option.type === 'boolean') {
    if (token.value !== undefined) throw new UsageError(`Option ${token.rawName} takes no value`, commandName);
    return;
  }
  // A value that looks like an option (`--label --json`) is more likely a forgotten value; one that
  // really starts with a dash is written `--label=-x`. A lone `-` (stdin) is a value, and so is a
  // negative number (`--reading -5h`, D50: no option starts with a digit), which the option's own
  // rule then takes or refuses with its own message.
  const looksLikeOption =
    token.inlineValue === false &&
    token.value !== undefined &&
    token.value.length > 1 &&
    token.value.startsWith('-') &&
    !NEGATIVE_NUMBER.test(token.value);
  if (token.value === undefined || looksLikeOption) throw new UsageError(`Option ${token.rawName} needs a value`, commandName);
}

function topLevelWords(): string[] {
  return [...new Set(COMMANDS.map((command) => command.name.split(' ')[0]!))];
}

function suggest(word: string, candidates: readonly string[]): string {
  const close = candidates.find((candidate) => editDistance(word, candidate) <= 2 || candidate.startsWith(word));
  return close ? `; did you mean "${close}"?` : '';
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
