import type {
  Account,
  ApiKeyLookup,
  ApiKeyRecord,
  BucketSeconds,
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
  SegmentSummary,
  ServiceSchedule,
  ServiceScheduleChanges,
  ServiceStatus,
  TelemetryWriteResult,
} from '../types.js';
import type { TelemetryPoint } from '../telemetry/telemetry-point.js';
import type {
  AttemptReport,
  ClaimedDelivery,
  NewWebhookEndpoint,
  NewWebhookEvent,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointChanges,
} from '../events/webhook-records.js';

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

/** A credential to store (an API key, D10, or an ingest token, D24): by fingerprint, never the secret itself. */
interface NewCredential {
  readonly accountId: number;
  readonly fingerprint: string;
  readonly label: string | null;
  readonly expiresAt: EpochSeconds | null;
  readonly now: EpochSeconds;
}

export interface FleetHoursStore extends WebhookOutboxStore {
  // ── Reads that serve the API ────────────────────────────────────────────────────────────────

  /** MUST return the key with this SHA-256 fingerprint and its account, revoked or expired ones included. */
  findApiKey(input: { readonly fingerprint: string }): Promise<ApiKeyLookup | null>;

  /**
   * MUST return the devices of the account ordered by id ascending (D19): every one, or one keyset
   * page of them (D32) — only ids greater than `afterId` when it is given, and at most `limit`
   * devices when it is given. `afterId` MUST be a safe integer and `limit` a positive safe integer,
   * otherwise the call rejects with a RangeError naming it; an `afterId` beyond every id is a miss.
   */
  listDevices(input: { readonly accountId: number; readonly afterId?: number; readonly limit?: number }): Promise<readonly Device[]>;

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
  createApiKey(input: NewCredential): Promise<ApiKeyRecord | null>;

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
  updateDevice(input: { readonly deviceId: number; readonly changes: DeviceChanges }): Promise<Device | null>;

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
  }): Promise<HourMeterReading | null>;

  /** MUST return every reading of the given devices: by device id ascending, then newest `readAt` first. */
  listHourMeterReadings(input: { readonly deviceIds: readonly number[] }): Promise<readonly HourMeterReading[]>;

  /** MUST delete the device's reading and return it; `null` when the device has no reading with this id. */
  removeHourMeterReading(input: { readonly deviceId: number; readonly readingId: number }): Promise<HourMeterReading | null>;

  /**
   * MUST store a schedule with a new id, created at `now`; `null` when the device does not exist.
   * Optional fields left out are stored as `null`. Checks are the caller's (`checkServiceSchedule`).
   */
  createServiceSchedule(input: NewServiceSchedule & { readonly now: EpochSeconds }): Promise<ServiceSchedule | null>;

  /** MUST return the schedule or `null`. */
  findServiceSchedule(input: { readonly scheduleId: number }): Promise<ServiceSchedule | null>;

  /** MUST return every schedule of the given devices, by device id ascending, then id ascending. */
  listServiceSchedules(input: { readonly deviceIds: readonly number[] }): Promise<readonly ServiceSchedule[]>;

  /**
   * MUST apply the changes (a field left out keeps its value) and return the schedule, or `null`
   * when there is no such schedule. Checks are the caller's (`changeServiceSchedule`).
   */
  updateServiceSchedule(input: { readonly scheduleId: number; readonly changes: ServiceScheduleChanges }): Promise<ServiceSchedule | null>;

  /** MUST delete the schedule and return it; `null` when there is no such schedule. */
  removeServiceSchedule(input: { readonly scheduleId: number }): Promise<ServiceSchedule | null>;
}

/**
 * The part of the storage port for events and webhooks (D40, D41): endpoints, the durable outbox
 * of events, their deliveries and every attempt. Instants are epoch seconds, checked like every
 * other method's; ids that no store can hold are misses.
 */
export interface WebhookOutboxStore {
  /** MUST store a new endpoint, enabled, created at `now`; `null` when the account does not exist. */
  createWebhookEndpoint(input: NewWebhookEndpoint & { readonly now: EpochSeconds }): Promise<WebhookEndpoint | null>;

  /** MUST return the endpoint or `null`. */
  findWebhookEndpoint(input: { readonly endpointId: number }): Promise<WebhookEndpoint | null>;

  /** MUST return the account's endpoints by id. */
  listWebhookEndpoints(input: { readonly accountId: number }): Promise<readonly WebhookEndpoint[]>;

  /**
   * MUST apply the changes and return the endpoint, or `null` when there is none. `enabled: true`
   * clears `disabledReason`, `disabledAt` and `failingSince`; `enabled: false` disables it with the
   * reason `operator` at `now` (an endpoint already disabled keeps its reason).
   */
  updateWebhookEndpoint(input: {
    readonly endpointId: number;
    readonly changes: WebhookEndpointChanges;
    readonly now: EpochSeconds;
  }): Promise<WebhookEndpoint | null>;

  /**
   * MUST make `secret` the endpoint's secret and keep the one it replaces as `previousSecret` until
   * `now + overlapSeconds` (D41: 24 h); `null` when there is no such endpoint.
   */
  rotateWebhookSecret(input: {
    readonly endpointId: number;
    readonly secret: string;
    readonly overlapSeconds: number;
    readonly now: EpochSeconds;
  }): Promise<WebhookEndpoint | null>;

