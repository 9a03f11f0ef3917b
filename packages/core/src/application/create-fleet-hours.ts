import { Temporal } from 'temporal-polyfill';
import { checkArguments } from './argument-checks.js';
import { decodeFleetCursor, encodeFleetCursor } from '../fleet/fleet-cursor.js';
import {
  credentialKindOf,
  evaluateAccess,
  readAuthorization,
  type AccessResult,
  type CredentialKind,
  type CredentialLookup,
} from '../access/access-policy.js';
import { fingerprintApiKey } from '../access/api-key.js';
import { dayBuckets } from '../window/day-buckets.js';
import { addBuckets, toEngineSeconds } from '../engine/engine-seconds.js';
import type { AuthenticateAndCountInput } from '../access/admit-request.js';
import { InvalidParameterError } from '../errors/errors.js';
import { formatInstant } from '../time/format-instant.js';
import { localDateAt, startOfLocalDay } from '../time/local-date.js';
import { pageSize, type FleetEndpoint, type PageQuery } from '../fleet/parse-page-query.js';
import type { WindowDates } from '../window/parse-window-query.js';
import { resolveWindow, type ResolvedWindow, type WindowLimits } from '../window/resolve-window.js';
import type { CredentialCounter, RateLimitCount, RateLimitStore } from '../access/rate-limit.js';
import type { FleetHoursStore, ServicePageDevice, ServicePageFilter } from '../store/storage-port.js';
import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import { summarizeSegments } from '../engine/summarize-segments.js';
import type {
  BucketSeconds,
  DailyHours,
  Device,
  DeviceService,
  HoursTotal,
  MeterRecord,
  SegmentSummary,
  ServiceSchedule,
  ServiceStatus,
} from '../types.js';
import type { HourMeterValue } from '../maintenance/hour-meter.js';
import { bucketsBetween, deviceService, hourMeterFields, hourMetersOf, maintenanceFacts } from './maintenance-reads.js';
import { memoPageSums, remembersService, serviceMemoWrites, type ServiceMemoStore } from './service-memo-reads.js';

/** Options of {@link createFleetHours}. */
export interface FleetHoursOptions {
  /** Where accounts, keys, devices and segments live. */
  readonly store: FleetHoursStore;
  /** The clock, in epoch milliseconds (pass `Date.now`; tests pass a fixed clock). */
  readonly now: () => number;
  /** Plans that include API access (D12). Default `['business']`. */
  readonly apiPlans?: readonly string[];
  /** Window limits (D5, D6). Defaults: 7 days back, 365 days at most. */
  readonly window?: WindowLimits;
  /**
   * How many devices' zones to remember (default 10,000), so that `/hours` and `/hours/daily` ask
   * a store with `findDeviceWithSums` for the device and its figures in one call (zones are
   * learnt from every device read or listed: the first read of a device not listed before costs
   * one call more). A remembered
   * zone is only a guess: the store checks it, and a device whose zone changed is answered in its
   * new zone. `0` remembers none.
   */
  readonly zoneCacheSize?: number;
  /**
   * How a presented API key or ingest token is fingerprinted before it is looked up (D10, D24).
   * Default {@link fingerprintApiKey}: SHA-256 through WebCrypto, on any runtime. A replacement
   * MUST return exactly what `fingerprintApiKey` returns for every text; a synchronous hash (the
   * reference server passes Node's `node:crypto`) spares each request a promise and a job on the
   * thread pool.
   */
  readonly fingerprint?: (secret: string) => string | Promise<string>;
}

/** A device and window, as the `/hours` and `/hours/daily` routes receive them: the dates from `parseWindowQuery` (D4, D7). */
export interface WindowQuery extends WindowDates {
  readonly accountId: number;
  readonly deviceId: number;
}

/** A page of the fleet endpoints, as they receive it: the account, and `limit` / `cursor` from `parsePageQuery` (D32). */
export interface FleetPageQuery extends PageQuery {
  readonly accountId: number;
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
}

/**
 * The Fleet Hours service for one store: what the HTTP API serves, callable from any backend.
 * Every function checks its arguments when called and rejects a value of the wrong kind with a
 * `TypeError` naming the function, the parameter and what to pass — e.g. a date as text instead of
 * the `Temporal.PlainDate` that `parseWindowQuery` gives.
 */
