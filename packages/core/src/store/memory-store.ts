import { assertEpochSeconds } from '../time/assert-epoch-seconds.js';
import { ImeiInUseError, UnknownDeviceError } from '../errors/errors.js';
import { planSegmentImport, segmentSpan } from '../engine/plan-segment-import.js';
import { assertSourcesApart, assertTelemetryPoints, planTelemetrySegments, planTelemetryWrite } from '../telemetry/plan-telemetry-write.js';
import type { SpanRederivation } from '../telemetry/rederive-span.js';
import type { FleetHoursStore } from './storage-port.js';
import { memoryCredentials } from './memory-credentials.js';
import { memoryMaintenance } from './memory-maintenance.js';
import { memoryWebhooks } from './memory-webhooks.js';
import { memoryIdempotency } from './memory-idempotency.js';
import { memoryAudit } from './memory-audit.js';
import { firstIndexPast, memoryOverlapping, mergeSortedPoints } from './memory-rows.js';
import { memoryCalendars } from './memory-calendars.js';
import { memoryAempSources } from './memory-aemp-sources.js';
import { memoryUndo, withMemoryUnits } from './memory-units.js';
import { memoryPositions } from './memory-positions.js';
import { devicePageFromList } from './device-page.js';
import { applyChanges } from './apply-changes.js';
import { sameDeviceFields } from '../manage/device-writes.js';
import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import { summarizeSegments } from '../engine/summarize-segments.js';
import type { TelemetryPoint } from '../telemetry/telemetry-point.js';
import type { Account, Device, DeviceTelemetryPoint, EngineSegment, SegmentSource } from '../types.js';

/** A stored segment and where it came from (D23). */
type StoredSegment = EngineSegment & { readonly source: SegmentSource };

/**
 * A complete {@link FleetHoursStore} in this process's memory: the reference implementation the
 * contract suite is written against, and a store for tests, examples and prototypes. It has no
 * single-device aggregation capability, so the core's in-memory fallback answers `/hours` from
 * `listSegments`; it offers the batch ones of the fleet pages (D32), computed with the same core
 * functions, so that a page is one call like on a database.
 * Instants are epoch seconds; milliseconds are refused (a rejected promise, see the port).
 * It keeps every telemetry point (P61: no retention, so no horizon and no `BeyondRetentionError`).
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
  // P102: what a failed unit puts back.
  const undo = memoryUndo();
  const state: _MemoryState = {
    accounts,
    keys: memoryCredentials(accounts, 'apiKey', undo),
    tokens: memoryCredentials(accounts, 'ingestToken', undo),
    devices: new Map(),
    segmentsByDevice: new Map(),
    pointsByDevice: new Map(),
    positions: memoryPositions(undo),
    ids: { account: 0, device: 0 },
  };
  undo.keep([accounts, state.devices, state.segmentsByDevice, state.pointsByDevice, state.ids]);
  const idempotency = memoryIdempotency();
  const store: FleetHoursStore = {
    // Memory always answers (D30 readiness).
    async ping() {},
    ..._memoryAccounts(state),
    ..._memoryDevices(state),
    ..._memorySegments(state),
    ..._memoryTelemetry(state),
    ...state.positions.store,
    ...memoryMaintenance(state.devices, undo),
    ...memoryWebhooks(accounts, undo),
    ...idempotency,
    ...memoryAudit(accounts, undo),
    ...memoryCalendars(accounts, state.devices, undo), // D58 (P112)
    ...memoryAempSources(accounts, undo), // D65 (P132)
  };
  // P152: a numbered page cut from the whole list, read in one turn.
  const extra = { findDeviceWithDays: _deviceWithDays(store), listDevicePage: devicePageFromList(store) };
  return withMemoryUnits({ ...store, ...extra }, undo, Object.keys(idempotency));
}

/**
 * D59 (P147): the device, its window's segments and its calendar as of one instant. Each of the
 * three reads runs to its end when it is called (no `await` inside), and the three are called in
 * one turn of the event loop: no write can come between them.
 */
function _deviceWithDays(store: FleetHoursStore): NonNullable<FleetHoursStore['findDeviceWithDays']> {
  return async ({ accountId, deviceId, timeZone, start, end }) => {
    const [device, segments, calendars] = await Promise.all([
      store.findDevice({ accountId, deviceId }),
      store.listSegments({ deviceId, start, end }),
      store.findWorkCalendarsMany!({ accountId, deviceIds: [deviceId] }),
    ]);
    if (!device) return null;
    if (device.timeZone !== timeZone) return { device, days: null };
    return { device, days: { segments, calendar: calendars.devices[0] ?? calendars.accountDefault } };
  };
}

