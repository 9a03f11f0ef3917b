import { readFileSync } from 'node:fs';
import type { FleetHoursStore } from '@fleet-hours/core';
import { createAccountCommand, listAccountsCommand, setAccountPlanCommand } from './account-commands.js';
import { CommandError, EXIT_CODES, UsageError } from './cli-errors.js';
import { processIo, type CliIo } from './cli-io.js';
import type { CommandContext, CommandResult } from './command-context.js';
import { describeDatabaseTarget, redactUrl, resolveDatabaseTarget, type DatabaseTarget } from './database-target.js';
import { demoCommand } from './demo-command.js';
import { createDeviceCommand, listDevicesCommand, updateDeviceCommand } from './device-commands.js';
import { formatHelp } from './format-help.js';
import { importSegmentsCommand, importTelemetryCommand } from './import-commands.js';
import { createKeyCommand, listKeysCommand, revokeKeyCommand } from './key-commands.js';
import { openDatabase as defaultOpenDatabase, type DatabaseOpener, type OpenedDatabase } from './open-database.js';
import { parseCliArgs, type ParsedCli } from './parse-cli-args.js';
import { serveCommand } from './serve-command.js';

/** What {@link runCli} can be given instead of the real thing (tests pass a memory store). */
export interface RunCliDependencies {
  readonly openDatabase?: DatabaseOpener;
}

const STORE_COMMANDS: Readonly<Record<string, (context: CommandContext) => Promise<CommandResult>>> = {
  'accounts create': createAccountCommand,
  'accounts set-plan': setAccountPlanCommand,
  'accounts list': listAccountsCommand,
  'keys create': createKeyCommand,
  'keys list': listKeysCommand,
  'keys revoke': revokeKeyCommand,
  'devices create': createDeviceCommand,
  'devices list': listDevicesCommand,
  'devices update': updateDeviceCommand,
  'import segments': importSegmentsCommand,
  'import telemetry': importTelemetryCommand,
};

/**
 * Runs `fleet-hours` with the given arguments: the whole CLI, callable in-process.
 *
 * Without `--json` a command prints readable text and tables on stdout; with it, exactly one JSON
 * document and nothing else. Errors go to stderr. `serve` and `demo` return once stopped by
 * SIGTERM/SIGINT (`io.waitForStop`).
 *
 * @param argv Arguments after the program name, e.g. `['accounts', 'list', '--json']`.
 * @param io Streams, environment, clock and stop signal; default the running process's.
 * @param dependencies Replacements, e.g. a database opener over a memory store.
 * @returns The exit code: 0 done, 1 failed, 2 wrong command line.
 * @example
 * ```ts
 * import { runCli } from '@fleet-hours/server';
 * process.exitCode = await runCli(['accounts', 'create', '--name', 'Acme', '--json']);
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo(), dependencies: RunCliDependencies = {}): Promise<number> {
  const openDatabase = dependencies.openDatabase ?? defaultOpenDatabase;
  let parsed: ParsedCli;
  try {
    parsed = parseCliArgs(argv);
  } catch (error) {
    return reportError(error, io);
  }

  if (parsed.kind === 'help') {
    io.stdout.write(formatHelp(parsed));
    return EXIT_CODES.ok;
  }
  if (parsed.kind === 'version') {
    io.stdout.write(`${packageVersion()}\n`);
    return EXIT_CODES.ok;
  }

  const { command, global, options, positionals } = parsed;
  let target: DatabaseTarget | null = null;
  let database: OpenedDatabase | null = null;
  try {
    if (command.name === 'demo') return await demoCommand({ io, global, options, openDatabase });
    target = resolveDatabaseTarget(global, io.env, io.cwd);
    if (command.name === 'serve') return await serveCommand({ io, target, options, openDatabase });

    const resolvedTarget = target;
    let opening: Promise<OpenedDatabase> | null = null;
    const store = async (): Promise<FleetHoursStore> => {
      opening ??= openDatabase(resolvedTarget, { migrate: true }).then((opened) => (database = opened));
      return (await opening).store;
    };

    let result: CommandResult;
    if (command.name === 'migrate') {
      await store();
      result = {
        json: { database: describeDatabaseTarget(resolvedTarget), migrated: true },
        text: `The schema of ${describeDatabaseTarget(resolvedTarget)} is up to date.\n`,
      };
    } else {
      const handler = STORE_COMMANDS[command.name];
      if (!handler) throw new UsageError(`Unknown command "${command.name}"`);
      const now = Math.floor(io.now() / 1000);
      result = await handler({ store, options, positionals, now, io, json: global.json });
    }
    await closeQuietly(database);
    database = null;
    io.stdout.write(global.json ? `${JSON.stringify(result.json, null, 2)}\n` : result.text);
    return EXIT_CODES.ok;
  } catch (error) {
    await closeQuietly(database);
    return reportError(error, io, command.name, target);
  }
}

async function closeQuietly(database: OpenedDatabase | null): Promise<void> {
  try {
    await database?.close();
  } catch {
    // The command's own outcome matters more than a failure to close.
  }
}

function reportError(error: unknown, io: CliIo, commandName = '', target: DatabaseTarget | null = null): number {
  if (error instanceof UsageError) {
    const helpFor = error.command || commandName;
    io.stderr.write(`fleet-hours: ${error.message}\nRun "fleet-hours ${helpFor ? `${helpFor} ` : ''}--help" for usage.\n`);
    return EXIT_CODES.usage;
  }
  if (error instanceof CommandError) {
    io.stderr.write(error.name === 'ImportFileError' ? `${error.message}\n` : `fleet-hours: ${error.message}\n`);
    return EXIT_CODES.failure;
  }
  const name = (error as { name?: string } | null)?.name;
  const message = redactUrl(error instanceof Error ? error.message : String(error));
  if (name === 'StorageUnavailableError' || isConnectionError(error)) {
    const where = target ? ` (${describeDatabaseTarget(target)})` : '';
    io.stderr.write(`fleet-hours: Cannot reach the database${where}: ${message}\n`);
  } else {
    io.stderr.write(`fleet-hours: ${message}\n`);
  }
  if (io.env.FLEET_HOURS_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  return EXIT_CODES.failure;
}

function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || code === 'CONNECT_TIMEOUT';
}

function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return manifest.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