export interface FleetHours {
  readonly store: FleetHoursStore;
  /**
   * Checks an `Authorization` header value for a route that needs `credential` (default
   * `api_key`): looks the token up by fingerprint and decides with `evaluateAccess` (D10–D12, D24).
   */
  authenticate(authorization: string | null | undefined, credential?: CredentialKind): Promise<AccessResult>;
  /**
   * `authenticate`, and the count of the request on the credential's counter in the same round
   * trip when the counters can (`findApiKeyAndConsume`: API keys in a store that also keeps the
   * counters); `count` is `null` when nothing was counted. For `admitRequest`, which decides
   * whether the count stands (D13, D14, P21).
   */
  authenticateAndCount(input: AuthenticateAndCountInput): Promise<{ readonly access: AccessResult; readonly count: RateLimitCount | null }>;
  /** Every device of the account, by id (D19). */
  listDevices(input: { readonly accountId: number }): Promise<readonly Device[]>;
  /** Totals over a window; `null` when the account has no such device. @throws {InvalidParameterError} (D7) */
  hours(input: WindowQuery): Promise<HoursTotal | null>;
  /** The daily series over a window (D8); `null` when the account has no such device. @throws {InvalidParameterError} (D7) */
  daily(input: WindowQuery): Promise<DailyHours | null>;
  /** The meter (D3) and the hour meter (D38); `null` when the account has no such device. */
  meter(input: { readonly accountId: number; readonly deviceId: number }): Promise<MeterRecord | null>;
  /** The device's service schedules at now (D39); `null` when the account has no such device. */
  service(input: { readonly accountId: number; readonly deviceId: number }): Promise<DeviceService | null>;
  /** The same reads for every device of the account, a page at a time (D32). */
  readonly fleet: FleetReads;
}

/**
 * Creates the Fleet Hours service over a store.
 *
 * @param options The store, the clock and optional limits.
 * @returns The service.
 * @throws {TypeError} When `options` has no store or `now` is not a function.
 * @example
 * ```ts
 * import { createFleetHours, createMemoryStore, parseWindowQuery } from '@fleet-hours/core';
 * const fleetHours = createFleetHours({ store: createMemoryStore(), now: Date.now });
 * const total = await fleetHours.hours({ accountId: 1, deviceId: 7, ...parseWindowQuery({ from: '2026-03-01', to: '2026-03-07' }) });
 * const page = await fleetHours.fleet.hours({ accountId: 1, ...parseWindowQuery({ from: '2026-03-01' }), limit: 50 });
 * page.nextCursor; // null: the account has no more devices
 * ```
 */
export function createFleetHours(options: FleetHoursOptions): FleetHours {
  checkArguments('createFleetHours()', options, { store: 'object', now: 'clock' });
  const { store } = options;
  const context: _Context = {
    store,
    options,
    nowSeconds: () => Math.floor(options.now() / 1000),
    sums: _storeSums(store),
    zones: _zoneCache(options.zoneCacheSize ?? 10_000),
  };
  const authenticateWith = _authenticator(context);
  const findCredential = _findCredential(store);
  return {
    store,

    async authenticate(authorization, credential = 'api_key') {
      checkArguments('authenticate()', { authorization, credential }, { authorization: 'authorization', credential: 'credential' });
      return authenticateWith(authorization, credential, findCredential[credential]);
    },

    async authenticateAndCount(input) {
      checkArguments('authenticateAndCount()', input, {
        authorization: 'authorization',
        credential: 'credential',
        counters: 'object',
        counter: 'object',
      });
      const { authorization, credential, counters, counter } = input;
      const findAndConsume = _findAndConsume(counters, credential);
      if (!findAndConsume) return { access: await authenticateWith(authorization, credential, findCredential[credential]), count: null };
      // The credential and its count in one round trip; admitRequest decides whether the count stands.
      let count: RateLimitCount | null = null;
      const access = await authenticateWith(authorization, credential, async (fingerprint) => {
        const found = await findAndConsume({ fingerprint, counter });
        count = found.count;
        return found.lookup;
      });
      return { access, count };
    },

    async listDevices(input) {
      checkArguments('listDevices()', input, { accountId: 'id' });
      const devices = await store.listDevices({ accountId: input.accountId });
      // Clients list the devices before they read them: the reads that follow are one store call.
      devices.forEach(context.zones.remember);
      return devices;
    },

    async hours(query) {
      checkArguments('hours()', query, _WINDOW_QUERY);
      const now = context.nowSeconds();
      const read = await _deviceBuckets(context, query, now, (window) => ({ boundaries: [window.start, window.end], days: null }));
      return read && _hoursTotal(read.device, read.window, read.buckets);
    },

    async daily(query) {
      checkArguments('daily()', query, _WINDOW_QUERY);
      const now = context.nowSeconds();
      const read = await _deviceBuckets(context, query, now, (window) => {
        const { dates, boundaries } = dayBuckets(window);
        return { boundaries, days: dates };
      });
      return read && _dailyHours(read.device, read.window, read.days, read.buckets);
    },

    async meter(input) {
      checkArguments('meter()', input, { accountId: 'id', deviceId: 'id' });
      const now = context.nowSeconds();
      const read = await _deviceMaintenance(context, input, now, false);
      return read && _meterRecord(read.device, read.summary, now, read.meters.now);
    },

    async service(input) {
      checkArguments('service()', input, { accountId: 'id', deviceId: 'id' });
      const now = context.nowSeconds();
      const read = await _deviceMaintenance(context, input, now, true);
      return read && deviceService(read.device, read.schedules, read.meters, now);
    },

    fleet: _fleetReads(context),
  };
}