/** What a memory store holds; each part of it below works on this. */
interface _MemoryState {
  readonly accounts: Map<number, Account>;
  readonly keys: ReturnType<typeof memoryCredentials<'apiKey'>>;
  readonly tokens: ReturnType<typeof memoryCredentials<'ingestToken'>>;
  readonly devices: Map<number, Device>;
  readonly segmentsByDevice: Map<number, StoredSegment[]>;
  /** Per device, its telemetry points in time order, one per second (D21). */
  readonly pointsByDevice: Map<number, TelemetryPoint[]>;
  readonly positions: ReturnType<typeof memoryPositions>;
  readonly ids: { account: number; device: number };
}

const _byId = <T extends { id: number }>(items: Iterable<T>) => [...items].sort((a, b) => a.id - b.id);

/** Accounts, API keys and ingest tokens. */
function _memoryAccounts(state: _MemoryState) {
  const { accounts, keys, tokens, ids } = state;
  return {
    findApiKey: async ({ fingerprint }) => keys.find(fingerprint),
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
      return _byId(accounts.values()).map((account) => ({ ...account }));
    },

    async setAccountPlan({ accountId, plan }) {
      const account = accounts.get(accountId);
      if (!account) return null;
      const updated = { ...account, plan };
      accounts.set(accountId, updated);
      return { ...updated };
    },

    createApiKey: async (input) => keys.create(input),
    listApiKeys: async ({ accountId }) => keys.list(accountId),
    revokeApiKey: async ({ keyId, now }) => keys.revoke(keyId, now),
    findIngestToken: async ({ fingerprint }) => tokens.find(fingerprint),

    createIngestToken: async (input) => tokens.create(input),
    listIngestTokens: async ({ accountId }) => tokens.list(accountId),
    revokeIngestToken: async ({ tokenId, now }) => tokens.revoke(tokenId, now),
  } satisfies Partial<FleetHoursStore>;
}

/** Devices (D25: an IMEI names at most one active device of an account). */
function _memoryDevices(state: _MemoryState) {
  const { accounts, devices, ids } = state;
  const assertImeiFree = (device: Device) => {
    if (device.status !== 'active') return;
    for (const other of devices.values()) {
      if (other.id !== device.id && other.accountId === device.accountId && other.status === 'active' && other.imei === device.imei) {
        throw new ImeiInUseError(device.imei);
      }
    }
  };
  return {
    async listDevices({ accountId, afterId, limit, tag }) {
      if (afterId !== undefined && !Number.isSafeInteger(afterId)) throw new RangeError(`afterId must be a safe integer, got "${afterId}"`);
      if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 1))
        throw new RangeError(`limit must be a positive safe integer, got "${limit}"`);
      const listed = _byId(
        [...devices.values()].filter(
          (device) =>
            device.accountId === accountId &&
            (afterId === undefined || device.id > afterId) &&
            // D61: a page with `tag` keeps the devices having it.
            (tag === undefined || device.tags.includes(tag)),
        ),
      );
      return listed.slice(0, limit ?? listed.length).map((device) => ({ ...device }));
    },

    async findDevice({ accountId, deviceId }) {
      const device = devices.get(deviceId);
      return device && device.accountId === accountId ? { ...device } : null;
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
        tags: Object.freeze([...(input.tags ?? [])]),
        oemName: input.oemName ?? null,
        equipmentModel: input.equipmentModel ?? null,
        serialNumber: input.serialNumber ?? null,
        pin: input.pin ?? null,
      };
      assertImeiFree(device);
      devices.set(device.id, device);
      return { ...device };
    },

    async updateDevice({ deviceId, changes, expected }) {
      const device = devices.get(deviceId);
      if (!device) return null;
      // D54: only the device as the writer read it is changed.
      if (expected && !sameDeviceFields(device, expected)) return null;
      const updated = applyChanges(device, { ...changes, ...(changes.tags && { tags: Object.freeze([...changes.tags]) }) });
      assertImeiFree(updated);
      devices.set(deviceId, updated);
      return { ...updated };
    },
    async findDeviceByImei({ accountId, imei }) {
      for (const device of devices.values()) {
        if (device.accountId === accountId && device.status === 'active' && device.imei === imei) return { ...device };
      }
      return null;
    },
  } satisfies Partial<FleetHoursStore>;
}

