import type { ApiKeyScope } from '../access/api-key.js';
import type {
  Account,
  ApiKeyLookup,
  ApiKeyRecord,
  Device,
  DeviceChanges,
  EngineSegment,
  DeviceTelemetryPoint,
  EpochSeconds,
  HourMeterReading,
  ImportSummary,
  IngestTokenLookup,
  IngestTokenRecord,
  NewDevice,
  NewServiceSchedule,
  SegmentInput,
  ServiceSchedule,
  ServiceScheduleChanges,
  TelemetryWriteResult,
} from '../types.js';
import type { TelemetryPoint } from '../telemetry/telemetry-point.js';
import type { DevicePosition } from '../telemetry/newest-position.js';

import type { AempSourceStore } from './aemp-source-port.js';
import type { AuditLogStore } from './audit-port.js';
import type { WorkCalendarStore } from './calendar-port.js';
import type { StoreCapabilities } from './store-capabilities.js';
import type { IdempotencyClaim, IdempotencyRecord, IdempotentResponse } from './idempotency-port.js';
import type { WebhookOutboxStore } from './webhook-outbox-port.js';

export type {
  EventCheck,
  RememberedStatuses,
  ServiceMemo,
  ServiceMemoWrite,
  ServicePageDevice,
  ServicePageFilter,
} from './store-capabilities.js';
export type { WebhookOutboxStore } from './webhook-outbox-port.js';
export type { AuditEntry, AuditLogStore, NewAuditEntry } from './audit-port.js';
export type { StoredWorkCalendar, WorkCalendarStore } from './calendar-port.js';
export type { AempSourceStore, StoredAempPoll } from './aemp-source-port.js';

/**
 * The storage port: everything Fleet Hours reads and writes. Adapters (in memory, Kysely on
 * PostgreSQL or PGlite) implement it; `describeStorageContract` from `@fleet-hours/core/testing`
 * checks that they do.
 *
 * Contract for every method:
 * - Arguments are one object; returned data is plain, `readonly` and owned by the caller.
 * - A miss MUST return `null` or `[]`, never throw.
 * - Every instant, in arguments and results, is whole epoch seconds ({@link EpochSeconds}) within
 *   the years 0001 to 9999: never milliseconds (`Date.now()` is milliseconds; pass
 *   `Math.floor(Date.now() / 1000)`). The store never reads a clock: `now` is passed in.
 * - A method MUST check every instant it is given with `assertEpochSeconds` before it reads or
 *   writes anything, and refuse a bad one by rejecting its promise with that RangeError (it names
 *   the argument and says when the value looks like milliseconds); nothing is written. It never
 *   throws synchronously: `await` and `.catch()` see every refusal.
 * - When the backing database cannot be reached, a method MUST reject with
 *   `StorageUnavailableError` (→ HTTP 503, D18) and MUST work again once the database is back,
 *   without being re-created.
 */
/** A credential to store (an API key, D10, or an ingest token, D24): by fingerprint, never the secret itself. */
interface NewCredential {
  readonly accountId: number;
  readonly fingerprint: string;
  readonly label: string | null;
  readonly expiresAt: EpochSeconds | null;
  readonly now: EpochSeconds;
}

// P132: the AEMP sources are an optional capability (`aempSourcesOf`).
export interface FleetHoursStore extends WebhookOutboxStore, StoreCapabilities, AuditLogStore, WorkCalendarStore, Partial<AempSourceStore> {
  /**
   * Optional capability (D55, P102, P103; the others are in `StoreCapabilities`): runs `work` as
   * one unit over the store it is given. What `work` writes through that store is kept only when
   * `work` resolves: when it rejects, nothing it wrote is kept and its error is rejected again. The writes of `FleetHours.manage` write a change
   * and its change-log entry in one unit, so that one is never kept without the other. A unit
   * asked for inside a unit (on the store given to `work`) joins it. A database shows other callers
   * none of the unit's writes before it ends (the memory store may: its reads do not wait). `work`
   * MUST use only the store it is given: a call of the store outside the unit may wait for the
   * unit to end. A store that wraps another and offers this MUST wrap the store of each unit too.
   * Stores without it run the writes one after another, and a failed entry leaves its change.
   */
  atomically?<T>(work: (store: FleetHoursStore) => Promise<T>): Promise<T>;

  // ── Reads that serve the API ────────────────────────────────────────────────────────────────

  /** MUST return the key with this SHA-256 fingerprint and its account, revoked or expired ones included. */
  findApiKey(input: { readonly fingerprint: string }): Promise<ApiKeyLookup | null>;