/** What the parts of one service share: its store and options, its clock in epoch seconds, the store's sums and the zones it remembers. */
interface _Context {
  readonly store: FleetHoursStore;
  readonly options: FleetHoursOptions;
  readonly nowSeconds: () => number;
  readonly sums: _StoreSums;
  readonly zones: _ZoneCache;
}

/** One lookup per credential kind (D10, D24). */
function _findCredential(
  store: FleetHoursStore,
): Readonly<Record<CredentialKind, (fingerprint: string) => Promise<CredentialLookup | null>>> {
  return {
    api_key: async (fingerprint) => {
      const found = await store.findApiKey({ fingerprint });
      return found && { credential: found.apiKey, account: found.account };
    },
    ingest_token: async (fingerprint) => {
      const found = await store.findIngestToken({ fingerprint });
      return found && { credential: found.ingestToken, account: found.account };
    },
  };
}

/** Checks the presented credential (D10–D12, D24); `find` looks its fingerprint up. A token of the other kind is refused by its prefix, without asking the store. */
function _authenticator(context: _Context) {
  const fingerprint = context.options.fingerprint ?? fingerprintApiKey;
  const { apiPlans } = context.options;
  return async (
    authorization: string | null | undefined,
    credential: CredentialKind,
    find: (fingerprint: string) => Promise<CredentialLookup | null>,
  ): Promise<AccessResult> => {
    const presented = readAuthorization(authorization);
    const asked = presented.kind === 'bearer' && (credentialKindOf(presented.token) ?? credential) === credential;
    const lookup = asked ? await find(await fingerprint(presented.token)) : null;
    return evaluateAccess({ required: credential, presented, lookup, now: context.nowSeconds(), ...(apiPlans ? { apiPlans } : {}) });
  };
}

/**
 * P1 (docs/decisions.md): no engine ran after now. Boundaries are capped at now, so a closed
 * segment stamped in the future counts only up to now, exactly as in the meter (D3), and buckets
 * after now are empty. Capping the boundaries (not the segments) keeps every store's aggregation
 * contract unchanged.
 */
function _capAtNow(boundaries: readonly number[], now: number): number[] {
  return boundaries.map((boundary) => Math.min(boundary, now));
}

/**
 * The buckets of each device of a page, asking `sums` only for the devices with boundaries (a
 * device without, an empty window P32, asks nothing and gets none), in one call, in page order.
 */
async function _pageOfAsked(
  devices: readonly Device[],
  boundaries: readonly (readonly number[] | null)[],
  sums: (asked: readonly { deviceId: number; boundaries: readonly number[] }[]) => Promise<readonly (readonly BucketSeconds[])[]>,
): Promise<readonly (readonly BucketSeconds[])[]> {
  const asked = devices.flatMap((device, index) =>
    boundaries[index] ? [{ index, deviceId: device.id, boundaries: boundaries[index] }] : [],
  );
  const results = await sums(asked);
  const found = new Map(asked.map((request, position) => [request.index, results[position]!]));
  return devices.map((_device, index) => found.get(index) ?? []);
}

/** The sums a read asks of the store: by its capabilities when it has them, else by the core's fallback over its segments. */
interface _StoreSums {
  /** The buckets of one device, its window's boundaries capped at now. */
  buckets(deviceId: number, windowBoundaries: readonly number[], now: number): Promise<readonly BucketSeconds[]>;
  /** The buckets of each device of a page; a device without boundaries (an empty window, P32) asks the store nothing and gets none. */
  page(
    devices: readonly Device[],
    boundaries: readonly (readonly number[] | null)[],
    now: number,
  ): Promise<readonly (readonly BucketSeconds[])[]>;
  /**
   * The same buckets for the hour meter (D38), whose few boundaries lie far apart: from the engine
   * time before each boundary when the store can give it (P56: its cost does not follow the time
   * between them), else as {@link page}.
   */
  hourMeterPage(
    devices: readonly Device[],
    boundaries: readonly (readonly number[] | null)[],
    now: number,
  ): Promise<readonly (readonly BucketSeconds[])[]>;
  summarize(deviceId: number, now: number): Promise<SegmentSummary>;
  summarizeMany(deviceIds: readonly number[], now: number): Promise<readonly SegmentSummary[]>;
}

