import {
  createFleetHours,
  InvalidParameterError,
  parseWindowQuery,
  type Device,
  type FleetHours,
  type WindowDates,
} from '@fleet-hours/core';
import { dailyBody, hoursBody, meterBody } from '@fleet-hours/http';
import { formatHoursMinutes } from '../cli/format-hours-minutes.js';
import { CommandError, UsageError } from '../cli/cli-errors.js';
import { formatCount, formatTable } from '../cli/format-table.js';
import { readId } from '../cli/option-values.js';
import { _findDeviceOfAnyAccount } from './_device-account.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';

/**
 * `hours --device ID [--from DATE] [--to DATE]` → the body of `GET /api/v1/devices/{id}/hours`:
 * engine, moving and idle seconds over a window of local days in the device's zone, with the API's
 * defaults and checks (the last 7 days up to now, at most 365 days).
 */
export async function hoursCommand(context: CommandContext): Promise<CommandResult> {
  const { fleetHours, accountId, device, dates } = await openRead(context, 'hours');
  const total = await windowRead('hours', () => fleetHours.hours({ accountId, deviceId: device.id, ...dates }));
  const lines = [
    `${describeDevice(device)}, local days in ${total.timeZone}`,
    `  from    ${total.from}`,
    `  to      ${total.to}`,
    ...secondsLines(total),
  ];
  return { json: hoursBody(total), text: `${lines.join('\n')}\n` };
}

/**
 * `daily --device ID [--from DATE] [--to DATE]` → the body of `GET /api/v1/devices/{id}/hours/daily`:
 * one entry per local day of the window in the device's zone; printed as a table.
 */
export async function dailyCommand(context: CommandContext): Promise<CommandResult> {
  const { fleetHours, accountId, device, dates } = await openRead(context, 'daily');
  const series = await windowRead('daily', () => fleetHours.daily({ accountId, deviceId: device.id, ...dates }));
  const table = formatTable(
    [{ header: 'DATE' }, { header: 'ENGINE', align: 'right' }, { header: 'MOVING', align: 'right' }, { header: 'IDLE', align: 'right' }],
    series.days.map((day) => [day.date, clock(day.engineSeconds), clock(day.movingSeconds), clock(day.idleSeconds)]),
  );
  const heading = `${describeDevice(device)}, local days in ${series.timeZone} from ${series.from} to ${series.to} (h:mm:ss)\n`;
  return { json: dailyBody(series), text: heading + table };
}

/** `meter --device ID` → the body of `GET /api/v1/devices/{id}/meter`: the running total since the first report. */
export async function meterCommand(context: CommandContext): Promise<CommandResult> {
  const deviceId = readId(requiredOption(context, 'device'), '--device');
  const { fleetHours, accountId, device } = await findDevice(context, deviceId);
  const record = await fleetHours.meter({ accountId, deviceId: device.id });
  if (!record) throw new CommandError(`No device with id ${deviceId}`);
  const lines = [
    describeDevice(device),
    `  since   ${record.since ?? '- (no engine time yet)'}`,
    `  as of   ${record.asOf}`,
    ...secondsLines(record),
    `  hour meter ${formatHoursMinutes(record.hourMeterSeconds)} h, ${
      record.hourMeterReadAt === null ? 'uncalibrated (no reading: the meter above)' : `from the reading of ${record.hourMeterReadAt}`
    }`,
  ];
  return { json: meterBody(record), text: `${lines.join('\n')}\n` };
}

/** Checks `--device`, `--from` and `--to` before the database is opened, then finds the device. */
export async function openRead(context: CommandContext, command: string) {
  const deviceId = readId(requiredOption(context, 'device'), '--device');
  const dates = readWindowDates(context, command);
  return { ...(await findDevice(context, deviceId)), dates };
}

/** The reads go through the API's core over the command's store, with the command's clock. */
export async function findDevice(
  context: CommandContext,
  deviceId: number,
): Promise<{ fleetHours: FleetHours; accountId: number; device: Device }> {
  const store = await context.store();
  const found = await _findDeviceOfAnyAccount(store, deviceId);
  if (!found) throw new CommandError(`No device with id ${deviceId}`);
  return { fleetHours: createFleetHours({ store, now: () => context.now * 1000, zoneCacheSize: 0 }), ...found };
}

/** `--from` and `--to` as the API's `from` and `to` (YYYY-MM-DD, from not after to); a bad one is a usage error naming the option. */
export function readWindowDates(context: CommandContext, command: string): WindowDates {
  try {
    return parseWindowQuery({ from: optionalOption(context, 'from'), to: optionalOption(context, 'to') });
  } catch (error) {
    throw asUsageError(error, command);
  }
}

/** The one check that needs the device's zone (a --from after today) fails in the read itself. */
export async function windowRead<T>(command: string, read: () => Promise<T | null>): Promise<T> {
  const value = await read().catch((error: unknown) => {
    throw asUsageError(error, command);
  });
  if (value === null) throw new CommandError('The device went away during the read');
  return value;
}

/** The core names the query parameters (`from`, `group_by`); the CLI names its options (`--from`, `--group-by`). */
export function asUsageError(error: unknown, command: string): unknown {
  if (!(error instanceof InvalidParameterError)) return error;
  const message = error.message
    .replace(/^Parameter (\w+)/, (_, name: string) => `--${name.replaceAll('_', '-')}`)
    .replace(/(?<![\w-])(from|to)(?= ")/g, '--$1');
  return new UsageError(message, command);
}

export function describeDevice(device: Device): string {
  return `${device.name} (device ${device.id})`;
}

function secondsLines(figures: { readonly engineSeconds: number; readonly movingSeconds: number; readonly idleSeconds: number }): string[] {
  const line = (label: string, seconds: number) => `  ${label.padEnd(7)} ${clock(seconds).padStart(10)}  (${formatCount(seconds)} s)`;
  return [line('engine', figures.engineSeconds), line('moving', figures.movingSeconds), line('idle', figures.idleSeconds)];
}

/** Seconds as h:mm:ss, hours unbounded: `25:00:00` reads as a day's worth at a glance. */
export function clock(seconds: number): string {
  const two = (value: number) => String(value).padStart(2, '0');
  return `${Math.floor(seconds / 3600)}:${two(Math.floor((seconds % 3600) / 60))}:${two(seconds % 60)}`;
}