  /**
   * MUST return the devices of the account ordered by id ascending (D19): every one, or one keyset
   * page of them (D32) — only ids greater than `afterId` when it is given, and at most `limit`
   * devices when it is given. `afterId` MUST be a safe integer and `limit` a positive safe integer,
   * otherwise the call rejects with a RangeError naming it; an `afterId` beyond every id is a miss.
   */
  listDevices(input: {
    readonly accountId: number;
    readonly afterId?: number;
    readonly limit?: number;
    /** D61: only the devices having this tag (exactly, case-sensitive). */
    readonly tag?: string;
  }): Promise<readonly Device[]>;

  /** MUST return the device only when it belongs to `accountId` (a device of another account is a miss). */
  findDevice(input: { readonly accountId: number; readonly deviceId: number }): Promise<Device | null>;

  /**
   * MUST return the device's segments that overlap `[start, end)` (an open segment overlaps
   * everything after its start), ordered by `startedAt`. Without `start` / `end` the range is
   * unbounded on that side.
   */
  listSegments(input: {
    readonly deviceId: number;
    readonly start?: EpochSeconds;
    readonly end?: EpochSeconds;
  }): Promise<readonly EngineSegment[]>;

  // ── Administration (operator CLI, tests, embedding code) ────────────────────────────────────

  /** MUST create an account with a new id, created at `now` (epoch seconds). */
  createAccount(input: { readonly name: string; readonly plan: string; readonly now: EpochSeconds }): Promise<Account>;

  /** MUST return the account or `null`. */
  findAccount(input: { readonly accountId: number }): Promise<Account | null>;

  /** MUST return every account ordered by id. */
  listAccounts(): Promise<readonly Account[]>;

  /** MUST change the plan and return the account, or `null` when there is no such account. */
  setAccountPlan(input: { readonly accountId: number; readonly plan: string }): Promise<Account | null>;

  /**
   * MUST store a key by fingerprint (never the key itself), created at `now`, expiring at
   * `expiresAt` (both epoch seconds; `null`: never), with `scope` (default `read`, D51); `null`
   * when the account does not exist.
   */
  createApiKey(input: NewCredential & { readonly scope?: ApiKeyScope }): Promise<ApiKeyRecord | null>;

  /** MUST return the account's keys ordered by id. */
  listApiKeys(input: { readonly accountId: number }): Promise<readonly ApiKeyRecord[]>;

  /**
   * MUST mark the key revoked at `now`, epoch seconds (keeping the first revocation instant if
   * already revoked) and return it; `null` when there is no such key. Takes effect on the next
   * `findApiKey` (D10).
   */
  revokeApiKey(input: { readonly keyId: number; readonly now: EpochSeconds }): Promise<ApiKeyRecord | null>;

  /**
   * MUST create a device with a new id and `status` defaulting to `active`; `null` when the account
   * does not exist. MUST refuse with `ImeiInUseError` (`conflict`), creating nothing, an active
   * device whose IMEI already names another active device of the account (D25).
   */
  createDevice(input: NewDevice): Promise<Device | null>;

  /**
   * MUST apply the given changes and return the device, or `null` when there is no such device.
   * MUST refuse with `ImeiInUseError`, changing nothing, a change that would leave two active
   * devices of one account with the same IMEI (D25).
   */
  updateDevice(input: {
    readonly deviceId: number;
    readonly changes: DeviceChanges;
    /**
     * D54: the device as the writer read it. When given, MUST change nothing and return `null`
     * unless the stored device's name, IMEI, registration, model, status and zone are still these,
     * checked in the same statement as the change.
     */
    readonly expected?: Device;
  }): Promise<Device | null>;

  /**
   * MUST apply one batch by the rules of D1 through `planSegmentImport`, atomically: either the
   * whole batch is written or nothing is (on `SegmentOverlapError`, a RangeError for a malformed
   * row or any other failure). Also MUST set the device's `lastReportedAt` to the plan's
   * `lastReportedAt` (P6: raised to `reportedAt`, default the latest instant in the batch, never
   * lowered), which the store passes the device's current value. Returns `null` (writing nothing)
   * when the device does not exist. Only imported segments take part in D1's rules (the store
   * passes only those as `stored`); a batch whose new segments would overlap segments derived from
   * telemetry MUST be refused whole with `TelemetryOverlapError` (D23, `assertSourcesApart`).
   * Imported segments are stored with the source `import`.
   */
  importSegments(input: {
    readonly deviceId: number;
    readonly segments: readonly SegmentInput[];
    /** Epoch seconds of the report (P6); default the latest instant in `segments`. */
    readonly reportedAt?: EpochSeconds;
  }): Promise<ImportSummary | null>;