function _storeSums(store: FleetHoursStore): _StoreSums {
  const sumCapped = async (deviceId: number, boundaries: readonly number[], now: number): Promise<readonly BucketSeconds[]> => {
    if (store.sumSegmentSeconds) return store.sumSegmentSeconds({ deviceId, boundaries, now });
    const segments = await store.listSegments({ deviceId, start: boundaries[0]!, end: boundaries[boundaries.length - 1]! });
    return sumSegmentsByBucket(segments, boundaries, now);
  };
  // A page of the fleet (D32): one store call for every device when the store can (no query per
  // device), otherwise the single-device path for each.
  const sumMany = async (
    requests: readonly { deviceId: number; boundaries: readonly number[] }[],
    now: number,
  ): Promise<readonly (readonly BucketSeconds[])[]> => {
    const capped = requests.map((request) => ({ deviceId: request.deviceId, boundaries: _capAtNow(request.boundaries, now) }));
    if (capped.length === 0) return [];
    if (store.sumSegmentSecondsMany) return store.sumSegmentSecondsMany({ requests: capped, now });
    return Promise.all(capped.map((request) => sumCapped(request.deviceId, request.boundaries, now)));
  };
  const summarize = async (deviceId: number, now: number): Promise<SegmentSummary> =>
    store.summarizeDeviceSegments
      ? store.summarizeDeviceSegments({ deviceId, now })
      : summarizeSegments(await store.listSegments({ deviceId }), now);
  const page: _StoreSums['page'] = (devices, boundaries, now) => _pageOfAsked(devices, boundaries, (asked) => sumMany(asked, now));
  return {
    buckets: (deviceId, windowBoundaries, now) => sumCapped(deviceId, _capAtNow(windowBoundaries, now), now),
    page,
    hourMeterPage(devices, boundaries, now) {
      const { engineSecondsBeforeMany } = store;
      if (!engineSecondsBeforeMany) return page(devices, boundaries, now);
      return _pageOfAsked(devices, boundaries, async (asked) => {
        if (asked.length === 0) return [];
        const requests = asked.map((request) => ({ deviceId: request.deviceId, instants: _capAtNow(request.boundaries, now) }));
        return (await engineSecondsBeforeMany.call(store, { requests, now })).map(bucketsBetween);
      });
    },
    summarize,
    async summarizeMany(deviceIds, now) {
      if (deviceIds.length === 0) return [];
      if (store.summarizeDeviceSegmentsMany) return store.summarizeDeviceSegmentsMany({ deviceIds, now });
      return Promise.all(deviceIds.map((deviceId) => summarize(deviceId, now)));
    },
  };
}

/**
 * The zones of devices read lately (deviceId → zone), oldest first: a guess that lets the device
 * and its figures come in one store call. The store checks the guess (and the account) every time.
 */
interface _ZoneCache {
  get(deviceId: number): string | undefined;
  remember(device: Device): void;
  forget(deviceId: number): void;
}

function _zoneCache(size: number): _ZoneCache {
  const zones = new Map<number, string>();
  return {
    get: (deviceId) => zones.get(deviceId),
    remember: (device) => {
      if (size <= 0) return;
      zones.delete(device.id);
      zones.set(device.id, device.timeZone);
      if (zones.size > size) zones.delete(zones.keys().next().value!);
    },
    forget: (deviceId) => {
      zones.delete(deviceId);
    },
  };
}

// One place for each record, whichever read (one device or a page of the fleet) builds it.
function _hoursTotal(device: Device, window: ResolvedWindow | _EmptyWindow, buckets: readonly BucketSeconds[]): HoursTotal {
  return { deviceId: device.id, timeZone: device.timeZone, from: window.from, to: window.to, ...toEngineSeconds(addBuckets(buckets)) };
}

function _dailyHours(
  device: Device,
  window: ResolvedWindow | _EmptyWindow,
  dates: readonly string[],
  buckets: readonly BucketSeconds[],
): DailyHours {
  return {
    deviceId: device.id,
    timeZone: device.timeZone,
    from: window.from,
    to: window.to,
    days: dates.map((date, index) => ({ date, ...toEngineSeconds(buckets[index]!) })),
  };
}

