import {
  createFleetHours,
  formatInstant,
  hourMeterReadingBody,
  isFleetHoursError,
  READING_PAGE_SIZES,
  readReadingFields,
  type Device,
  type FleetHoursStore,
  type HourMeterReadingBody,
} from '@fleet-hours/core';
import { CommandError } from '../cli/cli-errors.js';
import { formatHoursMinutes } from '../cli/format-hours-minutes.js';
import { formatTable } from '../cli/format-table.js';
import { durationUnit, readDuration, readId, readInstantOrNow } from '../cli/option-values.js';
import { _findDeviceOfAnyAccount } from './_device-account.js';
import { CLI_ORIGIN } from './_cli-origin.js';
import { _withOptionNames, _writeWithOptionNames } from './_option-refusal.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';

/** A reading as the CLI shows it: as the API does (D38, P76), instants in the device's zone (D9). */
export type HourMeterReadingJson = HourMeterReadingBody;

/** The options of a reading by the fields the core's writes name (P76). */
const READING_OPTIONS = { read_at: '--at', reading_seconds: '--reading' } as const;

/**
 * `hour-meter set --device ID --reading DURATION [--at INSTANT]` → the stored reading (D38), by the
 * core's write that `POST /api/v1/devices/{id}/hour-meter/readings` makes too (P76). A reading at an
 * instant that already has one replaces it. A reading lower than the one before it is stored (meters
 * get replaced) with a note on stderr.
 */
export async function setHourMeterCommand(context: CommandContext): Promise<CommandResult> {
  const deviceId = readId(requiredOption(context, 'device'), '--device');
  const readingText = requiredOption(context, 'reading');
  const readingSeconds = readDuration(readingText, '--reading');
  const readAt = readInstantOrNow(optionalOption(context, 'at') ?? 'now', '--at', context.now);
  const fields = { read_at: formatInstant(readAt, 'UTC'), reading_seconds: readingSeconds };
  const units = { reading_seconds: durationUnit(readingText) };
  // The fields first, whatever the device (P71): the core checks them before it looks the device up.
  _withOptionNames(READING_OPTIONS, () => readReadingFields(fields, context.now), units);

  const { store, device, accountId } = await findDevice(context, deviceId);
  const manage = readsOf(context, store).manage;
  const recorded = await _writeWithOptionNames(
    READING_OPTIONS,
    () => manage.addHourMeterReading({ accountId, deviceId, fields, origin: CLI_ORIGIN }),
    units,
  );
  if (!recorded) throw new CommandError(`No device with id ${deviceId}`);
  const reading = hourMeterReadingBody(recorded.reading, device.timeZone);

  // Readings come newest first: the first one before this instant is the one this follows.
  const previous = recorded.earlier.find((earlier) => earlier.readAt < readAt);
  if (previous && previous.readingSeconds > readingSeconds) {
    context.io.stderr.write(
      `Note: ${formatHoursMinutes(readingSeconds)} at ${reading.read_at} is lower than the reading before it, ` +
        `${formatHoursMinutes(previous.readingSeconds)} at ${formatInstant(previous.readAt, device.timeZone)} (a replaced hour meter?): ` +
        'from this instant on the hour meter counts from the new reading.\n',
    );
  }
  const hourMeter = await hourMeterNow(context, store, device);
  const text =
    `${recorded.replaced ? 'Replaced' : 'Recorded'} hour-meter reading ${reading.id} of ${describeDevice(device)}: ` +
    `${formatHoursMinutes(readingSeconds)} at ${reading.read_at}.\n${hourMeter}`;
  return { json: reading, text };
}

/** `hour-meter list --device ID` → `{ device_id, timezone, data: [reading…] }`, newest first (D38), as the API pages them. */
export async function listHourMeterCommand(context: CommandContext): Promise<CommandResult> {
  const deviceId = readId(requiredOption(context, 'device'), '--device');
  const { store, device, accountId } = await findDevice(context, deviceId);
  const manage = readsOf(context, store).manage;
  const readings: HourMeterReadingJson[] = [];
  let cursor: string | undefined;
  do {
    const page = await manage.hourMeterReadings({ accountId, deviceId, limit: READING_PAGE_SIZES.max, cursor });
    if (!page) throw new CommandError(`No device with id ${deviceId}`);
    readings.push(...page.readings.map((reading) => hourMeterReadingBody(reading, device.timeZone)));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
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
  const { store, device, accountId } = await findDevice(context, deviceId);
  const missing = () => new CommandError(`Device ${deviceId} has no hour-meter reading with id ${readingId}`);
  const removed = await readsOf(context, store)
    .manage.removeHourMeterReading({ accountId, deviceId, readingId, origin: CLI_ORIGIN })
    .catch((error: unknown) => {
      throw isFleetHoursError(error) && error.code === 'device_not_found' ? missing() : error;
    });
  if (!removed) throw missing();
  const reading = hourMeterReadingBody(removed.reading, device.timeZone);
  const hourMeter = await hourMeterNow(context, store, device);
  return {
    json: reading,
    text: `Removed hour-meter reading ${reading.id} of ${describeDevice(device)} (${formatHoursMinutes(reading.reading_seconds)} at ${reading.read_at}).\n${hourMeter}`,
  };
}

/** The service over the store at the command's now: its reads, and its writes (P76). */
function readsOf(context: CommandContext, store: FleetHoursStore) {
  return createFleetHours({ store, now: () => context.now * 1000, zoneCacheSize: 0 });
}

/** The device of any account: operators manage every account. A device no account has is "no device". */
async function findDevice(
  context: CommandContext,
  deviceId: number,
): Promise<{ store: FleetHoursStore; device: Device; accountId: number }> {
  const store = await context.store();
  const found = await _findDeviceOfAnyAccount(store, deviceId);
  if (!found) throw new CommandError(`No device with id ${deviceId}`);
  return { store, device: found.device, accountId: found.accountId };
}

/** A line with the device's hour meter at the command's now, as `meter` reads it (D38). */
async function hourMeterNow(context: CommandContext, store: FleetHoursStore, device: Device): Promise<string> {
  const meter = await readsOf(context, store).meter({ accountId: device.accountId, deviceId: device.id });
  if (!meter) throw new CommandError(`No device with id ${device.id}`);
  const from =
    meter.hourMeterReadAt === null
      ? 'no reading yet: the engine time since the first report'
      : `from the reading at ${meter.hourMeterReadAt}`;
  return `Hour meter now: ${formatHoursMinutes(meter.hourMeterSeconds)} (${from}).\n`;
}

function describeDevice(device: Device): string {
  return `${device.name} (device ${device.id})`;
}
