import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  createFleetHours,
  isFleetHoursError,
  InvalidFieldError,
  readWorkCalendarBody,
  WEEKDAYS,
  workCalendarAnswer,
  type CalendarWindow,
  type FleetHoursStore,
  type WorkCalendarAnswer,
  type WorkCalendarView,
} from '@fleet-hours/core';
import { CommandError, UsageError } from '../cli/cli-errors.js';
import { readId } from '../cli/option-values.js';
import { _findDeviceOfAnyAccount } from './_device-account.js';
import { CLI_ORIGIN } from './_cli-origin.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';

/**
 * The `calendar` commands (D58, P114): set, show and remove a device's own work calendar or an
 * account's default, by the core's one implementation that `PUT /api/v1/devices/{id}/calendar`
 * and `PUT /api/v1/calendar` use too (D52). Changes are audited with actor `cli` (D55).
 */

/** The place a command names: a device (and its account) or an account's default. */
interface _Place {
  readonly accountId: number;
  readonly deviceId: number | null;
  /** How the text output names it: `Truck 1 (device 4)`, `the default of account 1`. */
  readonly label: string;
}

/** `calendar set --device ID|--account ID --file F` → the calendar in use afterwards, as the API answers it. */
export async function setCalendarCommand(context: CommandContext): Promise<CommandResult> {
  const file = requiredOption(context, 'file');
  const body = await _readCalendarFile(context, file);
  const place = await _place(context, 'calendar set');
  const view = await _write(context, place, body, file);
  return _shown(place, view, `Set the work calendar of ${place.label} (version ${view.version}).\n`);
}

/** `calendar show --device ID|--account ID` → the calendar in use: the device's own, else the default, else none. */
export async function showCalendarCommand(context: CommandContext): Promise<CommandResult> {
  const place = await _place(context, 'calendar show');
  const view = await _service(context, await context.store()).manage.findWorkCalendar(place);
  if (!view) throw _missing(place);
  return _shown(place, view, '');
}

/** `calendar remove --device ID|--account ID` → the calendar in use afterwards (a device: the default, or none). */
export async function removeCalendarCommand(context: CommandContext): Promise<CommandResult> {
  const place = await _place(context, 'calendar remove');
  const view = await _write(context, place, null, null);
  return _shown(place, view, `Removed the work calendar of ${place.label} (version ${view.version}).\n`);
}

/** Reads the file as JSON and checks it as the API checks a body, before the database is opened. */
async function _readCalendarFile(context: CommandContext, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(resolve(context.io.cwd, file), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (error as Error).message;
    throw new CommandError(`Cannot read ${file}: ${why}`, { cause: error });
  }
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (error) {
    throw new CommandError(`${file}: not JSON (${(error as Error).message})`, { cause: error });
  }
  _refusedIn(file, () => readWorkCalendarBody(body));
  return body;
}

/** A refusal of the core, said of the file and the field in it: `week.json: weekly.mon[1]: …`. */
function _refusedIn<Value>(file: string | null, run: () => Value): Value {
  try {
    return run();
  } catch (error) {
    throw _inFile(file, error);
  }
}

function _inFile(file: string | null, error: unknown): unknown {
  if (error instanceof InvalidFieldError) return new CommandError(`${file ?? 'calendar'}: ${error.message}`, { cause: error });
  if (isFleetHoursError(error) && (error.code === 'invalid_body' || error.code === 'precondition_failed'))
    return new CommandError(`${file === null ? '' : `${file}: `}${error.message}`, { cause: error });
  return error;
}

async function _write(context: CommandContext, place: _Place, body: unknown, file: string | null): Promise<WorkCalendarView> {
  const manage = _service(context, await context.store()).manage;
  const view = await manage.putWorkCalendar({ ...place, body, origin: CLI_ORIGIN }).catch((error: unknown) => {
    throw _inFile(file, error);
  });
  if (!view) throw _missing(place);
  return view;
}

/** The device or the account the options name: exactly one of `--device` and `--account`. */
async function _place(context: CommandContext, command: string): Promise<_Place> {
  const device = optionalOption(context, 'device');
  const account = optionalOption(context, 'account');
  if ((device === undefined) === (account === undefined))
    throw new UsageError('Give either --device ID (its own calendar) or --account ID (the default of its devices)', command);
  const store = await context.store();
  if (device !== undefined) {
    const deviceId = readId(device, '--device');
    const found = await _findDeviceOfAnyAccount(store, deviceId);
    if (!found) throw new CommandError(`No device with id ${deviceId}`);
    return { accountId: found.accountId, deviceId, label: `${found.device.name} (device ${deviceId})` };
  }
  const accountId = readId(account!, '--account');
  if (!(await store.findAccount({ accountId }))) throw new CommandError(`No account with id ${accountId}`);
  return { accountId, deviceId: null, label: `the default of account ${accountId}` };
}

function _missing(place: _Place): CommandError {
  return new CommandError(place.deviceId === null ? `No account with id ${place.accountId}` : `No device with id ${place.deviceId}`);
}

function _service(context: CommandContext, store: FleetHoursStore) {
  return createFleetHours({ store, now: () => context.now * 1000, zoneCacheSize: 0 });
}

/** The calendar as `--json` prints it (the API's body) and as text: one line a day, then the exceptions. */
function _shown(place: _Place, view: WorkCalendarView, first: string): CommandResult {
  const json: WorkCalendarAnswer = workCalendarAnswer(view);
  const from =
    view.source === 'device' ? 'its own' : view.source === 'account' ? (place.deviceId === null ? 'set' : "the account's default") : 'none';
  const heading = `Work calendar of ${place.label}: ${from}${view.timeZone === null ? '' : `, in ${view.timeZone}`}.\n`;
  if (json.weekly === null) {
    const how =
      place.deviceId === null
        ? 'Set one with: fleet-hours calendar set --account ID --file FILE'
        : 'Set one with: fleet-hours calendar set --device ID --file FILE';
    return { json, text: `${first}${heading}${how}\n` };
  }
  const weekly = json.weekly;
  const days = WEEKDAYS.map((day) => `  ${day}  ${_windows(weekly[day])}\n`).join('');
  const exceptions = json.exceptions.map((exception) => `  ${exception.date}  ${_windows(exception.windows)}\n`).join('');
  return { json, text: `${first}${heading}${days}${exceptions === '' ? '' : `Exceptions:\n${exceptions}`}` };
}

function _windows(windows: readonly CalendarWindow[]): string {
  return windows.length === 0 ? 'no work' : windows.map(([start, end]) => `${start}-${end}${end < start ? ' (next day)' : ''}`).join(', ');
}