  // ── Live telemetry (D20–D26) ────────────────────────────────────────────────────────────────

  /** MUST return the ingest token with this SHA-256 fingerprint and its account, revoked or expired ones included (D24). */
  findIngestToken(input: { readonly fingerprint: string }): Promise<IngestTokenLookup | null>;

  /**
   * MUST store an ingest token by fingerprint (never the token itself), created at `now`, expiring
   * at `expiresAt` (`null`: never); `null` when the account does not exist (D24).
   */
  createIngestToken(input: NewCredential): Promise<IngestTokenRecord | null>;

  /** MUST return the account's ingest tokens ordered by id. */
  listIngestTokens(input: { readonly accountId: number }): Promise<readonly IngestTokenRecord[]>;

  /**
   * MUST mark the token revoked at `now` (keeping the first revocation instant) and return it;
   * `null` when there is no such token. Takes effect on the next `findIngestToken` (D24).
   */
  revokeIngestToken(input: { readonly tokenId: number; readonly now: EpochSeconds }): Promise<IngestTokenRecord | null>;

  /** MUST return the account's *active* device with this IMEI (D25: at most one), else `null`. */
  findDeviceByImei(input: { readonly accountId: number; readonly imei: string }): Promise<Device | null>;

  /**
   * MUST store a telemetry batch of the account's devices (D20–D26) atomically: every point or none.
   * First `assertTelemetryPoints` (D26: nothing more than 300 s ahead of `now`) before anything is
   * read; then every point's device MUST be an active device of `accountId`, named by id or by
   * IMEI, else the batch is refused with `UnknownDeviceError` naming the first such point (the same
   * for a missing, inactive or foreign device, D25). Per device, under a lock that makes concurrent
   * writes of one device take turns: `planTelemetryWrite` over the stored points around the batch,
   * the stored segments of its `segmentRange`, `planTelemetrySegments` (which refuses a write that
   * would overlap imported segments with `TelemetryOverlapError`, D23), then write the merged
   * points (one per device and second, D21), remove and add the segments (source `telemetry`) and
   * set `lastReportedAt` as planned. Afterwards the device's telemetry segments MUST equal
   * `telemetryToSegments` of all its stored points, whatever the order, batching or resends (D20).
   *
   * @returns The counts of `mergePoints` summed over the batch, and each named device's
   *   `lastReportedAt` by id.
   */
  writeTelemetry(input: {
    readonly accountId: number;
    readonly points: readonly DeviceTelemetryPoint[];
    /** The server's clock, epoch seconds (D26). */
    readonly now: EpochSeconds;
  }): Promise<TelemetryWriteResult>;

  /**
   * MUST return the device's stored telemetry points with `start ≤ time < end` (either side may be
   * open), one per second (D21), in time order.
   */
  listTelemetryPoints(input: {
    readonly deviceId: number;
    readonly start?: EpochSeconds;
    readonly end?: EpochSeconds;
  }): Promise<readonly TelemetryPoint[]>;

  /**
   * Issue 34, P119: MUST return the newest position (by the point's time; at the same second the
   * greatest by `isNewerPosition`) that the given devices' written points carried, one per device
   * that has one, by device id ascending. `writeTelemetry` keeps it per device (not per stored
   * point), from every point of a batch that carries a position, duplicates included, so any split
   * and order of the same points keeps the same position.
   */
  listDevicePositions(input: { readonly deviceIds: readonly number[] }): Promise<readonly DevicePosition[]>;

  // ── Hour meter and service schedules (D38, D39) ────────────────────────────────────────────
  // Operator data: no telemetry write reads it, so these writes change no device row (D35).

  /**
   * MUST store a reading of the device's hour meter recorded at `now`, or replace the value of
   * the device's reading at the same `readAt` (keeping its id); `null` when the device does not
   * exist. Checks are the caller's (`checkHourMeterReading`); instants MUST be checked with
   * `assertEpochSeconds`.
   */
  addHourMeterReading(input: {
    readonly deviceId: number;
    readonly readAt: EpochSeconds;
    readonly readingSeconds: number;
    readonly now: EpochSeconds;
    /** D65: who gave it (`aemp:{id}`); absent for a person's. Stored with it, and replaced with its value. */
    readonly source?: string;
    /** D64 (P156): the idle seconds the source gave with it; absent for a person's. Stored with it, and replaced with its value. */
    readonly idleSeconds?: number;
  }): Promise<HourMeterReading | null>;