function _meterRecord(device: Device, summary: SegmentSummary, now: number, hourMeter: HourMeterValue): MeterRecord {
  return {
    deviceId: device.id,
    timeZone: device.timeZone,
    since: summary.firstStartedAt === null ? null : formatInstant(summary.firstStartedAt, device.timeZone),
    asOf: formatInstant(now, device.timeZone),
    ...toEngineSeconds(summary),
    ...hourMeterFields(hourMeter, device.timeZone),
  };
}

/**
 * A device, its meter figures, its readings (and schedules when asked) and its hour meters (D38,
 * D39): the device and its figures in one store call where the store can, the readings and
 * schedules beside them, then one call for the sums since the readings when it has any.
 */
async function _deviceMaintenance(
  context: _Context,
  input: { readonly accountId: number; readonly deviceId: number },
  now: number,
  withSchedules: boolean,
): Promise<{
  device: Device;
  summary: SegmentSummary;
  schedules: readonly ServiceSchedule[];
  meters: Awaited<ReturnType<typeof hourMetersOf>>[number];
} | null> {
  const { store } = context;
  const { accountId, deviceId } = input;
  const findWithSummary = async () => {
    // The meter does not depend on the zone: one store call where the store can.
    if (store.findDeviceWithSummary) return store.findDeviceWithSummary({ accountId, deviceId, now });
    const device = await store.findDevice({ accountId, deviceId });
    return device && { device, summary: await context.sums.summarize(deviceId, now) };
  };
  const [found, facts] = await Promise.all([findWithSummary(), maintenanceFacts(store, [deviceId], withSchedules)]);
  if (!found) return null;
  const [meters] = await hourMetersOf(
    context.sums.hourMeterPage,
    [found.device],
    [toEngineSeconds(found.summary).engineSeconds],
    facts,
    now,
  );
  return { ...found, schedules: facts.schedules.get(deviceId) ?? [], meters: meters! };
}

/**
 * The device, its window, the window's days and the sums of their buckets; `null` when the
 * account has no such device. With a store that has `findDeviceWithSums` and a remembered zone,
 * one store call: the boundaries are cut in the remembered zone and the store answers the sums
 * only when that is still the device's zone. Otherwise (or when the zone changed, or when the
 * window is refused in the remembered zone: a missing device must still be 404, D11) the device
 * first, then its sums: the same answer either way.
 */
async function _deviceBuckets<Days>(
  context: _Context,
  query: WindowQuery,
  now: number,
  split: (window: ResolvedWindow) => { readonly boundaries: readonly number[]; readonly days: Days },
): Promise<{ device: Device; window: ResolvedWindow; days: Days; buckets: readonly BucketSeconds[] } | null> {
  const { store, zones } = context;
  const windowIn = (timeZone: string) => resolveWindow({ ...context.options.window, from: query.from, to: query.to, now, timeZone });
  const inZone = async (device: Device) => {
    const window = windowIn(device.timeZone);
    const { boundaries, days } = split(window);
    return { device, window, days, buckets: await context.sums.buckets(device.id, boundaries, now) };
  };
  const guessed = zones.get(query.deviceId);
  if (guessed !== undefined && store.findDeviceWithSums) {
    const guess = _tryWindow(() => {
      const window = windowIn(guessed);
      return { window, ...split(window) };
    });
    if (guess !== null) {
      const found = await store.findDeviceWithSums({
        accountId: query.accountId,
        deviceId: query.deviceId,
        timeZone: guessed,
        boundaries: _capAtNow(guess.boundaries, now),
        now,
      });
      if (found === null) {
        zones.forget(query.deviceId);
        return null;
      }
      zones.remember(found.device);
      if (found.buckets !== null && found.device.timeZone === guessed)
        return { device: found.device, window: guess.window, days: guess.days, buckets: found.buckets };
      return inZone(found.device);
    }
  }
  const device = await store.findDevice({ accountId: query.accountId, deviceId: query.deviceId });
  if (!device) return null;
  zones.remember(device);
  return inZone(device);
}

