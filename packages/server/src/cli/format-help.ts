import { COMMAND_GROUPS, COMMANDS, GLOBAL_OPTIONS, type CommandSpec, type OptionSpec } from './command-specs.js';

const PROGRAM = 'fleet-hours';
/** The width help text wraps at. */
const HELP_WIDTH = 110;

/**
 * The `--help` text of the whole program, of a command group (`keys`) or of one command.
 *
 * @param topic A command, a group name, or neither for the overview.
 * @returns Text ending with a newline.
 */
export function formatHelp(topic: { readonly command?: CommandSpec | null; readonly group?: string | null } = {}): string {
  if (topic.command) return commandHelp(topic.command);
  if (topic.group) return groupHelp(topic.group);
  return overview();
}

function overview(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return [
    `${PROGRAM}: the Fleet Hours reference server and operator CLI`,
    '',
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    'Commands:',
    ...COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    optionBlock('Options of every command:', GLOBAL_OPTIONS),
    'Environment:',
    '  DATABASE_URL          PostgreSQL server, when --database-url is not given',
    '  FLEET_HOURS_DATA_DIR  embedded database directory, when --data-dir is not given',
    '  FLEET_HOURS_…         every setting of serve, e.g. FLEET_HOURS_PORT (see "fleet-hours serve --help")',
    '',
    'Exit codes: 0 done, 1 failed (bad file, missing record, database error), 2 wrong command line.',
    `Run "${PROGRAM} <command> --help" for a command's options and examples.`,
    '',
  ].join('\n');
}

function groupHelp(group: string): string {
  const commands = COMMANDS.filter((command) => command.name.startsWith(`${group} `));
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    `${PROGRAM} ${group}: ${COMMAND_GROUPS[group] ?? ''}`,
    '',
    `Usage: ${PROGRAM} ${group} <${commands.map((command) => command.name.split(' ')[1]).join('|')}> [options]`,
    '',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    `Run "${PROGRAM} ${group} <subcommand> --help" for its options and examples.`,
    '',
  ].join('\n');
}

function commandHelp(command: CommandSpec): string {
  const required = command.required.map((name) => `--${name} ${command.options[name]?.placeholder ?? ''}`.trim());
  const usage = [PROGRAM, command.name, ...command.positionals.map((positional) => positional.name), ...required, '[options]'].join(' ');
  const lines = [`${PROGRAM} ${command.name}: ${command.summary}`, '', `Usage: ${usage}`, ''];
  if (command.details) lines.push(...wrap(command.details, 96), '');
  if (command.positionals.length > 0) {
    const width = Math.max(...command.positionals.map((positional) => positional.name.length));
    lines.push(
      'Arguments:',
      ...command.positionals.map((positional) => `  ${positional.name.padEnd(width)}  ${positional.description}`),
      '',
    );
  }
  if (Object.keys(command.options).length > 0) {
    const marked = Object.fromEntries(
      Object.entries(command.options).map(([name, option]) => [
        name,
        command.required.includes(name) ? { ...option, description: `${option.description} Required.` } : option,
      ]),
    );
    lines.push(optionBlock('Options:', marked));
  }
  lines.push(optionBlock('Options of every command:', GLOBAL_OPTIONS));
  lines.push('Examples:', ...command.examples.map((example) => `  ${example}`), '');
  return lines.join('\n');
}

function optionBlock(title: string, options: Readonly<Record<string, OptionSpec>>): string {
  const labels = Object.entries(options).map(([name, option]) => {
    const flag = option.short ? `-${option.short}, --${name}` : `--${name}`;
    return [option.placeholder ? `${flag} ${option.placeholder}` : flag, option.description] as const;
  });
  const width = Math.max(...labels.map(([label]) => label.length));
  // Long descriptions (serve's settings: text, default and variable) wrap under themselves.
  const textWidth = Math.max(40, HELP_WIDTH - width - 4);
  const indent = ' '.repeat(width + 4);
  return [
    title,
    ...labels.flatMap(([label, description]) =>
      wrap(description, textWidth).map((line, index) => (index === 0 ? `  ${label.padEnd(width)}  ${line}` : `${indent}${line}`)),
    ),
    '',
  ].join('\n');
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
