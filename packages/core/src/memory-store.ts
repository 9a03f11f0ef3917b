import { assertEpochSeconds } from './assert-epoch-seconds.js';
import { planSegmentImport, segmentSpan } from './plan-segment-import.js';
import type { FleetHoursStore } from './storage-port.js';
import type { Account, ApiKeyRecord, Device, EngineSegment } from './types.js';

/**
 * A complete {@link FleetHoursStore} in this process's memory: the reference implementation the
 * contract suite is written against, and a store for tests, examples and prototypes. It has no
 * aggregation capability, so the core's in-memory fallback answers `/hours` from `listSegments`.
 * Instants are epoch seconds; milliseconds are refused (a rejected promise, see the port).
 *
 * @returns A new, empty store.
 * @example
 * ```ts
 * import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
 * const store = createMemoryStore();
 * const account = await store.createAccount({ name: 'Acme', plan: 'business', now: Math.floor(Date.now() / 1000) });
 * const fleetHours = createFleetHours({ store, now: Date.now });
 * ```
 */
export function createMemoryStore(): FleetHoursStore {
  const accounts = new Map<number, Account>();
  const keys = new Map<number, ApiKeyRecord>();
  const devices = new Map<number, Device>();
  const segmentsByDevice = new Map<number, EngineSegment[]>();
  const ids = { account: 0, key: 0, device: 0 };

  const byId = <T extends { id: number }>(items: Iterable<T>) => [...items].sort((a, b) => a.id - b.id);

  return {
    async findApiKey({ fingerprint }) {
      for (const apiKey of keys.values()) {
        if (apiKey.fingerprint === fingerprint) {
          const account = accounts.get(apiKey.accountId);
          return account ? { apiKey: { ...apiKey }, account: { ...account } } : null;
        }
      }
      return null;
    },

    async listDevices({ accountId }) {
      return byId([...devices.values()].filter((device) => device.accountId === accountId)).map((device) => ({ ...device }));
    },

    async findDevice({ accountId, deviceId }) {
      const device = devices.get(deviceId);
      return device && device.accountId === accountId ? { ...device } : null;
    },

    async listSegments({ deviceId, start, end }) {
      if (start !== undefined) assertEpochSeconds('start', start);
      if (end !== undefined) assertEpochSeconds('end', end);
      return _overlapping(segmentsByDevice.get(deviceId) ?? [], start ?? -Infinity, end ?? Infinity).map((segment) => ({ ...segment }));
    },

    async createAccount({ name, plan, now }) {
      assertEpochSeconds('now', now);
      const account: Account = { id: ++ids.account, name, plan, createdAt: now };
      accounts.set(account.id, account);
      return { ...account };
    },

    async findAccount({ accountId }) {
      const account = accounts.get(accountId);
      return account ? { ...account } : null;
    },

    async listAccounts() {
      return byId(accounts.values()).map((account) => ({ ...account }));
    },

    async setAccountPlan({ accountId, plan }) {
      const account = accounts.get(accountId);
      if (!account) return null;
      const updated = { ...account, plan };
      accounts.set(accountId, updated);
      return { ...updated };
    },

    async createApiKey({ accountId, fingerprint, label, expiresAt, now }) {
      if (expiresAt !== null) assertEpochSeconds('expiresAt', expiresAt);
      assertEpochSeconds('now', now);
      if (!accounts.has(accountId)) return null;
      const apiKey: ApiKeyRecord = { id: ++ids.key, accountId, fingerprint, label, createdAt: now, expiresAt, revokedAt: null };
      keys.set(apiKey.id, apiKey);
      return { ...apiKey };
    },

    async listApiKeys({ accountId }) {
      return byId([...keys.values()].filter((apiKey) => apiKey.accountId === accountId)).map((apiKey) => ({ ...apiKey }));
    },

    async revokeApiKey({ keyId, now }) {
      assertEpochSeconds('now', now);
      const apiKey = keys.get(keyId);
      if (!apiKey) return null;
      const revoked = { ...apiKey, revokedAt: apiKey.revokedAt ?? now };
      keys.set(keyId, revoked);
      return { ...revoked };
    },

    async createDevice(input) {
      if (!accounts.has(input.accountId)) return null;
      const device: Device = {
        id: ++ids.device,
        accountId: input.accountId,
        name: input.name,
        imei: input.imei,
        registration: input.registration ?? null,
        model: input.model,
        status: input.status ?? 'active',
        timeZone: input.timeZone,
        lastReportedAt: null,
      };
      devices.set(device.id, device);
      return { ...device };
    },

    async updateDevice({ deviceId, changes }) {
      const device = devices.get(deviceId);
      if (!device) return null;
      const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      const updated: Device = { ...device, ...defined };
      devices.set(deviceId, updated);
      return { ...updated };
    },

    async importSegments({ deviceId, segments, reportedAt }) {
      // Checks every instant (segmentSpan: the rows; then reportedAt) before anything else.
      const span = segmentSpan(segments);
      if (reportedAt !== undefined) assertEpochSeconds('reportedAt', reportedAt);
      const device = devices.get(deviceId);
      if (!device) return null;
      const stored = segmentsByDevice.get(deviceId) ?? [];
      const touched = span ? _overlapping(stored, span.start, span.end ?? Infinity) : [];
      // Plans (and may throw) before anything changes: a refused batch writes nothing.
      const plan = planSegmentImport({ incoming: segments, stored: touched, reportedAt, lastReportedAt: device.lastReportedAt });

      const closes = new Map(plan.close.map((close) => [close.startedAt, close.endedAt]));
      const next = stored.map((segment) =>
        closes.has(segment.startedAt) ? { ...segment, endedAt: closes.get(segment.startedAt)! } : segment,
      );
      for (const segment of plan.insert) next.push({ deviceId, ...segment });
      next.sort((a, b) => a.startedAt - b.startedAt);
      segmentsByDevice.set(deviceId, next);

      devices.set(deviceId, { ...device, lastReportedAt: plan.lastReportedAt });
      return { inserted: plan.insert.length, closed: plan.close.length, skipped: plan.skipped };
    },
  };
}

/**
 * The stored segments overlapping `[start, end)`. Stored segments never overlap (D1) and are kept
 * in start order, so their ends are in order too: both edges are found by binary search,
 * O(log n + answer), not a scan of the device's history.
 */
function _overlapping(stored: readonly EngineSegment[], start: number, end: number): readonly EngineSegment[] {
  const first = _firstIndex(stored, (segment) => (segment.endedAt ?? Infinity) > start);
  const afterLast = _firstIndex(stored, (segment) => segment.startedAt >= end);
  return stored.slice(first, Math.max(first, afterLast));
}

/** The first index whose item satisfies `isPast`, for a predicate that is false, then true, along the array. */
function _firstIndex<T>(items: readonly T[], isPast: (item: T) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (isPast(items[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
}
