import {
  createAempSourceCommand,
  listAempSourcesCommand,
  pollAempSourceCommand,
  removeAempSourceCommand,
  updateAempSourceCommand,
} from './commands/aemp-sources.js';
import { escapeControlCharacters, StorageUnavailableError, type FleetHoursStore } from '@fleet-hours/core';
import type { KyselyFleetHoursStore } from '@fleet-hours/storage-kysely';
import { createAccountCommand, listAccountsCommand, setAccountPlanCommand } from './commands/accounts.js';
import type { CommandContext, CommandResult } from './commands/command-context.js';
import { demoCommand } from './commands/demo.js';
import { rebuildFiguresCommand, verifyFiguresCommand } from './commands/figures.js';
import { createDeviceCommand, listDevicesCommand, updateDeviceCommand } from './commands/devices.js';
import { listAuditCommand } from './commands/audit.js';
import {
  createWebhookCommand,
  listWebhooksCommand,
  removeWebhookCommand,
  replayWebhookCommand,
  rotateWebhookCommand,
  testWebhookCommand,
  updateAccountCommand,
  updateWebhookCommand,
  webhookDeliveriesCommand,
} from './commands/webhooks.js';
import { listHourMeterCommand, removeHourMeterCommand, setHourMeterCommand } from './commands/hour-meter.js';
import { removeCalendarCommand, setCalendarCommand, showCalendarCommand } from './commands/calendar.js';
import { importSegmentsCommand, importTelemetryCommand } from './commands/import.js';
import { dailyCommand, hoursCommand, meterCommand } from './commands/read-hours.js';
import { utilizationCommand } from './commands/utilization.js';
import { KEY_COMMANDS } from './commands/keys.js';
import { INGEST_TOKEN_COMMANDS } from './commands/ingest-tokens.js';
import { serveCommand } from './commands/serve.js';
import {
  createServiceCommand,
  listServiceCommand,
  removeServiceCommand,
  serviceDoneCommand,
  updateServiceCommand,
} from './commands/service.js';
import { simulateCommand } from './commands/simulate.js';
import { verifyCommand } from './commands/verify.js';
import { maintenanceCommand } from './commands/maintenance.js';
import { describeDatabaseTarget, redactUrl, resolveDatabaseTarget, type DatabaseTarget } from './database/database-target.js';
import { openDatabase as defaultOpenDatabase, type DatabaseOpener, type OpenedDatabase } from './database/open-database.js';
import { ImportFileError } from './import/read-import-file.js';
import { packageVersion } from './package-version.js';
import { CommandError, EXIT_CODES, UsageError } from './cli/cli-errors.js';
import { processIo, type CliIo } from './cli/cli-io.js';
import { formatHelp } from './cli/format-help.js';
import { parseCliArgs, type ParsedCli } from './cli/parse-cli-args.js';

/** What {@link runCli} can be given instead of the real thing (tests pass a memory store). */
export interface RunCliDependencies {
  readonly openDatabase?: DatabaseOpener;
}

