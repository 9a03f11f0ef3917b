import {
  createFleetHours,
  formatInstant,
  InvalidParameterError,
  isFleetHoursError,
  parseServiceStatuses,
  readScheduleFields,
  type Device,
  type DeviceService,
  type FleetHours,
  type FleetHoursStore,
  type ScheduleWrite,
  type ServiceSchedule,
  type ServiceScheduleState,
  type ServiceStatus,
} from '@fleet-hours/core';
import { serviceBody, serviceScheduleBody } from '@fleet-hours/http';
import { CommandError, UsageError } from '../cli/cli-errors.js';
import { formatHoursMinutes } from '../cli/format-hours-minutes.js';
import { formatTable } from '../cli/format-table.js';
import { durationUnit, readCleanText, readDays, readDuration, readId, readInstantOrNow } from '../cli/option-values.js';
import { _findDeviceOfAnyAccount } from './_device-account.js';
import { CLI_ORIGIN } from './_cli-origin.js';
import { _withOptionNames, _writeWithOptionNames } from './_option-refusal.js';
import { requireAccount } from './accounts.js';
import { readTagOption } from './devices.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';

/** The options of a schedule by the fields the core's checks name (D39). */
const SCHEDULE_OPTIONS = {
  name: '--name',
  interval_seconds: '--every',
  interval_days: '--every-days',
  due_soon_seconds: '--due-soon',
  due_soon_days: '--due-soon-days',
  last_done_at: '--last-done-at',
  last_done_hour_meter_seconds: '--last-done-hours',
} as const;

/** The unit each duration of a schedule was typed in, by the core's field name, for what the CLI says back. */
function typedUnits(context: CommandContext) {
  const unit = (option: string) => {
    const text = optionalOption(context, option);
    return text === undefined || text.trim().toLowerCase() === 'default' ? undefined : durationUnit(text);
  };
  return { interval_seconds: unit('every'), due_soon_seconds: unit('due-soon'), last_done_hour_meter_seconds: unit('last-done-hours') };
}

/** Devices per page of the fleet read behind `service list`: its maximum (D32). */
const LIST_PAGE_SIZE = 500;

/**
 * `service create --device ID --name NAME --every DURATION [--every-days N|none] [--due-soon DURATION]
 * [--due-soon-days N] [--last-done-at INSTANT [--last-done-hours DURATION]]` → the new schedule as
 * the service endpoint shows it (D39). Without `--last-done-at` the last service is now; without
 * `--last-done-hours` the hour meter at the last service is computed at every read (D38).
 */
export async function createServiceCommand(context: CommandContext): Promise<CommandResult> {
  const deviceId = readId(requiredOption(context, 'device'), '--device');
  const lastDoneAtText = optionalOption(context, 'last-done-at');
  const lastDoneHoursText = optionalOption(context, 'last-done-hours');
  if (lastDoneHoursText !== undefined && lastDoneAtText === undefined) {
    throw new UsageError(
      '--last-done-hours needs --last-done-at: the hour meter at the last service goes with its instant (a new schedule starts from the hour meter now)',
      'service create',
    );
  }
  const lastDoneAt = lastDoneAtText === undefined ? undefined : readInstantOrNow(lastDoneAtText, '--last-done-at', context.now);
  // The fields of `POST /api/v1/devices/{id}/service/schedules`, for the same write (P76).
  const fields = {
    name: readCleanText(requiredOption(context, 'name'), '--name'),
    interval_seconds: readDuration(requiredOption(context, 'every'), '--every'),
    interval_days: optional(context, 'every-days', (text) => readDays(text, '--every-days', 'none')),
    due_soon_seconds: optional(context, 'due-soon', (text) => readDuration(text, '--due-soon')),
    due_soon_days: optional(context, 'due-soon-days', (text) => readDays(text, '--due-soon-days')),
    ...(lastDoneAt === undefined ? {} : { last_done_at: formatInstant(lastDoneAt, 'UTC') }),
    last_done_hour_meter_seconds: lastDoneHoursText === undefined ? null : readDuration(lastDoneHoursText, '--last-done-hours'),
  };
  // The fields first, whatever the device (P71).
  _withOptionNames(SCHEDULE_OPTIONS, () => readScheduleFields(fields, 'create', context.now), typedUnits(context));

  const store = await context.store();
  const found = await _findDeviceOfAnyAccount(store, deviceId);
  if (!found) throw new CommandError(`No device with id ${deviceId}`);
  const written = await _writeWithOptionNames(
    SCHEDULE_OPTIONS,
    () => readsOf(context, store).manage.createServiceSchedule({ accountId: found.accountId, deviceId, fields, origin: CLI_ORIGIN }),
    typedUnits(context),
  ).catch(_conflict);
  if (!written) throw new CommandError(`No device with id ${deviceId}`);
  return scheduleResult(_stateOf(written), 'Created');
}

