import type {
  Account,
  ApiKeyLookup,
  ApiKeyRecord,
  BucketSeconds,
  Device,
  DeviceChanges,
  EngineSegment,
  EpochSeconds,
  ImportSummary,
  NewDevice,
  SegmentInput,
  SegmentSummary,
} from './types.js';

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
export interface FleetHoursStore {
  // ── Reads that serve the API ────────────────────────────────────────────────────────────────

  /** MUST return the key with this SHA-256 fingerprint and its account, revoked or expired ones included. */
  findApiKey(input: { readonly fingerprint: string }): Promise<ApiKeyLookup | null>;

  /** MUST return every device of the account, ordered by id ascending (D19). */
  listDevices(input: { readonly accountId: number }): Promise<readonly Device[]>;

  /** MUST return the device only when it belongs to `accountId` (a device of another account is a miss). */
  findDevice(input: { readonly accountId: number; readonly deviceId: number }): Promise<Device | null>;

  /**
   * MUST return the device's segments that overlap `[start, end)` (an open segment overlaps
   * everything after its start), ordered by `startedAt`. Without `start` / `end` the range is
   * unbounded on that side.
   */
  listSegments(input: { readonly deviceId: number; readonly start?: EpochSeconds; readonly end?: EpochSeconds }): Promise<readonly EngineSegment[]>;

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
   * `expiresAt` (both epoch seconds; `null`: never); `null` when the account does not exist.
   */
  createApiKey(input: {
    readonly accountId: number;
    readonly fingerprint: string;
    readonly label: string | null;
    readonly expiresAt: EpochSeconds | null;
    readonly now: EpochSeconds;
  }): Promise<ApiKeyRecord | null>;

  /** MUST return the account's keys ordered by id. */
  listApiKeys(input: { readonly accountId: number }): Promise<readonly ApiKeyRecord[]>;

  /**
   * MUST mark the key revoked at `now`, epoch seconds (keeping the first revocation instant if
   * already revoked) and return it; `null` when there is no such key. Takes effect on the next
   * `findApiKey` (D10).
   */
  revokeApiKey(input: { readonly keyId: number; readonly now: EpochSeconds }): Promise<ApiKeyRecord | null>;

  /** MUST create a device with a new id and `status` defaulting to `active`; `null` when the account does not exist. */
  createDevice(input: NewDevice): Promise<Device | null>;

  /** MUST apply the given changes and return the device, or `null` when there is no such device. */
  updateDevice(input: { readonly deviceId: number; readonly changes: DeviceChanges }): Promise<Device | null>;

  /**
   * MUST apply one batch by the rules of D1 through `planSegmentImport`, atomically: either the
   * whole batch is written or nothing is (on `SegmentOverlapError`, a RangeError for a malformed
   * row or any other failure). Also MUST set the device's `lastReportedAt` to the plan's
   * `lastReportedAt` (P6: raised to `reportedAt`, default the latest instant in the batch, never
   * lowered), which the store passes the device's current value. Returns `null` (writing nothing)
   * when the device does not exist.
   */
  importSegments(input: {
    readonly deviceId: number;
    readonly segments: readonly SegmentInput[];
    /** Epoch seconds of the report (P6); default the latest instant in `segments`. */
    readonly reportedAt?: EpochSeconds;
  }): Promise<ImportSummary | null>;
}