/** The fleet reads (D32): the same records for every device of the account, a page at a time. */
function _fleetReads(context: _Context): FleetReads {
  const { nowSeconds, sums } = context;
  return {
    async hours(query) {
      checkArguments('fleet.hours()', query, _FLEET_WINDOW_QUERY);
      const now = nowSeconds();
      const { devices, nextCursor } = await _devicePage(context, 'hours', query);
      const windows = await _fleetWindows(context, devices, query, now);
      const buckets = await sums.page(
        devices,
        windows.map((window) => (_isEmpty(window) ? null : [window.start, window.end])),
        now,
      );
      return { items: devices.map((device, index) => _hoursTotal(device, windows[index]!, buckets[index]!)), nextCursor };
    },

    async daily(query) {
      checkArguments('fleet.daily()', query, _FLEET_WINDOW_QUERY);
      const now = nowSeconds();
      const { devices, nextCursor } = await _devicePage(context, 'daily', query);
      const windows = await _fleetWindows(context, devices, query, now);
      // Devices of one zone share their window object, and so its days (cut once).
      const days = new Map<ResolvedWindow, ReturnType<typeof dayBuckets>>();
      const series = windows.map((window) => {
        if (_isEmpty(window)) return null;
        let cut = days.get(window);
        if (cut === undefined) days.set(window, (cut = dayBuckets(window)));
        return cut;
      });
      const buckets = await sums.page(
        devices,
        series.map((days) => days?.boundaries ?? null),
        now,
      );
      return {
        items: devices.map((device, index) => _dailyHours(device, windows[index]!, series[index]?.dates ?? [], buckets[index]!)),
        nextCursor,
      };
    },

    async meter(query) {
      checkArguments('fleet.meter()', query, _FLEET_PAGE_QUERY);
      const now = nowSeconds();
      const { devices, nextCursor } = await _devicePage(context, 'meter', query);
      const { summaries, meters } = await _pageMaintenance(context, devices, now, false);
      return { items: devices.map((device, index) => _meterRecord(device, summaries[index]!, now, meters[index]!.now)), nextCursor };
    },

    async service(query) {
      checkArguments('fleet.service()', query, { ..._FLEET_PAGE_QUERY, statuses: 'statuses?' });
      const now = nowSeconds();
      const filter = _serviceFilter(query);
      const size = pageSize('service', query.limit);
      const items: DeviceService[] = [];
      // D49, P65: at most two device reads, each the same few store calls: the first `limit`
      // devices; with a filter (P45), when they hold fewer than `limit` matches, every device
      // after them at once. So the calls do not grow with the devices a filter skips. A full
      // page's cursor goes on after its last match. A store that remembers (P58, P66) lists only
      // the devices that may match, up to the last match the page needs.
      let cursor = query.cursor;
      for (const count of filter === null ? [size] : [size, null]) {
        const storeFilter = filter && { statuses: [...filter.statuses], matches: size - items.length };
        const read = await _serviceDevicePage(context, { ...query, cursor }, count, now, storeFilter);
        const { devices, nextCursor } = read;
        const { meters, facts, remember } = read.remembering
          ? await _rememberedMaintenance(read.remembering.store, read.remembering.inputs, now)
          : { ...(await _pageMaintenance(context, devices, now, true)), remember: null };
        const services = devices.map((device, index) => deviceService(device, facts.schedules.get(device.id) ?? [], meters[index]!, now));
        await remember?.(services);
        for (const [index, service] of services.entries()) {
          if (filter !== null && !filter.matches(service)) continue;
          items.push(service);
          if (items.length === size) {
            const next = read.anyAfter(index)
              ? encodeFleetCursor({ endpoint: 'service', accountId: query.accountId, afterDeviceId: service.deviceId })
              : null;
            return { items, nextCursor: next };
          }
        }
        if (nextCursor === null) break;
        cursor = nextCursor;
      }
      return { items, nextCursor: null };
    },
  };
}

/**
 * The filters of a fleet service page (D49): `null` for none, else which devices match. Only
 * `status=` today (P45); another filter (tags, D61) joins here as one more condition of `matches`.
 */
function _serviceFilter(query: FleetServiceQuery): {
  readonly statuses: ReadonlySet<ServiceStatus>;
  matches(service: DeviceService): boolean;
} | null {
  if (query.statuses === undefined || query.statuses.length === 0) return null;
  const statuses = new Set(query.statuses);
  return { statuses, matches: (service) => service.schedules.some((schedule) => statuses.has(schedule.status)) };
}

/**
 * One device page of the fleet service (D32): `count` devices after the cursor, or every one when
 * `count` is `null` (D49); by `listServicePage` when the store remembers (P58), in one round trip,
 * with a filter only the devices that may match it (P66); else by `listDevices`.
 * `anyAfter(index)`: whether the account has a device after the page's `index`-th, listed or not.
 */
