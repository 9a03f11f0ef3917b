/**
 * Utilization (D60, P130, P131): the daily series with its day fields (D59) grouped by day, ISO week
 * or month, for one device, a page of the fleet's devices, or each tag of the fleet's devices.
 */
import {
  UTILIZATION_GROUPINGS,
  UtilizationSums,
  utilizationPeriods,
  type UtilizationDay,
  type UtilizationGrouping,
} from '../calendar/utilization.js';
import { InvalidParameterError } from '../errors/errors.js';
import type { DailyHours } from '../types.js';
import { checkArguments } from './argument-checks.js';
import { pageDays } from './fleet-reads.js';
import { pageUtilizationDays } from './utilization-days.js';
import { FLEET_WINDOW_QUERY, WINDOW_QUERY, type ReadContext } from './read-context.js';
import type {
  DeviceUtilization,
  FleetPage,
  FleetUtilizationQuery,
  FleetWindowQuery,
  TagUtilization,
  UtilizationQuery,
  WindowQuery,
} from './read-queries.js';

/** How a fleet's utilization is split (D60): one element per device (paged) or per tag. */
export const UTILIZATION_SPLITS = ['device', 'tag'] as const;

/** `device` or `tag`. */
export type UtilizationSplit = (typeof UTILIZATION_SPLITS)[number];

/**
 * The grouping of a utilization query (D60): `day`, `week` or `month`; absent, `day` (P130).
 *
 * @throws {InvalidParameterError} naming `group_by` for any other value.
 */
export function parseUtilizationGrouping(value: string | undefined): UtilizationGrouping {
  return _oneOf('group_by', value, UTILIZATION_GROUPINGS, 'day');
}

/**
 * How a fleet's utilization is split (D60): `device` or `tag`; absent, `device`.
 *
 * @throws {InvalidParameterError} naming `by` for any other value.
 */
export function parseUtilizationSplit(value: string | undefined): UtilizationSplit {
  return _oneOf('by', value, UTILIZATION_SPLITS, 'device');
}

function _oneOf<T extends string>(parameter: string, value: string | undefined, allowed: readonly T[], absent: T): T {
  if (value === undefined) return absent;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new InvalidParameterError(parameter, `Parameter ${parameter} "${value}" must be one of ${allowed.join(', ')}`);
}

/**
 * P148: devices per batch of a fleet's utilization by tag: the largest page of the fleet's
 * utilization, whose store calls fit in the read deadline at a year of segments a device.
 */
const BY_TAG_BATCH = 100;

/** The utilization reads of the service (D60); see `FleetHours` for each. */
export function utilizationReads(context: ReadContext, daily: (query: WindowQuery) => Promise<DailyHours | null>) {
  return {
    async utilization(query: UtilizationQuery): Promise<DeviceUtilization | null> {
      checkArguments('utilization()', query, { ...WINDOW_QUERY, groupBy: 'groupBy' });
      const series = await daily(query);
      return series && _deviceUtilization(series, query.groupBy);
    },

    async fleetUtilization(query: FleetUtilizationQuery): Promise<FleetPage<DeviceUtilization>> {
      checkArguments('fleet.utilization()', query, { ...FLEET_WINDOW_QUERY, groupBy: 'groupBy' });
      const page = await _utilizationPage(context, query);
      return {
        items: page.devices.map((device, index) => {
          const { from, to } = page.windows[index]!;
          return _deviceUtilization({ deviceId: device.id, timeZone: device.timeZone, from, to, days: page.days[index]! }, query.groupBy);
        }),
        nextCursor: page.nextCursor,
      };
    },

    /**
     * P131, P148, P153: every device in scope, read as pages of the utilization days of
     * {@link BY_TAG_BATCH} devices each (a fixed number of store calls per batch, none per device,
     * D49: each store call stays within the read deadline whatever the fleet's size); each batch's
     * days are added to the sums of each of its devices' tags as it arrives and then dropped, so
     * that the memory is one entry per tag and period plus one batch, not every device's days.
     * Tags in code-point order.
     */
    async fleetUtilizationByTag(query: Omit<FleetUtilizationQuery, 'limit' | 'cursor'>): Promise<readonly TagUtilization[]> {
      checkArguments('fleet.utilizationByTag()', query, { ...FLEET_WINDOW_QUERY, groupBy: 'groupBy' });
      const byTag = new Map<string, { sums: UtilizationSums; deviceCount: number }>();
      let cursor: string | null = null;
      do {
        const page = await _utilizationPage(context, cursor === null ? query : { ...query, cursor }, BY_TAG_BATCH);
        for (const [index, device] of page.devices.entries()) {
          for (const tag of device.tags) {
            let sums = byTag.get(tag);
            if (sums === undefined) byTag.set(tag, (sums = { sums: new UtilizationSums(query.groupBy), deviceCount: 0 }));
            sums.sums.add(page.days[index]!);
            sums.deviceCount += 1;
          }
        }
        cursor = page.nextCursor;
      } while (cursor !== null);
      return [...byTag.keys()]
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map((tag) => {
          const { sums, deviceCount } = byTag.get(tag)!;
          return { tag, deviceCount, groupBy: query.groupBy, periods: sums.periods() };
        });
    },
  };
}

/** P154: a page of devices, their windows and their utilization days. */
async function _utilizationPage(context: ReadContext, query: FleetWindowQuery, count?: number) {
  const now = context.nowSeconds();
  const page = await pageDays(context, 'utilization', query, now, count);
  const days = await pageUtilizationDays(context, query.accountId, page.devices, page.series, now);
  return { ...page, days };
}

/** A device's utilization from its window and its days (those of its daily series, or its utilization days, P154). */
function _deviceUtilization(
  series: Pick<DailyHours, 'deviceId' | 'timeZone' | 'from' | 'to'> & { readonly days: readonly UtilizationDay[] },
  groupBy: UtilizationGrouping,
): DeviceUtilization {
  return {
    deviceId: series.deviceId,
    timeZone: series.timeZone,
    from: series.from,
    to: series.to,
    groupBy,
    periods: utilizationPeriods(series.days, groupBy),
  };
}