  /** MUST delete the endpoint with its deliveries and attempts and return it; `null` when there is none. */
  removeWebhookEndpoint(input: { readonly endpointId: number }): Promise<WebhookEndpoint | null>;

  /**
   * MUST put each event in the outbox once by id (D40: an id already stored is left as it is) and,
   * for each event it stores, a delivery due at `now` to every enabled endpoint of the event's
   * account that wants its type — or, with `endpointId`, to that endpoint only, if it is the
   * account's. Atomic: all or nothing.
   *
   * @returns The ids of the events it stored (not those already there).
   */
  raiseEvents(input: { readonly events: readonly NewWebhookEvent[]; readonly now: EpochSeconds }): Promise<readonly string[]>;

  /**
   * MUST claim up to `limit` pending deliveries due at `now` of enabled endpoints, oldest due
   * first, that no unexpired claim holds, for `claimant` until `now + leaseSeconds`, and return
   * them. Two concurrent calls never claim one delivery (D41: one event is never sent by two
   * senders at once); a claim that expires (its sender died) is claimed again. With `eventId`, only
   * that event's deliveries (a command that sends one event now). With `perEndpoint` (D47: an
   * endpoint's share of a sender), it MUST NOT claim more of one endpoint's deliveries than
   * `perEndpoint` less what `held` says the claimant is already sending to it, and it MUST skip the
   * endpoints at their share, so that the due deliveries of the other endpoints are claimed: a
   * claim returns none only when no endpoint under its share has a due delivery no one holds.
   */
  claimDeliveries(input: {
    readonly claimant: string;
    readonly eventId?: string;
    readonly limit: number;
    readonly leaseSeconds: number;
    readonly now: EpochSeconds;
    readonly perEndpoint?: number;
    readonly held?: readonly { readonly endpointId: number; readonly requests: number }[];
  }): Promise<readonly ClaimedDelivery[]>;

  /**
   * MUST record the attempt and release the claim. A 2xx marks the delivery `delivered`; any other
   * outcome schedules the next attempt by `nextAttemptAt` over `retrySchedule` (`failed` when it is
   * spent, or at once on a 410); the endpoint's failing streak and disabling follow
   * `endpointAfterAttempt` (D41). Only the claimant's claim is changed: an attempt reported after
   * the claim expired is recorded, and changes nothing else. `null` when there is no such delivery.
   */
  recordWebhookAttempt(input: {
    readonly deliveryId: number;
    readonly claimant: string;
    readonly attempt: AttemptReport;
    readonly retrySchedule: readonly number[];
  }): Promise<WebhookDelivery | null>;

  /**
   * MUST record several attempts of `claimant` as `recordWebhookAttempt` would, one after the
   * other in the order given (D41: every attempt recorded), and return, for each, the delivery
   * after it (`null`: no such delivery). A store may do it in fewer statements (a sender reports
   * the requests that finished together); when it throws, nothing of the batch is recorded.
   */
  recordWebhookAttempts(input: {
    readonly claimant: string;
    readonly reports: readonly { readonly deliveryId: number; readonly attempt: AttemptReport }[];
    readonly retrySchedule: readonly number[];
  }): Promise<readonly (WebhookDelivery | null)[]>;

  /** MUST release every claim of `claimant` (a sender that stops without sending what it claimed). */
  releaseWebhookClaims(input: { readonly claimant: string }): Promise<void>;

  /**
   * MUST return the endpoint's attempts, newest first (by instant, then id), at most `limit`;
   * with `failedOnly`, only attempts of deliveries that have failed.
   */
  listWebhookAttempts(input: {
    readonly endpointId: number;
    readonly failedOnly?: boolean;
    readonly limit: number;
  }): Promise<readonly WebhookAttempt[]>;

  /**
   * MUST make every delivery of the event pending again, due at `now`, its attempts counted from 0
   * (D41: a replay sends the same id); `null` when there is no such event, else its deliveries.
   */
  replayWebhookEvent(input: { readonly eventId: string; readonly now: EpochSeconds }): Promise<readonly WebhookDelivery[] | null>;

  /**
   * MUST return, for each of the devices, the open silence (D40): the `cause` of a `device.silent`
   * event of the device with no `device.reporting` event of the same device and cause; by device id.
   */
  listOpenSilences(input: {
    readonly deviceIds: readonly number[];
  }): Promise<readonly { readonly deviceId: number; readonly since: EpochSeconds }[]>;

  /** MUST return the number of pending deliveries and the instant the oldest one's event was raised (`null`: none). */
  webhookBacklog(): Promise<{ readonly pending: number; readonly oldestRaisedAt: EpochSeconds | null }>;

  /**
   * MUST set the account's quiet time after which an active device is silent (D40); `null` when
   * the account does not exist.
   */
  setSilentAfter(input: { readonly accountId: number; readonly silentAfterSeconds: number }): Promise<number | null>;

  /** MUST return the account's quiet time (default `DEFAULT_SILENT_AFTER_SECONDS`), or `null` when the account does not exist. */
  findSilentAfter(input: { readonly accountId: number }): Promise<number | null>;
}
