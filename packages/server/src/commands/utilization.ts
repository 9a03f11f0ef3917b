import {
  createFleetHours,
  CSV_LISTS,
  csvHeader,
  csvListVariant,
  csvRows,
  parseTagParameter,
  parseUtilizationGrouping,
  parseUtilizationSplit,
  type CsvList,
  type UtilizationPeriod,
} from '@fleet-hours/core';
import { FLEET_PAGE_SIZES } from '@fleet-hours/core/adapter';
import { tagUtilizationBody, utilizationBody } from '@fleet-hours/http';
import { CommandError, UsageError } from '../cli/cli-errors.js';
import { formatTable, type TableColumn } from '../cli/format-table.js';
import { readId } from '../cli/option-values.js';
import { optionalOption, type CommandContext, type CommandResult } from './command-context.js';
import { asUsageError, clock, describeDevice, findDevice, readWindowDates, windowRead } from './read-hours.js';

const COMMAND = 'utilization';

/** What `--format` may be (P144): a table to read, the API's JSON body, or its CSV rows. */
const FORMATS = ['table', 'json', 'csv'] as const;
type Format = (typeof FORMATS)[number];

/**
 * `utilization --device ID|--account ID [--tag T] [--by device|tag] [--from] [--to] [--group-by]
 * [--format table|json|csv]` (D60, P144): what `GET /api/v1/devices/{id}/utilization` or
 * `GET /api/v1/utilization` answers, read from the database by the same core reads; the fleet's
 * every device (all pages), or each tag. Every option is checked before the database is opened.
 */
export async function utilizationCommand(context: CommandContext): Promise<CommandResult> {
  const format = _format(context);
  const device = optionalOption(context, 'device');
  const account = optionalOption(context, 'account');
  if ((device === undefined) === (account === undefined))
    throw new UsageError('Give either --device ID (one vehicle) or --account ID (every vehicle of the account)', COMMAND);
  if (device !== undefined)
    for (const option of ['tag', 'by'])
      if (optionalOption(context, option) !== undefined)
        throw new UsageError(`--${option} applies to --account: a single device is read with --device alone`, COMMAND);
  const { groupBy, by, tag } = _checked(() => ({
    groupBy: parseUtilizationGrouping(optionalOption(context, 'group-by')),
    by: parseUtilizationSplit(optionalOption(context, 'by')),
    tag: parseTagParameter(optionalOption(context, 'tag')),
  }));
  const dates = readWindowDates(context, COMMAND);
  if (device !== undefined) {
    const deviceId = readId(device, '--device');
    const found = await findDevice(context, deviceId);
    const value = await windowRead(COMMAND, () =>
      found.fleetHours.utilization({ accountId: found.accountId, deviceId, ...dates, groupBy }),
    );
    const body = utilizationBody(value);
    const heading = `${describeDevice(found.device)}, local days in ${value.timeZone} from ${value.from} to ${value.to}, by ${groupBy}\n`;
    return _present(format, body, CSV_LISTS.utilization, heading + _table([], [[[], value.periods]]));
  }
  const accountId = readId(account!, '--account');
  const store = await context.store();
  if (!(await store.findAccount({ accountId }))) throw new CommandError(`No account with id ${accountId}`);
  const fleetHours = createFleetHours({ store, now: () => context.now * 1000, zoneCacheSize: 0 });
  const query = { accountId, ...dates, tag, groupBy };
  const scope = `account ${accountId}${tag === undefined ? '' : `, tag ${tag}`}, by ${groupBy}`;
  if (by === 'tag') {
    const tags = await _read(() => fleetHours.fleet.utilizationByTag(query));
    const body = { data: tags.map(tagUtilizationBody), next_cursor: null };
    const rows = tags.map((entry): [unknown[], readonly UtilizationPeriod[]] => [[entry.tag, entry.deviceCount], entry.periods]);
    const table = _table([{ header: 'TAG' }, { header: 'DEVICES', align: 'right' }], rows);
    return _present(format, body, csvListVariant(CSV_LISTS.fleetUtilization, 'tag'), `Utilization per tag, ${scope}\n${table}`);
  }
  // Every page of the fleet, the largest pages first to last (as a CSV export of the API reads them).
  const devices = [];
  let cursor: string | undefined;
  do {
    const page = await _read(() => fleetHours.fleet.utilization({ ...query, limit: FLEET_PAGE_SIZES.utilization.max, cursor }));
    devices.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  const body = { data: devices.map(utilizationBody), next_cursor: null };
  const rows = devices.map((entry): [unknown[], readonly UtilizationPeriod[]] => [[entry.deviceId, entry.timeZone], entry.periods]);
  const table = _table([{ header: 'DEVICE', align: 'right' }, { header: 'ZONE' }], rows);
  return _present(format, body, CSV_LISTS.fleetUtilization, `Utilization per device, ${scope}\n${table}`);
}

/** `--format`, and `--json` as `--format json`; both naming different formats is a usage error. */
function _format(context: CommandContext): Format {
  const given = optionalOption(context, 'format');
  if (given !== undefined && !(FORMATS as readonly string[]).includes(given))
    throw new UsageError(`--format "${given}" must be one of ${FORMATS.join(', ')}`, COMMAND);
  if (context.json && given !== undefined && given !== 'json')
    throw new UsageError(`--json prints JSON: give it or --format ${given}, not both`, COMMAND);
  return context.json ? 'json' : ((given ?? 'table') as Format);
}

/** A refusal of the core's parsers, naming the option as typed (`--group-by`). */
function _checked<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw asUsageError(error, COMMAND);
  }
}