async function _serviceDevicePage(
  context: _Context,
  query: FleetPageQuery,
  count: number | null,
  now: number,
  filter: ServicePageFilter | null,
): Promise<{
  devices: readonly Device[];
  nextCursor: string | null;
  /** The store that remembers and what it listed, or `null` for a store that does not remember. */
  remembering: { readonly store: ServiceMemoStore; readonly inputs: readonly ServicePageDevice[] } | null;
  anyAfter(index: number): boolean;
}> {
  const { store } = context;
  if (!remembersService(store)) {
    const { devices, nextCursor } = await _devicePage(context, 'service', query, count);
    return { devices, nextCursor, remembering: null, anyAfter: (index) => index < devices.length - 1 || nextCursor !== null };
  }
  const afterId =
    query.cursor === undefined ? undefined : decodeFleetCursor(query.cursor, { endpoint: 'service', accountId: query.accountId });
  const listed = await store.listServicePage({
    accountId: query.accountId,
    ...(afterId === undefined ? {} : { afterId }),
    limit: count === null ? Number.MAX_SAFE_INTEGER : count + 1,
    now,
    unsettledOnly: filter !== null && !filter.statuses.includes('ok'),
    ...(filter ? { filter } : {}),
  });
  const inputs = count === null ? listed.devices : listed.devices.slice(0, count);
  const devices = inputs.map((input) => input.device);
  devices.forEach(context.zones.remember);
  const nextCursor =
    count !== null && listed.devices.length > count
      ? encodeFleetCursor({ endpoint: 'service', accountId: query.accountId, afterDeviceId: devices[devices.length - 1]!.id })
      : null;
  return {
    devices,
    nextCursor,
    remembering: { store, inputs },
    anyAfter: (index) => listed.lastDeviceId !== null && listed.lastDeviceId > devices[index]!.id,
  };
}

/** The meter figures, readings, schedules (when asked) and hour meters of a page's devices: a bounded number of store calls (D32). */
async function _pageMaintenance(context: _Context, devices: readonly Device[], now: number, withSchedules: boolean) {
  const ids = devices.map((device) => device.id);
  const [summaries, facts] = await Promise.all([context.sums.summarizeMany(ids, now), maintenanceFacts(context.store, ids, withSchedules)]);
  const engine = summaries.map((summary) => toEngineSeconds(summary).engineSeconds);
  const meters = await hourMetersOf(context.sums.hourMeterPage, devices, engine, facts, now);
  return { summaries, facts, meters };
}

/**
 * The readings, schedules and hour meters of a service page read by `listServicePage` (P58): the
 * sums of the hour meters from what the store remembers where it can (no store call when it
 * remembers every instant), and `remember` hands back what the page computed anew.
 */
async function _rememberedMaintenance(store: ServiceMemoStore, inputs: readonly ServicePageDevice[], now: number) {
  const devices = inputs.map((input) => input.device);
  const facts = {
    readings: new Map(inputs.map((input) => [input.device.id, input.readings])),
    schedules: new Map(inputs.map((input) => [input.device.id, input.schedules])),
  };
  const engine = inputs.map((input) => input.engineSeconds.movingSeconds + input.engineSeconds.idleSeconds);
  const learned = new Map<number, Map<number, BucketSeconds>>();
  const meters = await hourMetersOf(memoPageSums(store, inputs, learned), devices, engine, facts, now);
  const remember = async (services: readonly DeviceService[]) => {
    const writes = serviceMemoWrites({ memos: inputs, services, learned, now });
    if (writes.length > 0) await store.rememberServiceMemos({ devices: writes });
  };
  return { facts, meters, remember };
}

/**
 * The devices of one page (D32): a keyset after the cursor's device, one more than asked to know
 * whether a next page exists; with `count` `null`, every device after the cursor (D49).
 */
async function _devicePage(
  context: _Context,
  endpoint: FleetEndpoint,
  query: FleetPageQuery,
  count: number | null = pageSize(endpoint, query.limit),
): Promise<{ devices: readonly Device[]; nextCursor: string | null }> {
  const size = count ?? Number.POSITIVE_INFINITY;
  const afterId = query.cursor === undefined ? undefined : decodeFleetCursor(query.cursor, { endpoint, accountId: query.accountId });
  const fetched = await context.store.listDevices({
    accountId: query.accountId,
    ...(afterId === undefined ? {} : { afterId }),
    ...(count === null ? {} : { limit: count + 1 }),
  });
  const devices = fetched.slice(0, size);
  devices.forEach(context.zones.remember);
  const nextCursor =
    fetched.length > size
      ? encodeFleetCursor({ endpoint, accountId: query.accountId, afterDeviceId: devices[devices.length - 1]!.id })
      : null;
  return { devices, nextCursor };
}

