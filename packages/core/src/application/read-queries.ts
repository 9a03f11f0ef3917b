import type { PageQuery } from '../fleet/parse-page-query.js';
import type { DailyHours, DeviceService, HoursTotal, MeterRecord, ServiceStatus } from '../types.js';
import type { WindowDates } from '../window/parse-window-query.js';
import type { UtilizationGrouping, UtilizationPeriod } from '../calendar/utilization.js';

/** A device and window, as the `/hours` and `/hours/daily` routes receive them: the dates from `parseWindowQuery` (D4, D7). */
export interface WindowQuery extends WindowDates {
  readonly accountId: number;
  readonly deviceId: number;
}

/** A page of the fleet endpoints, as they receive it: the account, and `limit` / `cursor` from `parsePageQuery` (D32). */
export interface FleetPageQuery extends PageQuery {
  readonly accountId: number;
  /** D61: only the devices having this tag (as `parseTagParameter` reads it); none: every device. */
  readonly tag?: string | undefined;
}

/** A page of `/service` for the whole fleet (D39): the page, and the statuses a device must have a schedule in (none: every device). */
export interface FleetServiceQuery extends FleetPageQuery {
  readonly statuses?: readonly ServiceStatus[] | undefined;
}

/** A page of `/hours` or `/hours/daily` for the whole fleet: the page and the dates from `parseWindowQuery`, applied in each device's zone (D32). */
export interface FleetWindowQuery extends FleetPageQuery, WindowDates {}

/** One page of a fleet endpoint (D32): one item per device, by ascending id, and the cursor of the next page (`null` on the last). */
export interface FleetPage<Item> {
  readonly items: readonly Item[];
  readonly nextCursor: string | null;
}

/**
 * The fleet reads (D32): every device of the account, a page at a time, each item exactly what the
 * single-device read returns for that device. A page costs a bounded number of store calls
 * whatever its size: one for the devices and one for the figures (with a store that offers the
 * batch capabilities).
 */
export interface FleetReads {
  /** `hours()` for every device of a page. @throws {InvalidParameterError} (D7, D32, P32, P33) */
  hours(query: FleetWindowQuery): Promise<FleetPage<HoursTotal>>;
  /** `daily()` for every device of a page. @throws {InvalidParameterError} (D7, D32, P32, P33) */
  daily(query: FleetWindowQuery): Promise<FleetPage<DailyHours>>;
  /** `meter()` for every device of a page. @throws {InvalidParameterError} (D32, P33) */
  meter(query: FleetPageQuery): Promise<FleetPage<MeterRecord>>;
  /**
   * `service()` for every device of a page (D39, D32); with `statuses`, only the devices with at
   * least one schedule in one of them, a page holding up to `limit` such devices.
   * @throws {InvalidParameterError} (D32, P33)
   */
  service(query: FleetServiceQuery): Promise<FleetPage<DeviceService>>;
  /** D60: `utilization()` for every device of a page. @throws {InvalidParameterError} (D7, D32, P32, P33) */
  utilization(query: FleetUtilizationQuery): Promise<FleetPage<DeviceUtilization>>;
  /**
   * D60 (P131): per tag of the devices in scope (`tag` keeps those having it), in code-point order,
   * how many devices have it and their days added up by period; not paged.
   * @throws {InvalidParameterError} (D7, P32)
   */
  utilizationByTag(query: Omit<FleetUtilizationQuery, 'limit' | 'cursor'>): Promise<readonly TagUtilization[]>;
}

/** A device's utilization query (D60): a window and its grouping (`parseUtilizationGrouping`). */
export interface UtilizationQuery extends WindowQuery {
  readonly groupBy: UtilizationGrouping;
}

/** A fleet's utilization query (D60): a page, a window and its grouping. */
export interface FleetUtilizationQuery extends FleetWindowQuery {
  readonly groupBy: UtilizationGrouping;
}

/** A device's utilization over a window (D60): its window as `daily()` gives it, and the periods of its days. */
export interface DeviceUtilization {
  readonly deviceId: number;
  readonly timeZone: string;
  readonly from: string;
  readonly to: string;
  readonly groupBy: UtilizationGrouping;
  readonly periods: readonly UtilizationPeriod[];
}

/** The utilization of a tag's devices (D60, P131): how many have it, and their days added up by period. */
export interface TagUtilization {
  readonly tag: string;
  readonly deviceCount: number;
  readonly groupBy: UtilizationGrouping;
  readonly periods: readonly UtilizationPeriod[];
}
