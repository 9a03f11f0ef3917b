import {
  checkHourMeterReading,
  createFleetHours,
  formatInstant,
  type Device,
  type FleetHoursStore,
  type HourMeterReading,
} from '@fleet-hours/core';
import { CommandError } from '../cli/cli-errors.js';
import { formatHoursMinutes } from '../cli/format-hours-minutes.js';
import { formatTable } from '../cli/format-table.js';
import { durationUnit, readDuration, readId, readInstantOrNow } from '../cli/option-values.js';
import { _findDeviceOfAnyAccount } from './_device-account.js';
import { _withOptionNames } from './_option-refusal.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';

/** A reading as the CLI shows it: instants in the device's zone (D9). */
export interface HourMeterReadingJson {
  readonly id: number;
  readonly device_id: number;
  readonly read_at: string;
  readonly reading_seconds: number;
  readonly recorded_at: string;
}

/**
 * `hour-meter set --device ID --reading DURATION [--at INSTANT]` → the stored reading (D38). A
 * reading at an instant that already has one replaces it. A reading lower than the one before it
 * is stored (meters get replaced) with a note on stderr.
 */
export async function setHourMeterCommand(context: CommandContext): Promise<CommandResult> {
  const deviceId = readId(requiredOption(context, 'device'), '--device');
  const readingText = requiredOption(context, 'reading');
  const readingSeconds = readDuration(readingText, '--reading');
  const readAt = readInstantOrNow(optionalOption(context, 'at') ?? 'now', '--at', context.now);
  _withOptionNames(
    { read_at: '--at', reading_seconds: '--reading' },
    () => checkHourMeterReading({ readAt, readingSeconds }, context.now),
    {
      reading_seconds: durationUnit(readingText),
    },
  );

  const { store, device } = await findDevice(context, deviceId);
  const readings = await store.listHourMeterReadings({ deviceIds: [deviceId] });
  const stored = await store.addHourMeterReading({ deviceId, readAt, readingSeconds, now: context.now });
  if (!stored) throw new CommandError(`No device with id ${deviceId}`);
  const reading = readingJson(stored, device.timeZone);

  // Readings come newest first: the first one before this instant is the one this follows.
  const previous = readings.find((earlier) => earlier.readAt < readAt);
  if (previous && previous.readingSeconds > readingSeconds) {
    context.io.stderr.write(
      `Note: ${formatHoursMinutes(readingSeconds)} at ${reading.read_at} is lower than the reading before it, ` +
        `${formatHoursMinutes(previous.readingSeconds)} at ${formatInstant(previous.readAt, device.timeZone)} (a replaced hour meter?): ` +
        'from this instant on the hour meter counts from the new reading.\n',
    );
  }
  const replaced = readings.some((earlier) => earlier.readAt === readAt);
  const hourMeter = await hourMeterNow(context, store, device);
  const text =
    `${replaced ? 'Replaced' : 'Recorded'} hour-meter reading ${reading.id} of ${describeDevice(device)}: ` +
    `${formatHoursMinutes(readingSeconds)} at ${reading.read_at}.\n${hourMeter}`;
  return { json: reading, text };
}

/** `hour-meter list --device ID` → `{ device_id, timezone, data: [reading…] }`, newest first (D38). */
export async function listHourMeterCommand(context: CommandContext): Promise<CommandResult> {
  const deviceId = readId(requiredOption(context, 'device'), '--device');
  const { store, device } = await findDevice(context, deviceId);
  const readings = (await store.listHourMeterReadings({ deviceIds: [deviceId] })).map((reading) => readingJson(reading, device.timeZone));
  const json = { device_id: device.id, timezone: device.timeZone, data: readings };
  const hourMeter = await hourMeterNow(context, store, device);
  if (readings.length === 0) {
    return {
      json,
      text: `${describeDevice(device)} has no hour-meter readings. Record one with: fleet-hours hour-meter set --help\n${hourMeter}`,
    };
  }
  const table = formatTable(
    [{ header: 'ID', align: 'right' }, { header: 'READ AT' }, { header: 'READING', align: 'right' }, { header: 'RECORDED AT' }],
    readings.map((reading) => [reading.id, reading.read_at, formatHoursMinutes(reading.reading_seconds), reading.recorded_at]),
  );
  return { json, text: `Hour-meter readings of ${describeDevice(device)}, newest first (h:mm):\n${table}${hourMeter}` };
}

/** `hour-meter remove --device ID --id READING-ID` → the removed reading. A reading of another device is as missing. */
export async function removeHourMeterCommand(context: CommandContext): Promise<CommandResult> {
  const deviceId = readId(requiredOption(context, 'device'), '--device');
  const readingId = readId(requiredOption(context, 'id'), '--id');
  const { store, device } = await findDevice(context, deviceId);
  const removed = await store.removeHourMeterReading({ deviceId, readingId });
  if (!removed) throw new CommandError(`Device ${deviceId} has no hour-meter reading with id ${readingId}`);
  const reading = readingJson(removed, device.timeZone);
  const hourMeter = await hourMeterNow(context, store, device);
  return {
    json: reading,
    text: `Removed hour-meter reading ${reading.id} of ${describeDevice(device)} (${formatHoursMinutes(reading.reading_seconds)} at ${reading.read_at}).\n${hourMeter}`,
  };
}

/** The device of any account: operators manage every account. A device no account has is "no device". */
async function findDevice(context: CommandContext, deviceId: number): Promise<{ store: FleetHoursStore; device: Device }> {
  const store = await context.store();
  const found = await _findDeviceOfAnyAccount(store, deviceId);
  if (!found) throw new CommandError(`No device with id ${deviceId}`);
  return { store, device: found.device };
}

/** A line with the device's hour meter at the command's now, as `meter` reads it (D38). */
async function hourMeterNow(context: CommandContext, store: FleetHoursStore, device: Device): Promise<string> {
  const fleetHours = createFleetHours({ store, now: () => context.now * 1000, zoneCacheSize: 0 });
  const meter = await fleetHours.meter({ accountId: device.accountId, deviceId: device.id });
  if (!meter) throw new CommandError(`No device with id ${device.id}`);
  const from =
    meter.hourMeterReadAt === null
      ? 'no reading yet: the engine time since the first report'
      : `from the reading at ${meter.hourMeterReadAt}`;
  return `Hour meter now: ${formatHoursMinutes(meter.hourMeterSeconds)} (${from}).\n`;
}

function readingJson(reading: HourMeterReading, timeZone: string): HourMeterReadingJson {
  return {
    id: reading.id,
    device_id: reading.deviceId,
    read_at: formatInstant(reading.readAt, timeZone),
    reading_seconds: reading.readingSeconds,
    recorded_at: formatInstant(reading.recordedAt, timeZone),
  };
}

function describeDevice(device: Device): string {
  return `${device.name} (device ${device.id})`;
}
