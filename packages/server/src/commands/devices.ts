import { ImeiInUseError, type DeviceChanges, type FleetHoursStore } from '@fleet-hours/core';
import { deviceBody, type DeviceBody } from '@fleet-hours/http';
import { CommandError, UsageError } from '../cli/cli-errors.js';
import { formatTable } from '../cli/format-table.js';
import { readCleanText, readId, readStatus, readText, readTimeZone } from '../cli/option-values.js';
import { _deviceAccount } from './_device-account.js';
import { requireAccount } from './accounts.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';

/**
 * `devices create --account ID --name NAME --imei IMEI --model MODEL --timezone IANA
 * [--registration REG] [--status STATUS]` → the device as the API shows it. An unknown zone is refused.
 */
export async function createDeviceCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const timeZone = readTimeZone(requiredOption(context, 'timezone'));
  const name = readText(requiredOption(context, 'name'), '--name');
  const imei = readText(requiredOption(context, 'imei'), '--imei');
  const model = readText(requiredOption(context, 'model'), '--model');
  const registrationText = optionalOption(context, 'registration');
  const registration =
    registrationText === undefined || registrationText.trim() === '' ? null : readCleanText(registrationText, '--registration');
  const statusText = optionalOption(context, 'status');
  const status = statusText === undefined ? 'active' : readStatus(statusText);
  const store = await context.store();
  await requireAccount(store, accountId);

  const created = await store
    .createDevice({ accountId, name, imei, registration, model, status, timeZone })
    .catch((error: unknown) => _imeiRefusal(error, store, accountId));
  if (!created) throw new CommandError(`No account with id ${accountId}`);
  const device = deviceBody(created);
  return { json: device, text: `Created device ${device.id} for account ${accountId}:\n${deviceTable([device])}` };
}

/** `devices list --account ID` → `{ data: [device…] }`, ordered by id (D19). */
export async function listDevicesCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const store = await context.store();
  await requireAccount(store, accountId);
  const devices = (await store.listDevices({ accountId })).map(deviceBody);
  const text =
    devices.length === 0
      ? `Account ${accountId} has no devices. Create one with: fleet-hours devices create --help\n`
      : deviceTable(devices);
  return { json: { data: devices }, text };
}

/** `devices update ID [--name …] [--timezone …] [--status …] [--registration …] [--model …]`. */
export async function updateDeviceCommand(context: CommandContext): Promise<CommandResult> {
  const deviceId = readId(context.positionals[0]!, 'ID');
  const changes: { -readonly [K in keyof DeviceChanges]: DeviceChanges[K] } = {};
  const name = optionalOption(context, 'name');
  if (name !== undefined) changes.name = readText(name, '--name');
  const timeZone = optionalOption(context, 'timezone');
  if (timeZone !== undefined) changes.timeZone = readTimeZone(timeZone);
  const status = optionalOption(context, 'status');
  if (status !== undefined) changes.status = readStatus(status);
  const model = optionalOption(context, 'model');
  if (model !== undefined) changes.model = readText(model, '--model');
  const registration = optionalOption(context, 'registration');
  if (registration !== undefined) changes.registration = registration.trim() === '' ? null : readCleanText(registration, '--registration');
  if (Object.keys(changes).length === 0) {
    throw new UsageError('Nothing to change: give at least one of --name, --timezone, --status, --registration, --model', 'devices update');
  }

  const store = await context.store();
  const updated = await store.updateDevice({ deviceId, changes }).catch(async (error: unknown) => {
    const accountId = error instanceof ImeiInUseError ? await _deviceAccount(store, deviceId) : null;
    return _imeiRefusal(error, store, accountId);
  });
  if (!updated) throw new CommandError(`No device with id ${deviceId}`);
  const device = deviceBody(updated);
  return { json: device, text: `Updated device ${device.id}:\n${deviceTable([device])}` };
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
    ]),
  );
}
