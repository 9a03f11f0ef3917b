import type {
  BucketSeconds,
  Device,
  EngineSegment,
  EpochSeconds,
  ServiceSchedule,
  HourMeterReading,
  SegmentSummary,
  ServiceStatus,
} from '../types.js';
import type { WorkCalendar } from '../calendar/work-calendar.js';

/** A device whose writes asked for a check of its events (D40, P53), at the version of its request. */
export interface EventCheck {
  readonly deviceId: number;
  /** The device's account; `null` when the device no longer exists. */
  readonly accountId: number | null;
  readonly version: number;
}

/** P58: what a store remembers of a device's service, at one memo version. */
export interface ServiceMemo {
  /** Until when every schedule of the device stays `ok` (`scheduleOkUntil`, the earliest), `null` when that is not known. */
  readonly okUntil: EpochSeconds | null;
  /**
   * The engine seconds before instants (the `readAt` of its readings, the `lastDoneAt` of its
   * schedules): what `engineSecondsBeforeMany` returns for them.
   */
  readonly engineBefore: ReadonlyMap<EpochSeconds, BucketSeconds>;
  /** P66: the statuses of its schedules and until when they stay these (`scheduleStatusUntil`), `null` when not known. */
  readonly statuses: RememberedStatuses | null;
}

/** P66 (D49): the statuses a device's schedules have, and until when they stay exactly these. */
export interface RememberedStatuses {
  /** Each status one of its schedules has, once, in the order of `SERVICE_STATUSES` (none: no schedule). */
  readonly statuses: readonly ServiceStatus[];
  /** Until when (exclusive) they stay these whatever the device reports; `null`: for good (until the memo version moves). */
  readonly until: EpochSeconds | null;
}

/**
 * D49: the filter of a service page a store applies (`listServicePage`): only the devices that
 * may have a schedule in one of `statuses`, and none after the `matches`-th device remembered to
 * have one (P66). Another filter (tags, D61) joins here.
 */
export interface ServicePageFilter {
  readonly statuses: readonly ServiceStatus[];
  /** A positive safe integer. */
  readonly matches: number;
}

/**
 * P58: a device of a service page with everything the page computes it from, read in one
 * snapshot: the device, its engine seconds up to now, readings and schedules, its memo version,
 * and what its store remembers of it at that version.
 */
export interface ServicePageDevice {
  readonly device: Device;
  /** The moving and idle seconds of every segment up to `now`: those of `summarizeSegments(allSegmentsOfTheDevice, now)`. */
  readonly engineSeconds: BucketSeconds;
  /** As `listHourMeterReadings` returns them: newest `readAt` first. */
  readonly readings: readonly HourMeterReading[];
  /** As `listServiceSchedules` returns them: by id. */
  readonly schedules: readonly ServiceSchedule[];
  /** The device's memo version. */
  readonly memoVersion: number;
  /** What was remembered at this version; `null` when nothing was (or only at another version). */
  readonly remembered: ServiceMemo | null;
}

/** P58: what a service read hands back to be remembered for one device: the whole memo, replacing any other. */
export interface ServiceMemoWrite {
  readonly deviceId: number;
  /** The memo version the values were computed from (read with their data). */
  readonly memoVersion: number;
  /** Until when every schedule stays `ok`, `null` when that is not known. */
  readonly okUntil: EpochSeconds | null;
  /** Engine seconds before the device's readings and last services. */
  readonly engineBefore: readonly { readonly instant: EpochSeconds; readonly seconds: BucketSeconds }[];
  /** P66: the statuses of its schedules until an instant; absent or `null` when not known. */
  readonly statuses?: RememberedStatuses | null;
}

/**
 * The optional capabilities of the storage port: what a store may offer so that a read costs fewer
 * round trips or less work. The core checks for each one and falls back to the required methods
 * when a store does not offer it (`application/store-sums.ts`, `application/service-memo-reads.ts`).
 * The contract of every method of `FleetHoursStore` holds for them too.
 */
export interface StoreCapabilities {
  /**
   * Optional capability: aggregation in the store. When present it MUST return, for each bucket
   * `[boundaries[i], boundaries[i + 1])`, the moving and idle seconds of the device's segments
   * clipped to it, open segments counting up to `now` — exactly what `sumSegmentsByBucket` computes
   * over `listSegments`. Stores without it are served by that fallback.
   */
  sumSegmentSeconds?(input: {
    readonly deviceId: number;
    readonly boundaries: readonly EpochSeconds[];
    readonly now: EpochSeconds;
  }): Promise<readonly BucketSeconds[]>;

  /**
   * Optional capability: the meter's figures in the store. When present it MUST equal
   * `summarizeSegments(allSegmentsOfTheDevice, now)`.
   */
  summarizeDeviceSegments?(input: { readonly deviceId: number; readonly now: EpochSeconds }): Promise<SegmentSummary>;

