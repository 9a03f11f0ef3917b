import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  aempPollRecordBody,
  aempSourceBody,
  aempSourceWrites,
  createFleetHours,
  type AempSource,
  type AempSourceWrites,
  type FleetHoursStore,
} from '@fleet-hours/core';
import { CommandError, UsageError } from '../cli/cli-errors.js';
import { formatTable } from '../cli/format-table.js';
import { readId } from '../cli/option-values.js';
import { readServerSetting } from '../cli/server-settings.js';
import { aempPolling } from '../aemp/aemp-polling.js';
import { CLI_ORIGIN, cliChangeLog } from './_cli-change-log.js';
import { _withOptionNames } from './_option-refusal.js';
import { requireAccount } from './accounts.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';

/**
 * `aemp-sources create|list|update|remove|poll` (D65, P137): the one implementation of the API's
 * routes, with the options named as the body's fields. A secret is never an argument (it would
 * show in the process list and the shell's history): it is read from `--secret-file`, or from
 * the variable `FLEET_HOURS_AEMP_SECRET`.
 */

/** The body's fields by the options that give them (P137): a refusal of the core names the option. */
const _OPTIONS: Readonly<Record<string, string>> = {
  name: '--name',
  url: '--url',
  'auth.kind': '--auth',
  'auth.username': '--username',
  'auth.password': '--secret-file',
  'auth.token': '--secret-file',
  'auth.client_secret': '--secret-file',
  'auth.token_url': '--token-url',
  'auth.client_id': '--client-id',
  'auth.scope': '--scope',
  poll_every_seconds: '--poll-every',
  min_interval_per_url_seconds: '--min-interval-per-url',
};

/** The variable a secret may come from instead of `--secret-file`. */
export const AEMP_SECRET_VARIABLE = 'FLEET_HOURS_AEMP_SECRET';

function _writes(context: CommandContext, store: FleetHoursStore): AempSourceWrites {
  return aempSourceWrites({ store, nowSeconds: () => context.now, changeLog: cliChangeLog(store, context) });
}

/** Runs a write of the core; its refusal names the option (exit 1). */
async function _refusedByOption<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    return _withOptionNames(_OPTIONS, () => {
      throw error;
    });
  }
}

