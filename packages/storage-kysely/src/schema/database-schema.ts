import type { ColumnType, Generated } from 'kysely';

/** A `timestamptz` column: read as a `Date` by postgres.js and PGlite, written as a `Date`, an ISO string or a SQL expression. */
export type TimestampColumn = ColumnType<Date, Date | string, Date | string>;

/** A nullable `timestamptz` column. */
export type NullableTimestampColumn = ColumnType<Date | null, Date | string | null, Date | string | null>;

/** A `bigint` column: postgres.js reads it as a string, PGlite as a number. */
export type BigintColumn = ColumnType<string | number | bigint, string | number | bigint, string | number | bigint>;

/** `accounts`: the owners of devices and keys (D12). */
export interface AccountsTable {
  id: Generated<number>;
  name: string;
  /** `business` includes API access (D12). */
  plan: string;
  created_at: TimestampColumn;
}

/** The columns of a credential table: `api_keys` (D10) and `ingest_tokens` (D24) have the same. */
interface CredentialsTable {
  id: Generated<number>;
  account_id: number;
  /** Lower-case hex SHA-256; a check constraint refuses anything else, so a clear secret cannot be stored by mistake. */
  fingerprint: string;
  label: string | null;
  created_at: TimestampColumn;
  expires_at: NullableTimestampColumn;
  revoked_at: NullableTimestampColumn;
}

/** `api_keys`: keys by SHA-256 fingerprint, never the key itself (D10). */
export interface ApiKeysTable extends CredentialsTable {
  /** `read` or `manage` (D51); `read` by default, and for every key made before scopes. */
  scope: Generated<string>;
}

/** `devices`: one row per tracker record. */
export interface DevicesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  imei: string;
  registration: string | null;
  model: string;
  status: Generated<string>;
  /** IANA zone name. */
  time_zone: string;
  /** D61: as given; `device_tags` is kept from it by a trigger (migration 0020). */
  tags: Generated<string[]>;
  /** D63 */
  oem_name: string | null;
  equipment_model: string | null;
  serial_number: string | null;
  pin: string | null;
}

/** `device_tags` (D61, P95): one row per device and tag, kept from `devices.tags` by a trigger; read by `tag=` pages. */
export interface DeviceTagsTable {
  account_id: number;
  tag: string;
  device_id: number;
}

/** Issue 34 (P119): each device's newest position (migration 0024), co-located with its points (D44). */
export interface DevicePositionsTable {
  device_id: number;
  time: TimestampColumn;
  latitude: number;
  longitude: number;
}

/**
 * `device_states`: what telemetry writes and imports change of a device, one row per device (D44),
 * created with it by a trigger on `devices`. Every write of the device's points or segments locks
 * this row and updates it, so its `xmin` is the device's version that D35's writes check; `devices`
 * itself is written only when the device changes.
 */
export interface DeviceStatesTable {
  device_id: number;
  last_reported_at: NullableTimestampColumn;
  /**
   * The longest closed segment of the device, in seconds: a window query reads segments from
   * `window start − longest` on, so the `(device_id, started_at)` index bounds the scan from below.
   * Maintained by `importSegments` under the device's row lock.
   */
  longest_segment_seconds: Generated<BigintColumn>;
  /** Seconds of the device's closed moving segments, its whole history (D27): the meter reads it instead of summing segments. */
  closed_moving_seconds: Generated<BigintColumn>;
  /** Seconds of the device's closed idle segments, its whole history (D27). */
  closed_idle_seconds: Generated<BigintColumn>;
  /** The zone `engine_day_figures` of the device were cut in; `null` before any were built (D27). */
  figures_time_zone: Generated<string | null>;
}

/** `engine_segments`: the source of truth for engine time (D1). */
export interface EngineSegmentsTable {
  device_id: number;
  started_at: TimestampColumn;
  /** `null` while the engine still runs; at most one such row per device. */
  ended_at: NullableTimestampColumn;
  state: 'moving' | 'idle';
  /** Where the segment came from (D23): `import` (D1) or derived from `telemetry_points` (D20). */
  source: Generated<'import' | 'telemetry'>;
}

/** `telemetry_points`: every accepted telemetry point, one per device and second (D20, D21). */
export interface TelemetryPointsTable {
  device_id: number;
  time: TimestampColumn;
  ignition: boolean;
  /** km/h, ≥ 0. */
  speed_kmh: number;
}

/** `ingest_tokens`: tokens that write telemetry (D24), by SHA-256 fingerprint like `api_keys`. */
export interface IngestTokensTable extends CredentialsTable {}