  /**
   * Optional capability: a device and its figures in one round trip, for `/hours` and
   * `/hours/daily` when the core remembers the device's zone. MUST return `null` when `findDevice`
   * would (no such device on this account); otherwise the device as `findDevice` returns it and,
   * only when its zone is `timeZone`, `buckets` exactly as `sumSegmentSeconds` (equivalently
   * `sumSegmentsByBucket` over `listSegments`) returns them for `boundaries` and `now`; when its
   * zone is another, `buckets` MUST be `null` (the boundaries were cut in the wrong zone, and the
   * core asks again). MUST check every instant first, naming it (`boundaries[2]`, `now`), and
   * SHOULD answer in one round trip.
   */
  findDeviceWithSums?(input: {
    readonly accountId: number;
    readonly deviceId: number;
    readonly timeZone: string;
    readonly boundaries: readonly EpochSeconds[];
    readonly now: EpochSeconds;
  }): Promise<{ readonly device: Device; readonly buckets: readonly BucketSeconds[] | null } | null>;

  /**
   * Optional capability (D59, P147): a device with what its daily series reads over `[start, end)`,
   * all as of one instant, in one round trip, for `/hours/daily` and a device's utilization. MUST
   * return `null` when `findDevice` would; otherwise the device as `findDevice` returns it and, only
   * when its zone is `timeZone`, `days`: the segments `listSegments` returns for the device over
   * `[start, end)` and the calendar the device uses (its own, else its account's default, else
   * `null`, as `findWorkCalendar` returns them). The device, its segments and its calendar MUST be
   * read in one snapshot: a write is in all of them or in none. When its zone is another, `days`
   * MUST be `null` (the window was cut in the wrong zone, and the core asks again). MUST check
   * `start` and `end` first, naming them.
   */
  findDeviceWithDays?(input: {
    readonly accountId: number;
    readonly deviceId: number;
    readonly timeZone: string;
    readonly start: EpochSeconds;
    readonly end: EpochSeconds;
  }): Promise<{
    readonly device: Device;
    readonly days: { readonly segments: readonly EngineSegment[]; readonly calendar: WorkCalendar | null } | null;
  } | null>;

  /**
   * Optional capability: a device and its meter figures in one round trip, for `/meter`. MUST
   * return `null` when `findDevice` would; otherwise the device as `findDevice` returns it and
   * `summary` equal to `summarizeSegments(allSegmentsOfTheDevice, now)`. MUST check `now` first,
   * and SHOULD answer in one round trip.
   */
  findDeviceWithSummary?(input: {
    readonly accountId: number;
    readonly deviceId: number;
    readonly now: EpochSeconds;
  }): Promise<{ readonly device: Device; readonly summary: SegmentSummary } | null>;

  /**
   * Optional capability: `sumSegmentSeconds` for many devices at once, for a page of the fleet
   * endpoints (D32). When present it MUST return one result per request, in request order, each
   * exactly what `sumSegmentSeconds` (equivalently `sumSegmentsByBucket` over `listSegments`)
   * returns for that device, boundaries and `now` (a device without segments, or that does not
   * exist, gets zeros); it MUST check every instant first, naming it (`requests[2].boundaries[0]`),
   * and SHOULD answer in one round trip to its database whatever the number of requests. Stores
   * without it are served by the core one device at a time.
   */
  sumSegmentSecondsMany?(input: {
    readonly requests: readonly { readonly deviceId: number; readonly boundaries: readonly EpochSeconds[] }[];
    readonly now: EpochSeconds;
  }): Promise<readonly (readonly BucketSeconds[])[]>;

  /**
   * Optional capability: the engine seconds of devices before instants, for the hour meter (D38)
   * of single and fleet reads. When present it MUST return one list per request, in request order,
   * with one value per instant, each exactly what `sumSegmentsByBucket` over `listSegments`
   * returns for the single bucket from the device's first segment (or the instant, without one)
   * to the instant capped at `now` (P1): the moving and idle seconds of every segment before it,
   * an open one counting up to `now`; zeros for a device without segments or that does not
   * exist. It MUST check every instant first, naming it (`requests[2].instants[0]`), and SHOULD
   * answer in one round trip whatever the number of requests, at a cost that follows neither the
   * history nor the time between the instants (P56). Stores without it are served by bucket sums
   * between the instants.
   */
  engineSecondsBeforeMany?(input: {
    readonly requests: readonly { readonly deviceId: number; readonly instants: readonly EpochSeconds[] }[];
    readonly now: EpochSeconds;
  }): Promise<readonly (readonly BucketSeconds[])[]>;