/**
 * `service update --id ID [--name …] [--every …] [--every-days N|none] [--due-soon DURATION|default]
 * [--due-soon-days N|default]` → the schedule as the service endpoint shows it (D39). `none` removes
 * the calendar interval (and its margin); `default` goes back to a margin of a tenth of the interval.
 */
export async function updateServiceCommand(context: CommandContext): Promise<CommandResult> {
  const scheduleId = readId(requiredOption(context, 'id'), '--id');
  // The fields of `PATCH …/service/schedules/{schedule_id}`, for the same write (P76): `none` and `default` are null.
  const changes: Record<string, string | number | null> = {};
  const nameText = optionalOption(context, 'name');
  if (nameText !== undefined) changes.name = readCleanText(nameText, '--name');
  const everyText = optionalOption(context, 'every');
  if (everyText !== undefined) changes.interval_seconds = readDuration(everyText, '--every');
  const everyDaysText = optionalOption(context, 'every-days');
  if (everyDaysText !== undefined) changes.interval_days = readDays(everyDaysText, '--every-days', 'none');
  const dueSoonText = optionalOption(context, 'due-soon');
  if (dueSoonText !== undefined) {
    changes.due_soon_seconds = dueSoonText.trim().toLowerCase() === 'default' ? null : readDuration(dueSoonText, '--due-soon');
  }
  const dueSoonDaysText = optionalOption(context, 'due-soon-days');
  if (dueSoonDaysText !== undefined) changes.due_soon_days = readDays(dueSoonDaysText, '--due-soon-days', 'default');
  if (Object.keys(changes).length === 0) {
    throw new UsageError(
      'Nothing to change: give at least one of --name, --every, --every-days, --due-soon, --due-soon-days',
      'service update',
    );
  }

  const { store, schedule, device } = await findSchedule(context, scheduleId);
  const written = await _writeWithOptionNames(
    SCHEDULE_OPTIONS,
    () =>
      readsOf(context, store).manage.updateServiceSchedule({
        accountId: device.accountId,
        deviceId: schedule.deviceId,
        scheduleId,
        fields: changes,
        origin: CLI_ORIGIN,
      }),
    typedUnits(context),
  ).catch(_conflict);
  if (!written) throw new CommandError(`No service schedule with id ${scheduleId}`);
  return scheduleResult(_stateOf(written), 'Updated');
}

/**
 * `service done --id ID [--at INSTANT]` → the schedule after a service at that instant (default now):
 * its last service is then, at the hour meter of then, computed at every read (D38, D39).
 */
export async function serviceDoneCommand(context: CommandContext): Promise<CommandResult> {
  const scheduleId = readId(requiredOption(context, 'id'), '--id');
  const at = readInstantOrNow(optionalOption(context, 'at') ?? 'now', '--at', context.now);
  const { store, schedule, device } = await findSchedule(context, scheduleId);
  // The write of `POST …/service/schedules/{schedule_id}/done` (P76).
  const written = await _writeWithOptionNames({ ...SCHEDULE_OPTIONS, done_at: '--at' }, () =>
    readsOf(context, store).manage.recordServiceDone({
      accountId: device.accountId,
      deviceId: schedule.deviceId,
      scheduleId,
      fields: { done_at: formatInstant(at, 'UTC') },
      origin: CLI_ORIGIN,
    }),
  );
  if (!written) throw new CommandError(`No service schedule with id ${scheduleId}`);
  const state = _stateOf(written);
  const result = scheduleResult(state, null);
  const { lastDoneAt, lastDoneHourMeterSeconds } = state.schedule;
  const done = `Recorded a service at ${lastDoneAt}: the hour meter then read ${formatHoursMinutes(lastDoneHourMeterSeconds)}.\n`;
  return { ...result, text: done + result.text };
}

