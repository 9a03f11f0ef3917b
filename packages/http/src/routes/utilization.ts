import { parsePageQuery } from '@fleet-hours/core/adapter';
import {
  parseTagParameter,
  parseUtilizationGrouping,
  parseUtilizationSplit,
  parseWindowQuery,
  type DeviceUtilization,
  type FleetHours,
  type TagUtilization,
  type UtilizationPeriod,
  type WindowQuery,
} from '@fleet-hours/core';
import type { Context, Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { accountId } from './account-id.js';
import { listPageQuery, listRoute, pagedList, wholeList } from './list-route.js';
import { deviceWindowRead, type FleetRouteOptions } from './window-routes.js';

/** A single query parameter as text: a repeated one is refused by the parser of its value (it is not one of the values). */
const single = (values: readonly string[] | undefined) =>
  values === undefined ? undefined : values.length === 1 ? values[0]! : values.join(',');

/** The periods of a utilization body (D60), the one place of their fields and order. */
function periodsBody(periods: readonly UtilizationPeriod[]) {
  return periods.map((period) => ({
    period: period.period,
    from: period.from,
    to: period.to,
    engine_seconds: period.engineSeconds,
    moving_seconds: period.movingSeconds,
    idle_seconds: period.idleSeconds,
    scheduled_seconds: period.scheduledSeconds,
    engine_in_schedule_seconds: period.engineInScheduleSeconds,
    engine_outside_schedule_seconds: period.engineOutsideScheduleSeconds,
    days_used: period.daysUsed,
    utilization: period.utilization,
    idle_share: period.idleShare,
  }));
}

/** The JSON body of `/devices/{id}/utilization` (D60): also each element of the fleet page; the CLI's `utilization --json` prints it too. */
export function utilizationBody(value: DeviceUtilization) {
  return {
    device_id: value.deviceId,
    timezone: value.timeZone,
    from: value.from,
    to: value.to,
    group_by: value.groupBy,
    data: periodsBody(value.periods),
  };
}

/** An element of the fleet's utilization by tag (D60, P131); the CLI's `utilization --by tag --json` prints them too. */
export function tagUtilizationBody(value: TagUtilization) {
  return { tag: value.tag, device_count: value.deviceCount, group_by: value.groupBy, data: periodsBody(value.periods) };
}

/** `GET /api/v1/devices/{id}/utilization`: the daily series grouped by day, ISO week or month (D60); in CSV one row per period (D62, P143). */
export function utilizationRoute(options: { readonly fleetHours: FleetHours; readonly now: () => number }): Handler<FleetHoursEnv> {
  return listRoute('utilization', options.now, async (c) => {
    // The grouping is checked with the window, before the device is looked up (D7).
    const groupBy = parseUtilizationGrouping(single(c.req.queries('group_by')));
    const read = (query: WindowQuery) => options.fleetHours.utilization({ ...query, groupBy });
    return wholeList(await deviceWindowRead(read, utilizationBody)(c));
  });
}

/**
 * `GET /api/v1/utilization` (D60): `by=device` (the default) a page of devices as the other fleet
 * pages (D32), each the body of `/devices/{id}/utilization`; `by=tag` one element per tag of the
 * devices in scope, not paged (`next_cursor` null, P131). The query is checked whole first. In CSV
 * (D62, P143): by device every page, streamed, one row per device per period; by tag one row per
 * tag per period.
 */
export function fleetUtilizationRoute(options: {
  readonly fleetHours: FleetHours;
  readonly endpoint: { readonly paging: Pick<FleetRouteOptions['endpoint']['paging'], 'cursor'> };
  readonly now: () => number;
}): Handler<FleetHoursEnv> {
  const cursorTag = options.endpoint.paging.cursor;
  return listRoute('fleetUtilization', options.now, async (c: Context<FleetHoursEnv>, { whole }) => {
    const queries = c.req.queries();
    const dates = parseWindowQuery(queries);
    const page = listPageQuery(parsePageQuery(queries, cursorTag), cursorTag, whole);
    const tag = parseTagParameter(queries.tag);
    const groupBy = parseUtilizationGrouping(single(queries.group_by));
    const by = parseUtilizationSplit(single(queries.by));
    const query = { accountId: accountId(c), ...dates, tag, groupBy };
    if (by === 'tag') {
      const tags = await options.fleetHours.fleet.utilizationByTag(query);
      return wholeList({ data: tags.map(tagUtilizationBody), next_cursor: null });
    }
    return pagedList(async (cursor) => {
      const { items, nextCursor } = await options.fleetHours.fleet.utilization({ ...query, ...page, cursor });
      return { body: { data: items.map(utilizationBody), next_cursor: nextCursor }, nextCursor };
    }, page.cursor);
  });
}