/** The one check that needs the devices' zones (a --from after today for all of them) fails in the read. */
async function _read<T>(read: () => Promise<T>): Promise<T> {
  return read().catch((error: unknown) => {
    throw asUsageError(error, COMMAND);
  });
}

/** What is printed: the API's JSON body (with `--json` too), its CSV rows (the API's columns), or the table. */
function _present(format: Format, body: unknown, list: CsvList, table: string): CommandResult {
  // `--json` prints `json` itself; `--format json` prints it as text.
  if (format === 'json') return { json: body, text: `${JSON.stringify(body, null, 2)}\n` };
  if (format === 'csv') return { json: body, text: csvHeader(list) + csvRows(body, list) };
  return { json: body, text: table };
}

/**
 * One line per period of each entry: the entry's own cells first (a device, a tag), then the
 * period, its engine time in and outside the schedule, the scheduled time, the days used, and the
 * ratios as percent with one decimal (`-` when there is nothing to divide by).
 */
function _table(
  entryColumns: readonly TableColumn[],
  entries: readonly (readonly [readonly unknown[], readonly UtilizationPeriod[]])[],
): string {
  const columns: TableColumn[] = [
    ...entryColumns,
    ...['PERIOD', 'FROM', 'TO'].map((header) => ({ header })),
    ...['ENGINE', 'IN SCHEDULE', 'OUTSIDE', 'SCHEDULED', 'DAYS USED', 'UTILIZATION', 'IDLE SHARE'].map(
      (header) => ({ header, align: 'right' }) as const,
    ),
  ];
  const rows = entries.flatMap(([cells, periods]) =>
    periods.map((period) => [
      ...cells,
      period.period,
      period.from,
      period.to,
      clock(period.engineSeconds),
      clock(period.engineInScheduleSeconds),
      clock(period.engineOutsideScheduleSeconds),
      clock(period.scheduledSeconds),
      period.daysUsed,
      _percent(period.utilization),
      _percent(period.idleShare),
    ]),
  );
  return formatTable(columns, rows);
}

/** A ratio as percent with one decimal, `62.5%`; `null` (nothing to divide by) as `-`. */
function _percent(ratio: number | null): string | null {
  return ratio === null ? null : `${(ratio * 100).toFixed(1)}%`;
}