/** `service remove --id ID` → the schedule as it stood when removed. */
export async function removeServiceCommand(context: CommandContext): Promise<CommandResult> {
  const scheduleId = readId(requiredOption(context, 'id'), '--id');
  const { store, schedule, device } = await findSchedule(context, scheduleId);
  // The write of `DELETE …/service/schedules/{schedule_id}` (P76): the schedule as it stood.
  const removed = await readsOf(context, store).manage.removeServiceSchedule({
    accountId: device.accountId,
    deviceId: schedule.deviceId,
    scheduleId,
    origin: CLI_ORIGIN,
  });
  if (!removed) throw new CommandError(`No service schedule with id ${scheduleId}`);
  const state = _stateOf(removed);
  return {
    json: scheduleJson(state),
    text: `Removed service schedule ${scheduleId} "${state.schedule.name}" of ${describeDevice(device)}.\n`,
  };
}

/**
 * `service list [--device ID | --account ID] [--status STATUSES] [--tag TAG]` → with `--device`, the body of
 * `GET /api/v1/devices/{id}/service`; otherwise `{ data: [body…] }` of every device of the account,
 * or of every account, by account then device id, as `GET /api/v1/service` pages them (D39, D32).
 * `--status` keeps the devices with a schedule in one of the statuses; `--tag` those having the tag (D61).
 */
