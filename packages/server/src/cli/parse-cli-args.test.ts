import { describe, expect, it } from 'vitest';
import { UsageError } from './cli-errors.js';
import { COMMANDS } from './command-specs.js';
import { formatHelp } from './format-help.js';
import { parseCliArgs } from './parse-cli-args.js';

const run = (argv: string[]) => {
  const parsed = parseCliArgs(argv);
  if (parsed.kind !== 'run') throw new Error(`expected a command, got ${parsed.kind}`);
  return parsed;
};

describe('parseCliArgs()', () => {
  it('reads two-word commands, their options and positionals', () => {
    const parsed = run(['keys', 'create', '--account', '3', '--label', 'ci export', '--expires-at', '2027-01-01T00:00:00Z']);
    expect(parsed.command.name).toBe('keys create');
    expect(parsed.options).toEqual({ account: '3', label: 'ci export', 'expires-at': '2027-01-01T00:00:00Z' });
    expect(parsed.positionals).toEqual([]);
    expect(parsed.global).toEqual({ databaseUrl: undefined, dataDir: undefined, json: false });
  });

  it('accepts global options before and after the command words, with = or a separate value', () => {
    const before = run(['--data-dir', '/tmp/x', '--json', 'accounts', 'list']);
    expect(before.command.name).toBe('accounts list');
    expect(before.global).toEqual({ databaseUrl: undefined, dataDir: '/tmp/x', json: true });
    const after = run(['accounts', 'set-plan', '2', 'starter', '--database-url=postgres://u@h/db']);
    expect(after.positionals).toEqual(['2', 'starter']);
    expect(after.global.databaseUrl).toBe('postgres://u@h/db');
  });

  it('reads `-` as the stdin file of an import', () => {
    const parsed = run(['import', 'segments', '--device', '4', '-']);
    expect(parsed.command.name).toBe('import segments');
    expect(parsed.positionals).toEqual(['-']);
  });

  it('reads one-word commands and refuses stray arguments after them', () => {
    expect(run(['serve', '--port', '0', '--host', '0.0.0.0']).options).toEqual({ port: '0', host: '0.0.0.0' });
    expect(() => parseCliArgs(['migrate', 'now'])).toThrow(/Unexpected argument "now"/);
  });

  it('refuses unknown commands with a suggestion, and a group without a subcommand', () => {
    expect(() => parseCliArgs(['acounts', 'list'])).toThrow(/Unknown command "acounts"; did you mean "accounts"\?/);
    expect(() => parseCliArgs(['keys', 'revok', '1'])).toThrow(/Unknown command "keys revok"; did you mean "revoke"\?/);
    expect(() => parseCliArgs(['devices'])).toThrow(/"devices" needs a subcommand/);
    expect(() => parseCliArgs([])).toThrow(UsageError);
  });

  it('refuses unknown options, missing values, missing required options and missing positionals', () => {
    expect(() => parseCliArgs(['accounts', 'create', '--name', 'A', '--colour', 'red'])).toThrow(/Unknown option --colour/);
    expect(() => parseCliArgs(['accounts', 'create', '--name'])).toThrow(/Option --name needs a value/);
    expect(() => parseCliArgs(['devices', 'create', '--account', '1', '--name', 'T'])).toThrow(/Missing option --imei/);
    expect(() => parseCliArgs(['accounts', 'set-plan', '2'])).toThrow(/Missing argument PLAN/);
    expect(() => parseCliArgs(['import', 'segments', '--device', '1'])).toThrow(/Missing argument FILE/);
    expect(() => parseCliArgs(['accounts', 'list', '--json=yes'])).toThrow(/--json takes no value/);
  });

  it('names the command whose help to read in a usage error', () => {
    try {
      parseCliArgs(['keys', 'create']);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).command).toBe('keys create');
    }
  });

  it('answers --help for the program, a group and a command, even when required options are missing', () => {
    expect(parseCliArgs(['--help'])).toEqual({ kind: 'help', command: null, group: null });
    expect(parseCliArgs(['keys', '-h'])).toEqual({ kind: 'help', command: null, group: 'keys' });
    const help = parseCliArgs(['devices', 'create', '--help']);
    expect(help.kind === 'help' && help.command?.name).toBe('devices create');
    expect(parseCliArgs(['--version'])).toEqual({ kind: 'version' });
  });
});

describe('formatHelp()', () => {
  it('lists every command in the overview, and each command shows its options and examples', () => {
    const overview = formatHelp();
    for (const command of COMMANDS) {
      expect(overview).toContain(command.name);
      const help = formatHelp({ command });
      expect(help).toContain(`Usage: fleet-hours ${command.name}`);
      for (const option of Object.keys(command.options)) expect(help).toContain(`--${option}`);
      expect(help).toContain('--database-url URL');
      expect(help).toContain(command.examples[0]!);
    }
    expect(formatHelp({ group: 'keys' })).toMatch(/keys create[\s\S]*keys list[\s\S]*keys revoke/);
  });

  it('marks required options and shows them in the usage line', () => {
    const help = formatHelp({ command: COMMANDS.find((command) => command.name === 'keys create')! });
    expect(help).toContain('Usage: fleet-hours keys create --account ID [options]');
    expect(help).toMatch(/--account ID\s+Account id\. Required\./);
  });
});

describe('parseCliArgs() option checks, from parseArgs tokens (never from the words of a Node error)', () => {
  it('names an unknown short option, a value that looks like a forgotten one, and accepts a dashed value written with =', () => {
    expect(() => parseCliArgs(['accounts', 'list', '-x'])).toThrow(/^Unknown option -x$/);
    expect(() => parseCliArgs(['keys', 'create', '--account', '1', '--label', '--json'])).toThrow(/^Option --label needs a value$/);
    expect(run(['keys', 'create', '--account', '1', '--label=-x']).options.label).toBe('-x');
    expect(() => parseCliArgs(['accounts', 'list', '--help=yes'])).toThrow(/^Option --help takes no value$/);
  });
});