/** Segments: reads, the fleet pages' sums, imports (D1, D23). */
function _memorySegments(state: _MemoryState) {
  const { devices, segmentsByDevice } = state;
  const list = (deviceId: number, start: number, end: number) =>
    memoryOverlapping(segmentsByDevice.get(deviceId) ?? [], start, end).map(({ startedAt, endedAt, state }) => ({
      deviceId,
      startedAt,
      endedAt,
      state,
    }));
  return {
    async listSegments({ deviceId, start, end }) {
      if (start !== undefined) assertEpochSeconds('start', start);
      if (end !== undefined) assertEpochSeconds('end', end);
      return list(deviceId, start ?? -Infinity, end ?? Infinity);
    },
    // D49, D59: the segments of a page's devices, each over its range, in one call (P129).
    async listSegmentsMany({ requests }) {
      requests.forEach(({ start, end }, index) => {
        assertEpochSeconds(`requests[${index}].start`, start);
        assertEpochSeconds(`requests[${index}].end`, end);
      });
      return requests.map(({ deviceId, start, end }) => list(deviceId, start, end));
    },

    // The fleet pages (D32): the same figures as the core's fallback, computed here in one call per page.
    async sumSegmentSecondsMany({ requests, now }) {
      requests.forEach((request, index) =>
        request.boundaries.forEach((boundary, position) => assertEpochSeconds(`requests[${index}].boundaries[${position}]`, boundary)),
      );
      assertEpochSeconds('now', now);
      return requests.map(({ deviceId, boundaries }) =>
        boundaries.length < 2
          ? []
          : sumSegmentsByBucket(
              memoryOverlapping(segmentsByDevice.get(deviceId) ?? [], boundaries[0]!, boundaries[boundaries.length - 1]!),
              boundaries,
              now,
            ),
      );
    },

    async summarizeDeviceSegmentsMany({ deviceIds, now }) {
      assertEpochSeconds('now', now);
      return deviceIds.map((deviceId) => summarizeSegments(segmentsByDevice.get(deviceId) ?? [], now));
    },
    async importSegments({ deviceId, segments, reportedAt }) {
      // Checks every instant (segmentSpan: the rows; then reportedAt) before anything else.
      const span = segmentSpan(segments);
      if (reportedAt !== undefined) assertEpochSeconds('reportedAt', reportedAt);
      const device = devices.get(deviceId);
      if (!device) return null;
      const stored = segmentsByDevice.get(deviceId) ?? [];
      const touched = span ? memoryOverlapping(stored, span.start, span.end ?? Infinity) : [];
      // Plans (and may throw) before anything changes: a refused batch writes nothing. D1's rules
      // see imported segments only; telemetry segments must not be overlapped at all (D23).
      const imported = touched.filter((segment) => segment.source === 'import');
      const plan = planSegmentImport({ incoming: segments, stored: imported, reportedAt, lastReportedAt: device.lastReportedAt });
      const telemetry = touched.filter((segment) => segment.source === 'telemetry');
      assertSourcesApart({ deviceId, written: 'import', incoming: plan.insert, other: telemetry });

      const closes = new Map(plan.close.map((close) => [close.startedAt, close.endedAt]));
      const next = stored.map((segment) =>
        closes.has(segment.startedAt) ? { ...segment, endedAt: closes.get(segment.startedAt)! } : segment,
      );
      for (const segment of plan.insert) next.push({ deviceId, ...segment, source: 'import' });
      next.sort((a, b) => a.startedAt - b.startedAt);
      segmentsByDevice.set(deviceId, next);

      devices.set(deviceId, { ...device, lastReportedAt: plan.lastReportedAt });
      return { inserted: plan.insert.length, closed: plan.close.length, skipped: plan.skipped };
    },
  } satisfies Partial<FleetHoursStore>;
}