/**
 * The window of each device of a page (D4–D7 per device). P32: a `from` after the local today of
 * a device, without `to`, cannot be a window of that device; the request is refused (D7) only
 * when that holds for every device of the account, and otherwise such a device's window is empty
 * (`from` the start of that date, `to` now, no days, zero seconds). Whether every device fails is
 * asked of the store only when a device of this page does, so that the answer does not depend
 * on the page.
 */
async function _fleetWindows(
  context: _Context,
  devices: readonly Device[],
  query: FleetWindowQuery,
  now: number,
): Promise<readonly (ResolvedWindow | _EmptyWindow)[]> {
  // A `from` after `to` is refused by parseWindowQuery, and by resolveWindow below for each device (D7).
  const { from, to } = query;
  const afterToday = (device: Device) =>
    from !== undefined && to === undefined && Temporal.PlainDate.compare(from, localDateAt(now, device.timeZone)) > 0;
  if (devices.some(afterToday)) {
    const every = await context.store.listDevices({ accountId: query.accountId });
    if (every.every(afterToday)) {
      const latest = every
        .map((device) => ({ zone: device.timeZone, today: localDateAt(now, device.timeZone) }))
        .reduce((best, each) => (Temporal.PlainDate.compare(each.today, best.today) > 0 ? each : best));
      throw new InvalidParameterError(
        'from',
        `Parameter from "${from!.toString()}" is after today in the zone of every device of the account (the latest is ${latest.today.toString()} in ${latest.zone})`,
      );
    }
  }
  // A window depends only on the zone: resolved once per zone of the page (Temporal is not cheap).
  const byZone = new Map<string, ResolvedWindow | _EmptyWindow>();
  return devices.map((device) => {
    let window = byZone.get(device.timeZone);
    if (window === undefined) {
      window = afterToday(device)
        ? _emptyWindow(from!, now, device.timeZone)
        : resolveWindow({ ...context.options.window, from: query.from, to: query.to, now, timeZone: device.timeZone });
      byZone.set(device.timeZone, window);
    }
    return window;
  });
}

/** The fields of each query, as {@link checkArguments} checks them for callers the compiler did not check. */
const _WINDOW_QUERY = { accountId: 'id', deviceId: 'id', from: 'date?', to: 'date?' } as const;
const _FLEET_PAGE_QUERY = { accountId: 'id', limit: 'limit?', cursor: 'cursor?' } as const;
const _FLEET_WINDOW_QUERY = { ..._FLEET_PAGE_QUERY, from: 'date?', to: 'date?' } as const;

/** `read()`, or `null` when it refuses the window (D7): then the device is read first, so that a missing device is still 404 (D11). */
function _tryWindow<T>(read: () => T): T | null {
  try {
    return read();
  } catch (error) {
    if (error instanceof InvalidParameterError) return null;
    throw error;
  }
}

/** The window of a device whose local today is before `from` when `to` is not given (P32): it holds no second. */
interface _EmptyWindow {
  readonly empty: true;
  readonly from: string;
  readonly to: string;
}

function _emptyWindow(from: Temporal.PlainDate, now: number, timeZone: string): _EmptyWindow {
  return { empty: true, from: formatInstant(startOfLocalDay(from, timeZone), timeZone), to: formatInstant(now, timeZone) };
}

function _isEmpty(window: ResolvedWindow | _EmptyWindow): window is _EmptyWindow {
  return 'empty' in window;
}

/**
 * The counters' capability that looks a credential of `kind` up and counts the request in one
 * round trip (`findApiKeyAndConsume`, `findIngestTokenAndConsume`), as one shape; `null` when the
 * counters offer none for that kind.
 */
function _findAndConsume(
  counters: RateLimitStore,
  kind: CredentialKind,
):
  | ((input: {
      readonly fingerprint: string;
      readonly counter: CredentialCounter;
    }) => Promise<{ lookup: CredentialLookup | null; count: RateLimitCount | null }>)
  | null {
  if (kind === 'api_key') {
    const find = counters.findApiKeyAndConsume?.bind(counters);
    return find
      ? async (input) => {
          const { lookup, count } = await find(input);
          return { lookup: lookup && { credential: lookup.apiKey, account: lookup.account }, count };
        }
      : null;
  }
  const find = counters.findIngestTokenAndConsume?.bind(counters);
  return find
    ? async (input) => {
        const { lookup, count } = await find(input);
        return { lookup: lookup && { credential: lookup.ingestToken, account: lookup.account }, count };
      }
    : null;
}