  /** MUST return every reading of the given devices: by device id ascending, then newest `readAt` first. */
  listHourMeterReadings(input: { readonly deviceIds: readonly number[] }): Promise<readonly HourMeterReading[]>;

  /**
   * MUST delete the device's reading and return it; `null` when the device has no reading with this id.
   * With `expected` (D54, P77), only while the reading still has its `readAt`, `readingSeconds` and
   * `recordedAt`, checked in the same statement as the delete: else `null` and nothing is deleted.
   */
  removeHourMeterReading(input: {
    readonly deviceId: number;
    readonly readingId: number;
    readonly expected?: HourMeterReading;
  }): Promise<HourMeterReading | null>;

  /**
   * MUST store a schedule with a new id, created at `now`; `null` when the device does not exist.
   * Optional fields left out are stored as `null`. Checks are the caller's (`checkServiceSchedule`).
   */
  createServiceSchedule(
    input: NewServiceSchedule & {
      readonly now: EpochSeconds;
      /**
       * P78: refuse, with `scheduleNameInUse`, a name another schedule of the device has (compared
       * trimmed, in lower case), atomically with the insert: of two creates with one name at once, one is stored.
       */
      readonly uniqueName?: boolean;
    },
  ): Promise<ServiceSchedule | null>;

  /** MUST return the schedule or `null`. */
  findServiceSchedule(input: { readonly scheduleId: number }): Promise<ServiceSchedule | null>;

  /** MUST return every schedule of the given devices, by device id ascending, then id ascending. */
  listServiceSchedules(input: { readonly deviceIds: readonly number[] }): Promise<readonly ServiceSchedule[]>;

  /**
   * MUST apply the changes (a field left out keeps its value) and return the schedule, or `null`
   * when there is no such schedule. Checks are the caller's (`changeServiceSchedule`).
   */
  updateServiceSchedule(input: {
    readonly scheduleId: number;
    readonly changes: ServiceScheduleChanges;
    /**
     * D54, P77: apply only while the schedule still has every field of `expected` a write can
     * change, checked in the same statement as the update: else `null` and nothing changes.
     */
    readonly expected?: ServiceSchedule;
    /** P78: as `createServiceSchedule`'s, when `changes` gives a name. */
    readonly uniqueName?: boolean;
  }): Promise<ServiceSchedule | null>;

  /** MUST delete the schedule and return it; `null` when there is no such schedule (or, with `expected`, as `updateServiceSchedule`). */
  removeServiceSchedule(input: { readonly scheduleId: number; readonly expected?: ServiceSchedule }): Promise<ServiceSchedule | null>;

  // ── Idempotency keys of POST requests (D53, P84, P85) ─────────────────────────────────────────

  /**
   * MUST claim the account's key for a request atomically: of any number of concurrent claims of
   * one key, at most one is `claimed`. The key is claimed (its entry written with `fingerprint`,
   * `claimId`, created at `now`, no answer) when the account has no entry for it, when its entry
   * was created before `expiredBefore` (past its 24 h), or when its entry has no answer and was
   * created before `abandonedBefore` (P84: a request that never finished). Otherwise nothing
   * changes and the entry is returned: `running` without an answer, `completed` with it. A key
   * of another account is another key. `now`, `expiredBefore` and `abandonedBefore` are epoch
   * seconds, checked with `assertEpochSeconds`.
   */
  claimIdempotencyKey(input: {
    readonly accountId: number;
    readonly key: string;
    readonly fingerprint: string;
    readonly claimId: string;
    readonly now: EpochSeconds;
    readonly expiredBefore: EpochSeconds;
    readonly abandonedBefore: EpochSeconds;
  }): Promise<IdempotencyClaim>;

  /**
   * MUST keep the answer with the key when the key is still held by `claimId` and has no answer
   * yet, and return `true`; otherwise change nothing and return `false`.
   */
  completeIdempotencyKey(input: {
    readonly accountId: number;
    readonly key: string;
    readonly claimId: string;
    readonly response: IdempotentResponse;
  }): Promise<boolean>;

  /** MUST delete the key's entry when it is still held by `claimId` and has no answer; otherwise change nothing. */
  releaseIdempotencyKey(input: { readonly accountId: number; readonly key: string; readonly claimId: string }): Promise<void>;

  /** MUST return the account's entry for the key, whatever its age, or `null`. */
  findIdempotencyKey(input: { readonly accountId: number; readonly key: string }): Promise<IdempotencyRecord | null>;

  /** MUST delete every entry created before `before` (epoch seconds, checked) and return how many. */
  removeExpiredIdempotencyKeys(input: { readonly before: EpochSeconds }): Promise<number>;
}