/** The secret of `--auth`: the file's first line, or the variable. */
async function _secret(context: CommandContext, command: string): Promise<string> {
  const file = optionalOption(context, 'secret-file');
  if (file === undefined) {
    const value = context.io.env[AEMP_SECRET_VARIABLE];
    if (value === undefined || value === '')
      throw new UsageError(`--auth needs its secret: give --secret-file PATH, or set ${AEMP_SECRET_VARIABLE}`, command);
    return value;
  }
  try {
    return (await readFile(resolve(context.io.cwd, file), 'utf8')).split(/\r?\n/)[0]!;
  } catch (error) {
    throw new CommandError(`--secret-file: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** The body of a write from the options given (P137). */
async function _body(context: CommandContext, command: string): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  for (const [option, field] of [
    ['name', 'name'],
    ['url', 'url'],
  ] as const) {
    const value = optionalOption(context, option);
    if (value !== undefined) body[field] = value;
  }
  for (const [option, field] of [
    ['poll-every', 'poll_every_seconds'],
    ['min-interval-per-url', 'min_interval_per_url_seconds'],
  ] as const) {
    const value = optionalOption(context, option);
    // A number when it reads as one; else the text, which the core refuses naming the option.
    if (value !== undefined) body[field] = /^\d{1,9}$/.test(value) ? Number(value) : value;
  }
  if (context.options.enable === true) body.enabled = true;
  if (context.options.disable === true) body.enabled = false;
  const kind = optionalOption(context, 'auth');
  if (kind !== undefined) {
    const secret = await _secret(context, command);
    const field = (option: string) => optionalOption(context, option);
    body.auth =
      kind === 'basic'
        ? { kind, username: field('username'), password: secret }
        : kind === 'bearer'
          ? { kind, token: secret }
          : { kind, token_url: field('token-url'), client_id: field('client-id'), client_secret: secret, scope: field('scope') ?? null };
  }
  return body;
}

const _line = (source: AempSource) =>
  `AEMP source ${source.id} "${source.name}": ${source.url} (${source.auth.kind}), every ${source.pollEverySeconds} s, ${source.enabled ? 'enabled' : 'disabled'}`;

const _json = (source: AempSource) => ({ ...aempSourceBody(source), account_id: source.accountId });

/** `aemp-sources create --account ID --name … --url … --auth KIND [--secret-file PATH] …` → the source, never its secret. */
export async function createAempSourceCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const body = await _body(context, 'aemp-sources create');
  const store = await context.store();
  await requireAccount(store, accountId);
  const source = await _refusedByOption(() => _writes(context, store).createAempSource({ accountId, body, origin: CLI_ORIGIN }));
  if (!source) throw new CommandError(`No account with id ${accountId}`);
  return { json: _json(source), text: `Created ${_line(source)}; the running servers poll it now.\n` };
}

/** `aemp-sources list --account ID` → `{ data: [source…] }`, without secrets. */
export async function listAempSourcesCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const store = await context.store();
  await requireAccount(store, accountId);
  const sources = await _writes(context, store).listAempSources({ accountId });
  return {
    json: { data: sources.map(_json) },
    text: formatTable(
      [
        { header: 'ID' },
        { header: 'NAME' },
        { header: 'URL' },
        { header: 'AUTH' },
        { header: 'EVERY' },
        { header: 'ENABLED' },
        { header: 'NEXT POLL' },
      ],
      sources.map((source) => {
        const body = aempSourceBody(source);
        return [
          source.id,
          source.name,
          source.url,
          source.auth.kind,
          `${source.pollEverySeconds} s`,
          String(source.enabled),
          body.next_poll_at,
        ];
      }),
    ),
  };
}

/** `aemp-sources update --account ID --id ID [options…]` → the source. */
export async function updateAempSourceCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const sourceId = readId(requiredOption(context, 'id'), '--id');
  if (context.options.enable === true && context.options.disable === true)
    throw new UsageError('--enable and --disable cannot be given together', 'aemp-sources update');
  const body = await _body(context, 'aemp-sources update');
  const store = await context.store();
  const source = await _refusedByOption(() => _writes(context, store).updateAempSource({ accountId, sourceId, body, origin: CLI_ORIGIN }));
  if (!source) throw new CommandError(`No AEMP source with id ${sourceId} on account ${accountId}`);
  return { json: _json(source), text: `Updated ${_line(source)}.\n` };
}

/** `aemp-sources remove --account ID --id ID` → the source removed, with its polls (its readings stay). */
export async function removeAempSourceCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const sourceId = readId(requiredOption(context, 'id'), '--id');
  const store = await context.store();
  const source = await _writes(context, store).removeAempSource({ accountId, sourceId, origin: CLI_ORIGIN });
  if (!source) throw new CommandError(`No AEMP source with id ${sourceId} on account ${accountId}`);
  return { json: _json(source), text: `Removed ${_line(source)} and its polls; the readings it stored stay.\n` };
}

/** `aemp-sources poll --account ID --id ID` → the record of one poll now, stored like the servers' (P137). */
export async function pollAempSourceCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const sourceId = readId(requiredOption(context, 'id'), '--id');
  const allowPrivateAddresses = readServerSetting('aempAllowPrivateAddresses', context.options, context.io.env, 'aemp-sources poll');
  const store = await context.store();
  const fleetHours = createFleetHours({ store, now: () => context.now * 1000 });
  const lines: object[] = [];
  const polled = await aempPolling({ fleetHours, now: Date.now, allowPrivateAddresses, log: (entry) => lines.push(entry) }).pollNow({
    accountId,
    sourceId,
  });
  if (!polled) {
    const known = await _writes(context, store).findAempSource({ accountId, sourceId });
    throw new CommandError(
      known
        ? `AEMP source ${sourceId} is being polled by a server now: try again shortly`
        : `No AEMP source with id ${sourceId} on account ${accountId}`,
    );
  }
  const body = aempPollRecordBody(polled.id, polled);
  const outcome = body.error === null ? 'read to its end' : `ended early: ${body.error.message}`;
  return {
    json: body,
    text:
      `Polled AEMP source ${sourceId}: ${body.pages} pages, ${body.equipment_seen} equipment seen, ${body.matched} matched, ` +
      `${body.unmatched.length} unmatched, ${body.readings_stored} readings stored, ${body.readings_refused.length} refused; ${outcome}.\n` +
      body.unmatched.map((each) => `Unmatched: PIN ${each.pin ?? '-'}, ${each.oem_name ?? '-'} ${each.serial_number ?? '-'}\n`).join(''),
    exitCode: body.error === null ? 0 : 1,
  };
}
