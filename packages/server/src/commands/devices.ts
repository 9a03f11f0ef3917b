import type { DeviceChanges } from '@fleet-hours/core';
import { deviceBody, type DeviceBody } from '@fleet-hours/http';
import { CommandError, UsageError } from '../cli/cli-errors.js';
import { formatTable } from '../cli/format-table.js';
import { readId, readStatus, readText, readTimeZone } from '../cli/option-values.js';
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
  const registration = registrationText === undefined || registrationText.trim() === '' ? null : registrationText.trim();
  const statusText = optionalOption(context, 'status');
  const status = statusText === undefined ? 'active' : readStatus(statusText);
  const store = await context.store();
  await requireAccount(store, accountId);

  const created = await store.createDevice({ accountId, name, imei, registration, model, status, timeZone });
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
  const text = devices.length === 0 ? `Account ${accountId} has no devices. Create one with: fleet-hours devices create --help\n` : deviceTable(devices);
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
  if (registration !== undefined) changes.registration = registration.trim() === '' ? null : registration.trim();
  if (Object.keys(changes).length === 0) {
    throw new UsageError('Nothing to change: give at least one of --name, --timezone, --status, --registration, --model', 'devices update');
  }

  const updated = await (await context.store()).updateDevice({ deviceId, changes });
  if (!updated) throw new CommandError(`No device with id ${deviceId}`);
  const device = deviceBody(updated);
  return { json: device, text: `Updated device ${device.id}:\n${deviceTable([device])}` };
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
    devices.map((device) => [device.id, device.name, device.imei, device.registration, device.model, device.status, device.timezone, device.last_reported_at]),
  );
}