export async function listServiceCommand(context: CommandContext): Promise<CommandResult> {
  const deviceText = optionalOption(context, 'device');
  const accountText = optionalOption(context, 'account');
  const statusText = optionalOption(context, 'status');
  if (deviceText !== undefined && accountText !== undefined) throw new UsageError('Give --device or --account, not both', 'service list');
  if (deviceText !== undefined && statusText !== undefined) {
    throw new UsageError('--status picks devices of a fleet: give it without --device (a device shows all its schedules)', 'service list');
  }
  const tagText = optionalOption(context, 'tag');
  if (deviceText !== undefined && tagText !== undefined)
    throw new UsageError('--tag picks devices of a fleet: give it without --device', 'service list');
  const tag = readTagOption(tagText, 'service list');
  const deviceId = deviceText === undefined ? undefined : readId(deviceText, '--device');
  const accountId = accountText === undefined ? undefined : readId(accountText, '--account');
  const statuses = statusText === undefined ? undefined : readStatuses(statusText);

  const store = await context.store();
  const fleetHours = readsOf(context, store);
  if (deviceId !== undefined) {
    const found = await _findDeviceOfAnyAccount(store, deviceId);
    const service = found && (await fleetHours.service({ accountId: found.accountId, deviceId }));
    if (!found || !service) throw new CommandError(`No device with id ${deviceId}`);
    return { json: serviceBody(service), text: serviceTable([{ device: found.device, service }], null) };
  }
  const accounts = accountId === undefined ? await store.listAccounts() : [await requireAccount(store, accountId)];
  const listed: { device: Device; service: DeviceService }[] = [];
  for (const account of accounts) {
    const devices = new Map((await store.listDevices({ accountId: account.id })).map((device) => [device.id, device]));
    let cursor: string | undefined;
    do {
      const page = await fleetHours.fleet.service({ accountId: account.id, limit: LIST_PAGE_SIZE, cursor, statuses, tag });
      for (const service of page.items) {
        const device = devices.get(service.deviceId);
        if (device) listed.push({ device, service });
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }
  const text =
    listed.length === 0 && tag !== undefined
      ? `No device has the tag "${tag}"${statuses ? ' and such a schedule' : ''}.\n`
      : serviceTable(listed, statuses ?? null);
  return { json: { data: listed.map(({ service }) => serviceBody(service)) }, text };
}

/** An optional option read by `read`; `null` when absent. */
function optional<Value>(context: CommandContext, name: string, read: (text: string) => Value): Value | null {
  const text = optionalOption(context, name);
  return text === undefined ? null : read(text);
}

/** `--status due_soon,overdue`, as the fleet endpoint reads its `status` parameter (spaces after commas allowed). */
function readStatuses(text: string): ServiceStatus[] {
  try {
    return parseServiceStatuses(text.replace(/\s+/g, '')) ?? [];
  } catch (error) {
    if (!(error instanceof InvalidParameterError)) throw error;
    throw new UsageError(error.message.replace(/^Parameter status/, '--status'), 'service list');
  }
}

function readsOf(context: CommandContext, store: FleetHoursStore): FleetHours {
  return createFleetHours({ store, now: () => context.now * 1000, zoneCacheSize: 0 });
}

/** A schedule and its device; a schedule whose device no account has is as missing. */
async function findSchedule(
  context: CommandContext,
  scheduleId: number,
): Promise<{ store: FleetHoursStore; schedule: ServiceSchedule; device: Device }> {
  const store = await context.store();
  const schedule = await store.findServiceSchedule({ scheduleId });
  const found = schedule && (await _findDeviceOfAnyAccount(store, schedule.deviceId));
  if (!schedule || !found) throw new CommandError(`No service schedule with id ${scheduleId}`);
  return { store, schedule, device: found.device };
}

interface _ScheduleState {
  readonly device: Device;
  readonly service: DeviceService;
  readonly schedule: ServiceScheduleState;
}

/** A schedule after a write of the core, where it stands at the command's now, as the service endpoint computes it (D38, D39). */
function _stateOf(written: ScheduleWrite): _ScheduleState {
  return { device: written.device, service: written.service, schedule: written.state };
}

/** A name the device already has (P78): the operator's mistake, exit 1 with the core's message. */
function _conflict(error: unknown): never {
  if (isFleetHoursError(error) && error.code === 'conflict') throw new CommandError(error.message, { cause: error });
  throw error;
}

/** One schedule as the CLI prints it: its device, then the schedule as the service endpoint shows it. */
function scheduleJson(state: _ScheduleState) {
  return { device_id: state.device.id, ...serviceScheduleBody(state.schedule) };
}

function scheduleResult(state: _ScheduleState, verb: string | null): CommandResult {
  const { schedule, service, device } = state;
  const days = (value: number | null, text: (days: number) => string) => (value === null ? '' : text(value));
  const lines = [
    `${verb === null ? 'Service' : `${verb} service`} schedule ${schedule.id} "${schedule.name}" of ${describeDevice(device)}: ${schedule.status}`,
    `  every      ${formatHoursMinutes(schedule.intervalSeconds)} of engine time${days(schedule.intervalDays, (n) => ` or ${n} days, whichever comes first`)}`,
    `  due soon   within ${formatHoursMinutes(schedule.dueSoonSeconds)}${days(schedule.dueSoonDays, (n) => ` or ${n} days`)}`,
    `  last done  ${schedule.lastDoneAt} at ${formatHoursMinutes(schedule.lastDoneHourMeterSeconds)}`,
    `  due        at ${formatHoursMinutes(schedule.dueHourMeterSeconds)}${schedule.dueDate === null ? '' : ` or on ${schedule.dueDate}`}`,
    `  remaining  ${formatHoursMinutes(schedule.remainingSeconds)}${days(schedule.remainingDays, (n) => ` and ${n} days`)} ` +
      `(hour meter ${formatHoursMinutes(service.hourMeterSeconds)} as of ${service.asOf})`,
  ];
  return { json: scheduleJson(state), text: `${lines.join('\n')}\n` };
}

/** The schedules of some devices as one table, engine time in h:mm. */
function serviceTable(listed: readonly { device: Device; service: DeviceService }[], statuses: readonly ServiceStatus[] | null): string {
  const rows = listed.flatMap(({ device, service }) =>
    service.schedules.map((schedule) => [
      device.id,
      device.name,
      formatHoursMinutes(service.hourMeterSeconds),
      schedule.id,
      schedule.name,
      schedule.status,
      formatHoursMinutes(schedule.dueHourMeterSeconds),
      formatHoursMinutes(schedule.remainingSeconds),
      schedule.dueDate,
      schedule.remainingDays,
    ]),
  );
  if (rows.length === 0) {
    if (statuses !== null) return `No device has a service schedule that is ${statuses.join(' or ')}.\n`;
    const whose = listed.length === 1 ? `${describeDevice(listed[0]!.device)} has` : 'There are';
    return `${whose} no service schedules. Create one with: fleet-hours service create --help\n`;
  }
  const heading = "Service schedules (engine time in h:mm, days in each vehicle's zone):\n";
  return (
    heading +
    formatTable(
      [
        { header: 'DEVICE', align: 'right' },
        { header: 'VEHICLE' },
        { header: 'HOUR METER', align: 'right' },
        { header: 'ID', align: 'right' },
        { header: 'SCHEDULE' },
        { header: 'STATUS' },
        { header: 'DUE AT', align: 'right' },
        { header: 'REMAINING', align: 'right' },
        { header: 'DUE DATE' },
        { header: 'DAYS LEFT', align: 'right' },
      ],
      rows,
    )
  );
}

function describeDevice(device: Device): string {
  return `${device.name} (device ${device.id})`;
}