/** Telemetry points and their writes (D20–D26). */
function _memoryTelemetry(state: _MemoryState) {
  const { devices, segmentsByDevice, pointsByDevice } = state;
  return {
    async listTelemetryPoints({ deviceId, start, end }) {
      if (start !== undefined) assertEpochSeconds('start', start);
      if (end !== undefined) assertEpochSeconds('end', end);
      const points = pointsByDevice.get(deviceId) ?? [];
      const first = firstIndexPast(points, (point) => point.time >= (start ?? -Infinity));
      const afterLast = firstIndexPast(points, (point) => point.time >= (end ?? Infinity));
      return points.slice(first, Math.max(first, afterLast)).map((point) => ({ ...point }));
    },

    async writeTelemetry({ accountId, points, now }) {
      assertTelemetryPoints(points, { now });
      // D25: every point's device is an active device of the account, the same refusal otherwise.
      const batches = new Map<number, TelemetryPoint[]>();
      const shares = new Map<number, DeviceTelemetryPoint[]>();
      const byImei = new Map<string, Device>();
      for (const device of devices.values())
        if (device.accountId === accountId && device.status === 'active') byImei.set(device.imei, device);
      points.forEach((point, index) => {
        const device = point.deviceId !== undefined ? devices.get(point.deviceId) : byImei.get(point.imei);
        if (!device || device.accountId !== accountId || device.status !== 'active') throw new UnknownDeviceError(index, point);
        const batch = batches.get(device.id) ?? [];
        batch.push({ time: point.time, ignition: point.ignition, speedKmh: point.speedKmh });
        batches.set(device.id, batch);
        if (!shares.has(device.id)) shares.set(device.id, []);
        shares.get(device.id)!.push(point);
      });

      // Everything is planned (and may be refused) before anything changes: all points or none.
      // Nothing is awaited in between, so concurrent writes take turns.
      const plans = [...batches]
        .sort(([a], [b]) => a - b)
        .map(([deviceId, batch]) => {
          const stored = pointsByDevice.get(deviceId) ?? [];
          let earliest = Infinity;
          let latest = -Infinity;
          for (const point of batch) {
            earliest = Math.min(earliest, point.time);
            latest = Math.max(latest, point.time);
          }
          // From the last stored point before the batch through the first after it.
          const from = Math.max(0, firstIndexPast(stored, (point) => point.time >= earliest) - 1);
          const through = firstIndexPast(stored, (point) => point.time > latest);
          const plan = planTelemetryWrite({
            batch,
            stored: stored.slice(from, through + 1),
            lastReportedAt: devices.get(deviceId)!.lastReportedAt,
          });
          let change: SpanRederivation | null = null;
          if (plan.segmentRange) {
            // Every segment with startedAt ≤ end and endedAt ≥ start: integer instants, so widen by one.
            const segments = memoryOverlapping(
              segmentsByDevice.get(deviceId) ?? [],
              plan.segmentRange.start - 1,
              plan.segmentRange.end + 1,
            );
            change = planTelemetrySegments({ deviceId, plan, segments });
          }
          return { deviceId, plan, change };
        });

      state.positions.keep(shares);
      for (const { deviceId, plan, change } of plans) {
        if (!change) continue;
        pointsByDevice.set(deviceId, mergeSortedPoints(pointsByDevice.get(deviceId) ?? [], plan.writes));
        const removed = new Set(change.removed.map((segment) => segment.startedAt));
        const next: StoredSegment[] = (segmentsByDevice.get(deviceId) ?? []).filter(
          (segment) => segment.source !== 'telemetry' || !removed.has(segment.startedAt),
        );
        for (const segment of change.added) next.push({ deviceId, ...segment, source: 'telemetry' });
        next.sort((a, b) => a.startedAt - b.startedAt);
        segmentsByDevice.set(deviceId, next);
        devices.set(deviceId, { ...devices.get(deviceId)!, lastReportedAt: plan.lastReportedAt });
      }
      return {
        accepted: plans.reduce((sum, { plan }) => sum + plan.accepted, 0),
        duplicates: plans.reduce((sum, { plan }) => sum + plan.duplicates, 0),
        devices: plans.map(({ deviceId, plan }) => {
          const device = devices.get(deviceId)!;
          return {
            deviceId,
            imei: device.imei,
            timeZone: device.timeZone,
            lastReportedAt: device.lastReportedAt,
            accepted: plan.accepted,
            duplicates: plan.duplicates,
          };
        }),
      };
    },
  } satisfies Partial<FleetHoursStore>;
}

/** A stored credential: API keys (D10) and ingest tokens (D24) have the same record and lifecycle. */