/**
 * `engine_day_figures`: per device and local day of its zone, the moving and idle seconds of its
 * closed segments (D27), kept by every write in its transaction. `[day_start, day_end)` are epoch
 * seconds; days without engine time have no row. Rebuild with `rebuildDailyFigures` after writing
 * `engine_segments` outside Fleet Hours.
 */
export interface EngineDayFiguresTable {
  device_id: number;
  day_start: BigintColumn;
  day_end: BigintColumn;
  moving_seconds: BigintColumn;
  idle_seconds: BigintColumn;
  /** The device's moving seconds in every earlier row: its closed engine time before `day_start` (P56). */
  moving_before_seconds: Generated<BigintColumn>;
  /** The same for idle seconds. */
  idle_before_seconds: Generated<BigintColumn>;
}

/** `hour_meter_readings`: readings of a machine's own hour meter (D38), one per device and instant. */
export interface HourMeterReadingsTable {
  id: Generated<number>;
  device_id: number;
  read_at: TimestampColumn;
  reading_seconds: BigintColumn;
  recorded_at: TimestampColumn;
  /** D65: `aemp:{id}` for a source's reading; `null` for a person's (migration 0025). */
  source: string | null;
  /** D64, P156: the idle seconds the source gave with it; `null` for a person's and where the source gave none (migration 0028). */
  idle_seconds: BigintColumn | null;
}

/** `service_schedules`: service intervals of a device and its last service (D39). */
export interface ServiceSchedulesTable {
  id: Generated<number>;
  device_id: number;
  name: string;
  interval_seconds: BigintColumn;
  interval_days: number | null;
  due_soon_seconds: BigintColumn | null;
  due_soon_days: number | null;
  last_done_at: TimestampColumn;
  last_done_hour_meter_seconds: BigintColumn | null;
  created_at: TimestampColumn;
}

/** `service_memos`: per device, what service pages remember and the version it holds at (P58; no row: version 0, nothing). */
export interface ServiceMemosTable {
  device_id: number;
  /** Raised by every change a remembered value depends on. */
  version: Generated<BigintColumn>;
  /** The version the values below were remembered at: they count only while it is `version`. */
  remembered_at_version: BigintColumn | null;
  /** Until when every schedule of the device stays ok; `null`: not known. */
  ok_until: NullableTimestampColumn;
  /** The engine seconds before its readings and last services: `[[instant, moving, idle], …]`. */
  engine_before: ColumnType<unknown, string | null, string | null> | null;
  /** P66: the device's account, for a filtered page's walk of the account's rows (every device has a row from its creation). */
  account_id: number | null;
  /** P66: the statuses its schedules have, as bits (1 ok, 2 due soon, 4 overdue); `null`: not known. */
  statuses: number | null;
  /** P66: until when the statuses stay these; `null` with known statuses: for good. */
  statuses_until: NullableTimestampColumn;
}

/** `telemetry_horizon` (D45): at most one row, the first instant from which every telemetry point is still stored. */
export interface TelemetryHorizonTable {
  only_row: Generated<boolean>;
  horizon: TimestampColumn;
}

/** `webhook_endpoints`: an account's webhook endpoints and the secrets they sign with (D41). */
export interface WebhookEndpointsTable {
  id: Generated<number>;
  account_id: number;
  url: string;
  event_types: string[];
  /** P99 (migration 0021). */
  description: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: NullableTimestampColumn;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  disabled_at: NullableTimestampColumn;
  failing_since: NullableTimestampColumn;
  created_at: TimestampColumn;
}

/** `event_checks`: the devices whose events a write asked to check (D40, P53), one row per device. */
export interface EventChecksTable {
  device_id: number;
  /** Writes since the row was made: a check clears it only at the version it read. */
  version: Generated<BigintColumn>;
}

/** `webhook_events`: the outbox, one row per event id (D40). */
export interface WebhookEventsTable {
  id: string;
  account_id: number;
  type: string;
  /** The device the event is about (payload: the outbox is not a per-device table). */
  about_device_id: number | null;
  /** For a silence event, the report it follows (D40). */
  cause: NullableTimestampColumn;
  body: string;
  raised_at: TimestampColumn;
}

/** `webhook_deliveries`: one event to one endpoint, with the claim of the sender holding it (D41). */
export interface WebhookDeliveriesTable {
  id: Generated<BigintColumn>;
  event_id: string;
  endpoint_id: number;
  state: string;
  attempts: Generated<number>;
  next_attempt_at: NullableTimestampColumn;
  claimant: string | null;
  claimed_until: NullableTimestampColumn;
  created_at: TimestampColumn;
}

