import {
  DEVICE_FIELDS,
  deviceWrites,
  ImeiInUseError,
  InvalidFieldError,
  isFleetHoursError,
  InvalidParameterError,
  parseTagParameter,
  readDeviceFields,
  type FleetHoursStore,
} from '@fleet-hours/core';
import { deviceBodies, type DeviceBody } from '@fleet-hours/http';
import { CommandError, UsageError } from '../cli/cli-errors.js';
import { formatTable } from '../cli/format-table.js';
import { readId } from '../cli/option-values.js';
import { _deviceAccount } from './_device-account.js';
import { CLI_ORIGIN, cliChangeLog } from './_cli-change-log.js';
import { requireAccount } from './accounts.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';

/**
 * `devices create --account ID --name NAME --imei IMEI --model MODEL --timezone IANA
 * [--registration REG] [--status active|inactive] [--tag TAG]… [--tags A,B] [--oem-name …]
 * [--equipment-model …] [--serial-number …] [--pin …]` → the device as the API shows it. The fields are
 * checked by the core's device writes, as `POST /api/v1/devices` checks them (D52).
 */
export async function createDeviceCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const fields = _deviceOptions(context);
  // Checked before the database is opened; the core's write checks them again, the same way.
  _checked(() => readDeviceFields(fields, 'create'), 'devices create');
  const store = await context.store();
  await requireAccount(store, accountId);

  const created = await deviceWrites(store, cliChangeLog(store, context))
    .createDevice({ accountId, fields, origin: CLI_ORIGIN })
    .catch((error: unknown) => _imeiRefusal(_usage(error, 'devices create'), store, accountId));
  if (!created) throw new CommandError(`No account with id ${accountId}`);
  const device = (await deviceBodies(store, [created]))[0]!;
  return { json: device, text: `Created device ${device.id} for account ${accountId}:\n${deviceTable([device])}` };
}

/** `devices list --account ID [--tag TAG]` → `{ data: [device…] }`, ordered by id (D19); with `--tag`, those having it (D61). */
export async function listDevicesCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const tag = readTagOption(optionalOption(context, 'tag'), 'devices list');
  const store = await context.store();
  await requireAccount(store, accountId);
  const devices = await deviceBodies(store, await store.listDevices({ accountId, ...(tag === undefined ? {} : { tag }) }));
  const text =
    devices.length === 0
      ? tag === undefined
        ? `Account ${accountId} has no devices. Create one with: fleet-hours devices create --help\n`
        : `Account ${accountId} has no devices with the tag "${tag}".\n`
      : deviceTable(devices);
  return { json: { data: devices }, text };
}

/** `devices update ID [--name …] [--imei …] [--timezone …] [--status …] [--registration …] [--model …] [--tag …]… [--tags …] [--oem-name …] [--equipment-model …] [--serial-number …] [--pin …]`: checked as `PATCH /api/v1/devices/{id}` (D52). */
export async function updateDeviceCommand(context: CommandContext): Promise<CommandResult> {
  const deviceId = readId(context.positionals[0]!, 'ID');
  const fields = _deviceOptions(context);
  _checked(() => readDeviceFields(fields, 'update'), 'devices update');
  const store = await context.store();
  const accountId = await _deviceAccount(store, deviceId);
  // No such device: the core still checks the fields first (account 0 has no devices), then answers none.
  const updated = await deviceWrites(store, cliChangeLog(store, context))
    .updateDevice({ accountId: accountId ?? 0, deviceId, fields, origin: CLI_ORIGIN })
    .catch((error: unknown) => _imeiRefusal(_usage(error, 'devices update'), store, accountId));
  if (!updated) throw new CommandError(`No device with id ${deviceId}`);
  const device = (await deviceBodies(store, [updated]))[0]!;
  return { json: device, text: `Updated device ${device.id}:\n${deviceTable([device])}` };
}

/**
 * The `--tag` of a listing (D61): one tag, checked as the API's `tag=` (exit 2 naming `--tag`).
 *
 * @param given The option's value, if given.
 * @param command The command, for the usage line of the refusal.
 */
export function readTagOption(given: string | undefined, command: string): string | undefined {
  try {
    return parseTagParameter(given);
  } catch (error) {
    if (error instanceof InvalidParameterError) throw new UsageError(`--tag: ${error.message.replace(/^Parameter tag /, '')}`, command);
    throw error;
  }
}

/**
 * The device options given, by their field names (the CLI's options are named as the API's fields,
 * D52, in the CLI's spelling: `--oem-name` for `oem_name`). The tags (D61, P93) are those of
 * `--tags a,b` (`""`: none) then of every `--tag`, as one list.
 */
function _deviceOptions(context: CommandContext): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const field of DEVICE_FIELDS) {
    if (field === 'tags') continue;
    const value = optionalOption(context, _optionOf(field));
    if (value !== undefined) fields[field] = value;
  }
  const list = optionalOption(context, 'tags');
  const each = context.repeated?.tag ?? [];
  if (list !== undefined || each.length > 0) fields.tags = [...(list === undefined || list === '' ? [] : list.split(',')), ...each];
  return fields;
}

/** The option of a device field: its name with dashes (`oem_name` → `oem-name`). */
function _optionOf(field: string): string {
  return field.replaceAll('_', '-');
}

function _checked(check: () => unknown, command: string): void {
  try {
    check();
  } catch (error) {
    throw _usage(error, command);
  }
}

/** A refusal of the core's checks as a usage error (exit 2) naming the option, `--name` for the field `name`. */
function _usage(error: unknown, command: string): unknown {
  if (error instanceof InvalidFieldError) {
    const option = `--${_optionOf(error.field)}`;
    return new UsageError(
      error.message.startsWith(error.field) ? `${option}${error.message.slice(error.field.length)}` : `${option}: ${error.message}`,
      command,
    );
  }
  if (isFleetHoursError(error) && error.code === 'invalid_body')
    return new UsageError(
      `Nothing to change: give at least one of ${[...DEVICE_FIELDS.map((field) => `--${_optionOf(field)}`), '--tag'].join(', ')}`,
      command,
    );
  return error;
}

/**
 * D25: an IMEI names at most one active device of an account. A refused create or update is told
 * with the IMEI and the device that already has it, and how to free it (exit 1).
 */
async function _imeiRefusal(error: unknown, store: FleetHoursStore, accountId: number | null): Promise<never> {
  if (!(error instanceof ImeiInUseError)) throw error;
  const holder = accountId === null ? null : await store.findDeviceByImei({ accountId, imei: error.imei });
  const which = holder ? `active device ${holder.id} "${holder.name}"` : 'an active device';
  const free = holder
    ? `; make that device inactive first (fleet-hours devices update ${holder.id} --status inactive) or use another IMEI`
    : '';
  throw new CommandError(
    `IMEI "${error.imei}" already names ${which} of account ${accountId ?? '?'}: an IMEI names at most one active device of an account${free}`,
    {
      cause: error,
    },
  );
}

function deviceTable(devices: readonly DeviceBody[]): string {
  return formatTable(
    [
      { header: 'ID', align: 'right' },
      { header: 'NAME' },
      { header: 'IMEI' },
      { header: 'REGISTRATION' },
      { header: 'MODEL' },
      { header: 'STATUS' },
      { header: 'TIMEZONE' },
      { header: 'LAST REPORTED' },
      { header: 'TAGS' },
    ],
    devices.map((device) => [
      device.id,
      device.name,
      device.imei,
      device.registration,
      device.model,
      device.status,
      device.timezone,
      device.last_reported_at,
      device.tags.length === 0 ? null : device.tags.join(', '),
    ]),
  );
}