  /**
   * Optional capability (P58): one page of a service read in one round trip. The account's devices
   * as `listDevices` lists them (ids above `afterId`, ascending, at most `limit`), each with what
   * {@link ServicePageDevice} holds, all read in one snapshot; with `unsettledOnly`, only the
   * devices that have schedules and are not remembered `ok` until after `now`; with `filter`
   * (D49), only the devices that have schedules and are not remembered (P66), at their version,
   * to have none of its statuses until after `now`, up to the `filter.matches`-th remembered to
   * have one of them (a `limit` of `Number.MAX_SAFE_INTEGER` lists every such device). `lastDeviceId` is
   * the highest id of the account's devices (`null` for none). Present exactly when
   * {@link rememberServiceMemos} and {@link engineSecondsBeforeMany} are. A store that has it MUST
   * raise a device's memo version, atomically with the change, whenever something a memo holds may
   * change: segments changed before the device's `lastReportedAt` (`changesSettledHistory`),
   * readings added, changed or removed, schedules created, changed or removed, the device's zone
   * changed, segments or figures repaired or rebuilt.
   */
  listServicePage?(input: {
    readonly accountId: number;
    readonly afterId?: number;
    readonly limit: number;
    readonly now: EpochSeconds;
    readonly unsettledOnly: boolean;
    readonly filter?: ServicePageFilter;
    /** D61: only the devices having this tag, in the listing, in `filter.matches` and in `lastDeviceId` alike. */
    readonly tag?: string;
  }): Promise<{ readonly devices: readonly ServicePageDevice[]; readonly lastDeviceId: number | null }>;

  /**
   * Optional capability (P58): remembers each device's memo, replacing what was remembered, only
   * while the device's memo version is still the one given (otherwise it is dropped), and so that
   * a change raising the version at the same time either comes first (the memo is dropped) or
   * leaves the memo at the old version.
   */
  rememberServiceMemos?(input: { readonly devices: readonly ServiceMemoWrite[] }): Promise<void>;

  /**
   * Optional capability: `summarizeDeviceSegments` for many devices at once, for a page of the
   * fleet meter (D32). When present it MUST return one summary per device id, in order, each equal
   * to `summarizeSegments(allSegmentsOfTheDevice, now)`, and SHOULD answer in one round trip to its
   * database whatever the number of devices. Stores without it are served by the core one device
   * at a time.
   */
  summarizeDeviceSegmentsMany?(input: {
    readonly deviceIds: readonly number[];
    readonly now: EpochSeconds;
  }): Promise<readonly SegmentSummary[]>;

  /**
   * Optional capability (D49, P152): a numbered page of `listDevices({ accountId })`: the account's
   * devices by id from `offset` (0 for the first), at most `limit`, and `count`, how many devices the
   * account has, read together. It MUST check `offset` (a non-negative safe integer) and `limit` (a
   * positive one) first, naming the field (`assertDevicePage`), and SHOULD answer in one round trip
   * at a cost that does not follow the account's devices before `offset` beyond counting them.
   * Stores without it are served from the whole list.
   */
  listDevicePage?(input: {
    readonly accountId: number;
    readonly offset: number;
    readonly limit: number;
  }): Promise<{ readonly devices: readonly Device[]; readonly count: number }>;

  /**
   * Optional capability (D49, D59, P129): `listSegments` of many devices at once, each over its own
   * range, for the day fields of a page of the fleet's daily series. When present it MUST return one
   * list per request, in order, each exactly what `listSegments` returns for that device and range
   * (empty for a device that does not exist), MUST check every instant first, naming it
   * (`requests[2].start`), and SHOULD answer in one round trip whatever the number of devices.
   * Stores without it are served by `listSegments` one device at a time.
   */
  listSegmentsMany?(input: {
    readonly requests: readonly { readonly deviceId: number; readonly start: EpochSeconds; readonly end: EpochSeconds }[];
  }): Promise<readonly (readonly EngineSegment[])[]>;

  /**
   * Optional capability (D40, P53): the devices whose writes asked for a check of their events,
   * each with its account and the version of its request, by device id after `afterDeviceId`
   * (default: from the first), at most `limit`. When present, every write that stores telemetry or imports segments MUST leave such a
   * request for each device it wrote, atomically with the write (a committed write always leaves
   * it), and {@link clearEventChecks} MUST be present. A request of a device that no longer exists
   * has `accountId` `null`. Stores without it (the memory store: it ends with its process) are
   * checked from the process that wrote, after the write.
   */
  listEventChecks?(input: { readonly afterDeviceId?: number; readonly limit: number }): Promise<readonly EventCheck[]>;

  /**
   * Optional capability (P53): clears each request at the version given, leaving one that a later
   * write moved on (it is checked again). Present exactly when {@link listEventChecks} is.
   */
  clearEventChecks?(input: { readonly checks: readonly EventCheck[] }): Promise<void>;

  /**
   * Optional capability: the cheapest round trip to the backing database, for the readiness probe
   * (`GET /readyz`, D30). When present it MUST resolve once the database answers and reject with
   * `StorageUnavailableError` when it cannot be reached (D18); it reads and writes no data. Stores
   * without it are probed with a `findApiKey` that finds nothing.
   */
  ping?(): Promise<void>;
}