const STORE_COMMANDS: Readonly<Record<string, (context: CommandContext) => Promise<CommandResult>>> = {
  'accounts create': createAccountCommand,
  'accounts set-plan': setAccountPlanCommand,
  'accounts list': listAccountsCommand,
  'accounts update': updateAccountCommand,
  'keys create': KEY_COMMANDS.create,
  'keys list': KEY_COMMANDS.list,
  'keys revoke': KEY_COMMANDS.revoke,
  'ingest-tokens create': INGEST_TOKEN_COMMANDS.create,
  'ingest-tokens list': INGEST_TOKEN_COMMANDS.list,
  'ingest-tokens revoke': INGEST_TOKEN_COMMANDS.revoke,
  'devices create': createDeviceCommand,
  'devices list': listDevicesCommand,
  'devices update': updateDeviceCommand,
  'import segments': importSegmentsCommand,
  'import telemetry': importTelemetryCommand,
  hours: hoursCommand,
  daily: dailyCommand,
  meter: meterCommand,
  utilization: utilizationCommand,
  'hour-meter set': setHourMeterCommand,
  'hour-meter list': listHourMeterCommand,
  'hour-meter remove': removeHourMeterCommand,
  'service create': createServiceCommand,
  'service list': listServiceCommand,
  'service update': updateServiceCommand,
  'service done': serviceDoneCommand,
  'service remove': removeServiceCommand,
  'calendar set': setCalendarCommand,
  'calendar show': showCalendarCommand,
  'calendar remove': removeCalendarCommand,
  'webhooks create': createWebhookCommand,
  'webhooks list': listWebhooksCommand,
  'webhooks update': updateWebhookCommand,
  'webhooks rotate': rotateWebhookCommand,
  'webhooks remove': removeWebhookCommand,
  'webhooks test': testWebhookCommand,
  'webhooks deliveries': webhookDeliveriesCommand,
  'webhooks replay': replayWebhookCommand,
  'aemp-sources create': createAempSourceCommand,
  'aemp-sources list': listAempSourcesCommand,
  'aemp-sources update': updateAempSourceCommand,
  'aemp-sources remove': removeAempSourceCommand,
  'aemp-sources poll': pollAempSourceCommand,
  'audit list': listAuditCommand,
  verify: verifyCommand,
  maintenance: maintenanceCommand,
  'figures rebuild': rebuildFiguresCommand,
  'figures verify': verifyFiguresCommand,
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

  const { command, global, options, repeated, positionals } = parsed;
  let target: DatabaseTarget | null = null;
  let database: OpenedDatabase | null = null;
  try {
    if (command.name === 'demo') return await demoCommand({ io, global, options, openDatabase });
    if (command.name === 'simulate') return await simulateCommand({ io, global, options });
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
      // D42: the partitions of the current month and the next ones, as every server keeps them.
      const migrated: FleetHoursStore & Partial<Pick<KyselyFleetHoursStore, 'db'>> = await store();
      const { maintainTelemetryPartitions } = await import('@fleet-hours/storage-kysely');
      if (migrated.db !== undefined) await maintainTelemetryPartitions(migrated.db, { now: Math.floor(io.now() / 1000), retentionDays: 0 });
      result = {
        json: { database: describeDatabaseTarget(resolvedTarget), migrated: true },
        text: `The schema of ${describeDatabaseTarget(resolvedTarget)} is up to date.\n`,
      };
    } else {
      const handler = STORE_COMMANDS[command.name];
      if (!handler) throw new UsageError(`Unknown command "${command.name}"`);
      const now = Math.floor(io.now() / 1000);
      result = await handler({ store, options, repeated, positionals, now, io, json: global.json });
    }
    await closeQuietly(database);
    database = null;
    io.stdout.write(_forTerminal(global.json ? `${JSON.stringify(result.json, null, 2)}\n` : result.text));
    return result.exitCode ?? EXIT_CODES.ok;
  } catch (error) {
    await closeQuietly(database);
    return reportError(error, io, command.name, target);
  }
}

/**
 * D50: nothing a person typed reaches a terminal raw. A name stored before names were checked (or
 * by SQL), or a value quoted in a refusal, is printed with its control characters escaped
 * (`\u001b`); the output's own line breaks stay. In JSON the escapes are JSON's own, so the
 * document parses to the same values (JSON.stringify escapes C0 itself, not C1 or U+202E).
 */
function _forTerminal(text: string): string {
  // P146: CRLF, the line end of CSV output, stays a pair; a CR alone is escaped.
  return text
    .split('\r\n')
    .map((line) => escapeControlCharacters(line, '\n'))
    .join('\r\n');
}

async function closeQuietly(database: OpenedDatabase | null): Promise<void> {
  try {
    await database?.close();
  } catch {
    // The command's own outcome matters more than a failure to close.
  }
}

/**
 * The one place the CLI turns an error into stderr text and an exit code, by the error's class:
 * a wrong command line, a bad import file (its `FILE:LINE` lines stand alone), a command that
 * failed, a database that went away during the command (the store says so with
 * `StorageUnavailableError`, D18; one that cannot be reached at all fails in `openDatabase`), or
 * anything else (with its stack when `FLEET_HOURS_DEBUG` is set).
 */
function reportError(error: unknown, io: CliIo, commandName = '', target: DatabaseTarget | null = null): number {
  if (error instanceof UsageError) {
    const helpFor = error.command || commandName;
    io.stderr.write(_forTerminal(`fleet-hours: ${error.message}\nRun "fleet-hours ${helpFor ? `${helpFor} ` : ''}--help" for usage.\n`));
    return EXIT_CODES.usage;
  }
  if (error instanceof ImportFileError) {
    io.stderr.write(_forTerminal(`${error.message}\n`));
    return EXIT_CODES.failure;
  }
  if (error instanceof CommandError) {
    io.stderr.write(_forTerminal(`fleet-hours: ${error.message}\n`));
    return EXIT_CODES.failure;
  }
  const message = redactUrl(error instanceof Error ? error.message : String(error));
  if (error instanceof StorageUnavailableError) {
    const where = target ? ` (${describeDatabaseTarget(target)})` : '';
    io.stderr.write(_forTerminal(`fleet-hours: Cannot reach the database${where}: ${message}\n`));
  } else {
    io.stderr.write(_forTerminal(`fleet-hours: ${message}\n`));
  }
  if (io.env.FLEET_HOURS_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  return EXIT_CODES.failure;
}