/** `webhook_attempts`: every attempt to deliver an event (D41). */
export interface WebhookAttemptsTable {
  id: Generated<BigintColumn>;
  delivery_id: BigintColumn;
  event_id: string;
  event_type: string;
  endpoint_id: number;
  attempted_at: TimestampColumn;
  status: number | null;
  duration_ms: number;
  error: string | null;
}

/** `account_event_settings`: an account's quiet time before an active device is silent (D40). */
export interface AccountEventSettingsTable {
  account_id: number;
  silent_after_seconds: number;
}

/** `rate_limit_counters`: fixed-window counters shared by every server instance (D13, D15). Unlogged. */
export interface RateLimitCountersTable {
  key: string;
  window_start: TimestampColumn;
  window_end: TimestampColumn;
  request_count: number;
}

/** `idempotency_keys`: the keys of idempotent POSTs by account (D53, P84, P85); the response columns are null while the request runs. */
export interface IdempotencyKeysTable {
  account_id: number;
  key: string;
  fingerprint: string;
  claim_id: string;
  created_at: TimestampColumn;
  response_status: number | null;
  response_headers: Readonly<Record<string, string>> | null;
  response_body: string | null;
}

/** `audit_entries`: the change log of every account (D55), one row per change, never updated. */
export interface AuditEntriesTable {
  id: Generated<BigintColumn>;
  account_id: number;
  at: TimestampColumn;
  actor_kind: 'api_key' | 'cli';
  actor_label: string | null;
  actor_fingerprint_prefix: string | null;
  request_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  /** The JSON text of the changed fields (`json`: read back as text). */
  changes: string;
}

/** `account_work_calendars`: each account's default work calendar (D58, P112). */
export interface AccountWorkCalendarsTable {
  account_id: number;
  /** The calendar's JSON text (`json`: read back as text); `null` once removed. */
  body: string | null;
  /** How many times the default was set or removed. */
  version: number;
}

/** `device_work_calendars`: each device's own work calendar (D58, P112), with the device's account. */
export interface DeviceWorkCalendarsTable {
  device_id: number;
  account_id: number;
  /** The calendar's JSON text (`json`: read back as text); `null` once removed. */
  body: string | null;
  /** How many times the device's own calendar was set or removed. */
  version: number;
}

/** `aemp_sources`: the AEMP sources of the accounts (D65, P132), each with its secret and its claim (P134). */
export interface AempSourcesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  url: string;
  /** The kind and the fields that are not secret, as JSON text. */
  auth: string;
  auth_secret: string;
  poll_every_seconds: number;
  min_interval_per_url_seconds: number;
  enabled: boolean;
  version: number;
  created_at: Date;
  updated_at: Date;
  next_poll_at: Date;
  claimed_by: string | null;
  claimed_until: Date | null;
}

/** `aemp_polls`: the record of each poll (D66, P135), as JSON text. */
export interface AempPollsTable {
  id: Generated<string>;
  source_id: number;
  started_at: Date;
  finished_at: Date;
  record: string;
}

/**
 * The Kysely table types of the Fleet Hours schema, as `migrateToLatest` creates it.
 *
 * @example
 * ```ts
 * import type { FleetHoursDatabase } from '@fleet-hours/storage-kysely';
 * import type { Kysely } from 'kysely';
 * async function deviceCount(db: Kysely<FleetHoursDatabase>) {
 *   return db.selectFrom('devices').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
 * }
 * ```
 */
export interface FleetHoursDatabase {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  devices: DevicesTable;
  device_tags: DeviceTagsTable;
  device_states: DeviceStatesTable;
  device_positions: DevicePositionsTable;
  engine_segments: EngineSegmentsTable;
  engine_day_figures: EngineDayFiguresTable;
  telemetry_points: TelemetryPointsTable;
  ingest_tokens: IngestTokensTable;
  rate_limit_counters: RateLimitCountersTable;
  hour_meter_readings: HourMeterReadingsTable;
  service_schedules: ServiceSchedulesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  event_checks: EventChecksTable;
  service_memos: ServiceMemosTable;
  telemetry_horizon: TelemetryHorizonTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  account_event_settings: AccountEventSettingsTable;
  idempotency_keys: IdempotencyKeysTable;
  audit_entries: AuditEntriesTable;
  account_work_calendars: AccountWorkCalendarsTable;
  device_work_calendars: DeviceWorkCalendarsTable;
  aemp_sources: AempSourcesTable;
  aemp_polls: AempPollsTable;
}
