/**
 * The application service: what the HTTP API serves, callable from any backend. Its parts live
 * beside it by concept: `authentication.ts`, `device-reads.ts` (one device), `fleet-reads.ts` and
 * `service-pages.ts` (a page of the fleet), `event-checks.ts`, `store-sums.ts` (the store's capabilities and their
 * fallbacks) and `zone-cache.ts`.
 */
import { aempReads, type AempReads } from './aemp-reads.js';
import type { AccessResult, CredentialKind } from '../access/access-policy.js';
import type { AuthenticateAndCountInput } from '../access/admit-request.js';
import type { RateLimitCount } from '../access/rate-limit.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { DailyHours, Device, DeviceService, HoursTotal, MeterRecord } from '../types.js';
import type { WindowLimits } from '../window/resolve-window.js';
import { createTelemetryWrites, type TelemetryWrites } from '../writes/telemetry-writes.js';
import { checkArguments } from './argument-checks.js';
import { authentication } from './authentication.js';
import { deviceReads } from './device-reads.js';
import { eventChecks, type EventChecks } from './event-checks.js';
import { fleetReads } from './fleet-reads.js';
import type { ReadContext } from './read-context.js';
import type { DeviceUtilization, FleetReads, UtilizationQuery, WindowQuery } from './read-queries.js';
import { utilizationReads } from './utilization-reads.js';
import { storeSums } from './store-sums.js';
import { zoneCache } from './zone-cache.js';

import { deviceWrites, type DeviceWrites } from '../manage/device-writes.js';
import { ingestTokenWrites, type IngestTokenWrites } from '../manage/ingest-token-writes.js';
import { webhookWrites, type WebhookWrites } from '../manage/webhook-writes.js';
import { idempotentRequests, type IdempotentRequests } from '../manage/idempotency.js';
import { auditReads, storeChangeLog, type AuditReads } from '../manage/audit-log.js';
import type { ChangeLog } from '../manage/change-log.js';
import { maintenanceWrites, type MaintenanceWrites } from '../manage/maintenance-writes.js';
import { calendarWrites, type CalendarWrites } from '../manage/calendar-writes.js';
import { aempSourceWrites, type AempSourceWrites } from '../manage/aemp-source-writes.js';
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
  /**
   * Where the writes of `manage` report their changes (D55). Default {@link storeChangeLog} over
   * the store: the change log `audit.list` reads.
   */
  readonly changeLog?: ChangeLog;
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
  /** Every device of the account, by id (D19); with `tag`, those having it (D61). */
  listDevices(input: { readonly accountId: number; readonly tag?: string | undefined }): Promise<readonly Device[]>;
  /** Totals over a window; `null` when the account has no such device. @throws {InvalidParameterError} (D7) */
  hours(input: WindowQuery): Promise<HoursTotal | null>;
  /** The daily series over a window (D8); `null` when the account has no such device. @throws {InvalidParameterError} (D7) */
  daily(input: WindowQuery): Promise<DailyHours | null>;
  /** The meter (D3) and the hour meter (D38); `null` when the account has no such device. */
  meter(input: { readonly accountId: number; readonly deviceId: number }): Promise<MeterRecord | null>;
  /** The device's service schedules at now (D39); `null` when the account has no such device. */
  service(input: { readonly accountId: number; readonly deviceId: number }): Promise<DeviceService | null>;
  /** Utilization by day, ISO week or month (D60); `null` when the account has no such device. @throws {InvalidParameterError} (D7) */
  utilization(input: UtilizationQuery): Promise<DeviceUtilization | null>;
  /** The same reads for every device of the account, a page at a time (D32). */
  readonly fleet: FleetReads;
  /** The served AEMP feed (D64): snapshot pages, one equipment, time series. */
  readonly aemp: AempReads;
  /** The check of events (D40, P53): decides the events of the devices' state and puts them in the outbox. */
  readonly events: EventChecks;
  /** Telemetry writes, positions batched, imports: every front end's writes, with the retention rule (D20–D26, D43, D45, P34). */
  readonly writes: TelemetryWrites;
  /** Changes to the account's fleet, the API's and the CLI's (D52): devices; readings, schedules and services done; webhook endpoints and ingest tokens; work calendars (D58). */
  readonly manage: DeviceWrites & MaintenanceWrites & WebhookWrites & IngestTokenWrites & CalendarWrites & AempSourceWrites;
  /** The keys of idempotent POSTs (D53): a request sent again gets its first answer. */
  readonly idempotency: IdempotentRequests;
  /** The account's change log, newest first, a page at a time (D55, P87). */
  readonly audit: AuditReads;
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
  const nowSeconds = () => Math.floor(options.now() / 1000);
  const context: ReadContext = {
    store,
    window: options.window,
    nowSeconds,
    sums: storeSums(store),
    zones: zoneCache(options.zoneCacheSize ?? 10_000),
  };
  const { authenticate, authenticateAndCount } = authentication({
    store,
    nowSeconds,
    apiPlans: options.apiPlans,
    fingerprint: options.fingerprint,
  });
  const { listDevices, hours, daily, meter, service } = deviceReads(context);
  const { utilization, fleetUtilization, fleetUtilizationByTag } = utilizationReads(context, daily);
  const changeLog = options.changeLog ?? storeChangeLog(store, options.now);
  return {
    store,
    authenticate,
    authenticateAndCount,
    listDevices,
    hours,
    daily,
    meter,
    service,
    utilization,
    fleet: { ...fleetReads(context), utilization: fleetUtilization, utilizationByTag: fleetUtilizationByTag },
    aemp: aempReads(context),
    events: eventChecks(context),
    writes: createTelemetryWrites(store),
    manage: {
      ...deviceWrites(store, changeLog),
      ...maintenanceWrites({
        store,
        nowSeconds,
        changeLog,
        // P102: inside a write's unit, the service is read from the unit's store, which sees the change.
        service: (input, over) =>
          over === store ? service(input) : deviceReads({ ...context, store: over, sums: storeSums(over) }).service(input),
        meter,
      }),
      ...webhookWrites({ store, nowSeconds, changeLog }),
      ...ingestTokenWrites({ store, nowSeconds, changeLog }),
      // D58 (P112, P113)
      ...calendarWrites(store, changeLog),
      // D65 (P133)
      ...aempSourceWrites({ store, nowSeconds, changeLog }),
    },
    idempotency: idempotentRequests(store, nowSeconds),
    audit: auditReads(store),
  };
}
