import { credentialKindOf, evaluateAccess, readAuthorization, type AccessResult, type CredentialKind, type CredentialLookup } from './access-policy.js';
import { fingerprintApiKey } from './api-key.js';
import { dayBuckets } from './day-buckets.js';
import { addBuckets, toEngineSeconds } from './engine-seconds.js';
import { formatInstant } from './format-instant.js';
import type { WindowDates } from './parse-window-query.js';
import { resolveWindow, type ResolvedWindow, type WindowLimits } from './resolve-window.js';
import type { FleetHoursStore } from './storage-port.js';
import { sumSegmentsByBucket } from './sum-by-bucket.js';
import { summarizeSegments } from './summarize-segments.js';
import type { BucketSeconds, DailyHours, Device, HoursTotal, MeterRecord } from './types.js';

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
}

/** A device and window, as the `/hours` and `/hours/daily` routes receive them: the dates from `parseWindowQuery` (D4, D7). */
export interface WindowQuery extends WindowDates {
  readonly accountId: number;
  readonly deviceId: number;
}

/** The Fleet Hours service for one store: what the HTTP API serves, callable from any backend. */
export interface FleetHours {
  readonly store: FleetHoursStore;
  /**
   * Checks an `Authorization` header value for a route that needs `credential` (default
   * `api_key`): looks the token up by fingerprint and decides with `evaluateAccess` (D10–D12, D24).
   */
  authenticate(authorization: string | null | undefined, credential?: CredentialKind): Promise<AccessResult>;
  /** Every device of the account, by id (D19). */
  listDevices(input: { readonly accountId: number }): Promise<readonly Device[]>;
  /** Totals over a window; `null` when the account has no such device. @throws {InvalidParameterError} (D7) */
  hours(input: WindowQuery): Promise<HoursTotal | null>;
  /** The daily series over a window (D8); `null` when the account has no such device. @throws {InvalidParameterError} (D7) */
  daily(input: WindowQuery): Promise<DailyHours | null>;
  /** The meter (D3); `null` when the account has no such device. */
  meter(input: { readonly accountId: number; readonly deviceId: number }): Promise<MeterRecord | null>;
}

/**
 * Creates the Fleet Hours service over a store.
 *
 * @param options The store, the clock and optional limits.
 * @returns The service.
 * @example
 * ```ts
 * import { createFleetHours, createMemoryStore, parseWindowQuery } from '@fleet-hours/core';
 * const fleetHours = createFleetHours({ store: createMemoryStore(), now: Date.now });
 * const total = await fleetHours.hours({ accountId: 1, deviceId: 7, ...parseWindowQuery({ from: '2026-03-01', to: '2026-03-07' }) });
 * ```
 */
export function createFleetHours(options: FleetHoursOptions): FleetHours {
  const { store } = options;
  const nowSeconds = () => Math.floor(options.now() / 1000);
  // One lookup per credential kind; ingest tokens join when the store can find them (D24).
  const findCredential: Readonly<Record<CredentialKind, (fingerprint: string) => Promise<CredentialLookup | null>>> = {
    api_key: async (fingerprint) => {
      const found = await store.findApiKey({ fingerprint });
      return found && { credential: found.apiKey, account: found.account };
    },
    ingest_token: async () => {
      throw new Error('Ingest tokens cannot be checked yet: the store has no lookup for them');
    },
  };

  // P1 (docs/decisions.md): no engine ran after now. Boundaries are capped at now, so a closed
  // segment stamped in the future counts only up to now, exactly as in the meter (D3), and buckets
  // after now are empty. Capping the boundaries (not the segments) keeps every store's aggregation
  // contract unchanged.
  const sumBuckets = async (deviceId: number, windowBoundaries: readonly number[], now: number): Promise<readonly BucketSeconds[]> => {
    const boundaries = windowBoundaries.map((boundary) => Math.min(boundary, now));
    if (store.sumSegmentSeconds) return store.sumSegmentSeconds({ deviceId, boundaries, now });
    const segments = await store.listSegments({ deviceId, start: boundaries[0]!, end: boundaries[boundaries.length - 1]! });
    return sumSegmentsByBucket(segments, boundaries, now);
  };

  const deviceWindow = async (query: WindowQuery, now: number): Promise<{ device: Device; window: ResolvedWindow } | null> => {
    const device = await store.findDevice({ accountId: query.accountId, deviceId: query.deviceId });
    if (!device) return null;
    const window = resolveWindow({ ...options.window, from: query.from, to: query.to, now, timeZone: device.timeZone });
    return { device, window };
  };

  return {
    store,

    async authenticate(authorization, credential = 'api_key') {
      const presented = readAuthorization(authorization);
      // A token of the other kind is refused by its prefix, without asking the store (D24).
      const asked = presented.kind === 'bearer' && (credentialKindOf(presented.token) ?? credential) === credential;
      const lookup = asked ? await findCredential[credential](await fingerprintApiKey(presented.token)) : null;
      return evaluateAccess({ required: credential, presented, lookup, now: nowSeconds(), ...(options.apiPlans ? { apiPlans: options.apiPlans } : {}) });
    },

    listDevices({ accountId }) {
      return store.listDevices({ accountId });
    },

    async hours(query) {
      const now = nowSeconds();
      const resolved = await deviceWindow(query, now);
      if (!resolved) return null;
      const { device, window } = resolved;
      const buckets = await sumBuckets(device.id, [window.start, window.end], now);
      return { deviceId: device.id, timeZone: device.timeZone, from: window.from, to: window.to, ...toEngineSeconds(addBuckets(buckets)) };
    },

    async daily(query) {
      const now = nowSeconds();
      const resolved = await deviceWindow(query, now);
      if (!resolved) return null;
      const { device, window } = resolved;
      const { dates, boundaries } = dayBuckets(window);
      const buckets = await sumBuckets(device.id, boundaries, now);
      return {
        deviceId: device.id,
        timeZone: device.timeZone,
        from: window.from,
        to: window.to,
        days: dates.map((date, index) => ({ date, ...toEngineSeconds(buckets[index]!) })),
      };
    },

    async meter({ accountId, deviceId }) {
      const now = nowSeconds();
      const device = await store.findDevice({ accountId, deviceId });
      if (!device) return null;
      const summary = store.summarizeDeviceSegments
        ? await store.summarizeDeviceSegments({ deviceId, now })
        : summarizeSegments(await store.listSegments({ deviceId }), now);
      return {
        deviceId,
        timeZone: device.timeZone,
        since: summary.firstStartedAt === null ? null : formatInstant(summary.firstStartedAt, device.timeZone),
        asOf: formatInstant(now, device.timeZone),
        ...toEngineSeconds(summary),
      };
    },
  };
}
