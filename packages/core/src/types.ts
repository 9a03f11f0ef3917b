/**
 * Domain types shared by every Fleet Hours package.
 *
 * Instants are whole epoch seconds ({@link EpochSeconds}); local dates are `YYYY-MM-DD` strings or
 * `Temporal.PlainDate`. Nothing here carries a `Date`.
 *
 * @module
 */

import type { ApiKeyScope } from './access/api-key.js';

/**
 * An instant as whole seconds since 1970-01-01T00:00:00Z, within the years 0001 to 9999: the unit
 * of every instant in these types and in the storage port. Never milliseconds: `Date.now()` is
 * milliseconds (`Math.floor(Date.now() / 1000)` is seconds). Stores refuse a value outside that
 * range with a RangeError saying when it looks like milliseconds (`assertEpochSeconds`).
 */
export type EpochSeconds = number;

/** What the engine was doing during a segment (D1). */
export type SegmentState = 'moving' | 'idle';

/** The states a segment can have, in a stable order. */
export const SEGMENT_STATES: readonly SegmentState[] = ['moving', 'idle'];

/**
 * A stored stretch of engine time (D1). Segments of one device never overlap.
 * `endedAt` is `null` while the engine is still running; such a segment counts up to *now*.
 */
export interface EngineSegment {
  readonly deviceId: number;
  /** Epoch seconds, inclusive. */
  readonly startedAt: EpochSeconds;
  /** Epoch seconds, exclusive; `null` while the engine still runs. */
  readonly endedAt: EpochSeconds | null;
  readonly state: SegmentState;
}

/** A segment as it arrives for import, before it belongs to a device. */
export interface SegmentInput {
  /** Epoch seconds, inclusive. */
  readonly startedAt: EpochSeconds;
  /** Epoch seconds, exclusive; `null` while the engine still runs. */
  readonly endedAt: EpochSeconds | null;
  readonly state: SegmentState;
}

/** An account: the owner of devices and API keys (D12). */
export interface Account {
  readonly id: number;
  readonly name: string;
  /** `business` includes API access; other plans (`starter`, …) do not. */
  readonly plan: string;
  /** Epoch seconds. */
  readonly createdAt: EpochSeconds;
}

/**
 * What API keys (D10) and ingest tokens (D24) store: one record and one lifecycle. The secret itself
 * is never stored, only its SHA-256 fingerprint.
 */
interface StoredCredential {
  readonly id: number;
  readonly accountId: number;
  /** Lower-case hex SHA-256 of the full secret. */
  readonly fingerprint: string;
  readonly label: string | null;
  /** Epoch seconds. */
  readonly createdAt: EpochSeconds;
  /** Epoch seconds; the credential answers 401 (`expired_api_key`, `expired_ingest_token`) from this instant on. */
  readonly expiresAt: EpochSeconds | null;
  /** Epoch seconds; set once the credential is revoked. */
  readonly revokedAt: EpochSeconds | null;
}

/** A stored API key. The secret itself is never stored, only its SHA-256 fingerprint (D10). */
export interface ApiKeyRecord extends StoredCredential {
  /** What the key may do (D51): `read`, or `manage` (reads and the write routes). */
  readonly scope: ApiKeyScope;
}

/** An API key found by fingerprint, with the account it belongs to. */
export interface ApiKeyLookup {
  readonly apiKey: ApiKeyRecord;
  readonly account: Account;
}

/** A tracked vehicle (one tracker record). */
export interface Device {
  readonly id: number;
  readonly accountId: number;
  readonly name: string;
  readonly imei: string;
  readonly registration: string | null;
  readonly model: string;
  readonly status: string;
  /** IANA zone name; every window and daily bucket of this device is resolved in it. */
  readonly timeZone: string;
  /** Epoch seconds of the latest data received; `null` before the first import (P6). */
  readonly lastReportedAt: EpochSeconds | null;
  /** D61: its tags, as given (at most 20, each 1–64 characters, unique, case-sensitive). */
  readonly tags: readonly string[];
  /** D63: the identity of the machine it is fitted to, each `null` when not given. */
  readonly oemName: string | null;
  readonly equipmentModel: string | null;
  readonly serialNumber: string | null;
  readonly pin: string | null;
}

/** What a new device is created with. */
export interface NewDevice {
  readonly accountId: number;
  readonly name: string;
  readonly imei: string;
  readonly registration?: string | null;
  readonly model: string;
  readonly status?: string;
  readonly timeZone: string;
  /** D61: none when not given. */
  readonly tags?: readonly string[];
  /** D63: `null` when not given. */
  readonly oemName?: string | null;
  readonly equipmentModel?: string | null;
  readonly serialNumber?: string | null;
  readonly pin?: string | null;
}

/**
 * The fields of a device that can change: those it is created with, but its account, each optional.
 * D61: `tags` is the whole list of tags (replacing the device's).
 */
export interface DeviceChanges extends Partial<Omit<NewDevice, 'accountId'>> {}

/** Moving and idle seconds of one bucket; engine seconds are always their sum. */
export interface BucketSeconds {
  readonly movingSeconds: number;
  readonly idleSeconds: number;
}

/** Everything a store knows about a device's segments, for the meter (D3). */
export interface SegmentSummary extends BucketSeconds {
  /** Epoch seconds of the start of the first segment, `null` when there is none. */
  readonly firstStartedAt: EpochSeconds | null;
}

/** The three duration numbers; `engineSeconds === movingSeconds + idleSeconds` always. */
export interface EngineSeconds {
  readonly engineSeconds: number;
  readonly movingSeconds: number;
  readonly idleSeconds: number;
}

/** Totals over a window (`GET /hours`). `from` and `to` are D9 timestamps in the device zone. */
export interface HoursTotal extends EngineSeconds {
  readonly deviceId: number;
  readonly timeZone: string;
  readonly from: string;
  readonly to: string;
}

/** One local day of the daily series (D8). */
export interface DailyHoursEntry extends EngineSeconds {
  /** `YYYY-MM-DD` in the device zone. */
  readonly date: string;
  /** D59: the local day's true length in seconds (82,800, 86,400, 90,000, or the zone's odd lengths). */
  readonly daySeconds: number;
  /** D59: seconds of the day inside the windows of the device's calendar (its own, else its account's), up to now; 0 without one. */
  readonly scheduledSeconds: number;
  /** D59: engine seconds inside those windows. */
  readonly engineInScheduleSeconds: number;
  /** D59: engine seconds outside them; with the inside ones, `engineSeconds`. */
  readonly engineOutsideScheduleSeconds: number;
  /** D59, D9 timestamp: the first instant of the day with the engine on (the day's start for a run already on), or `null`. */
  readonly firstEngineOn: string | null;
  /** D59, D9 timestamp: the last instant the engine turned off that day (the next day's start for a run on at its end); `null` for none, or a run still on now. */
  readonly lastEngineOff: string | null;
}

/** The daily series over a window (`GET /hours/daily`, D8). */
export interface DailyHours {
  readonly deviceId: number;
  readonly timeZone: string;
  readonly from: string;
  readonly to: string;
  readonly days: readonly DailyHoursEntry[];
}

/** The running total since the tracker started reporting (D3). */
export interface MeterRecord extends EngineSeconds {
  readonly deviceId: number;
  readonly timeZone: string;
  /** D9 timestamp of the start of the first segment; `null` when the device has none. */
  readonly since: string | null;
  /** D9 timestamp of *now*. */
  readonly asOf: string;
  /** The machine's own hour meter at `asOf` (D38): the latest reading plus the engine seconds since it. */
  readonly hourMeterSeconds: number;
  /** D9 timestamp of the reading `hourMeterSeconds` counts from; `null` when the device has no reading (uncalibrated: then it equals `engineSeconds`). */
  readonly hourMeterReadAt: string | null;
}

/** A reading of a machine's own hour meter, recorded by an operator (D38). */
export interface HourMeterReading {
  readonly id: number;
  readonly deviceId: number;
  /** Epoch seconds: when the hour meter showed `readingSeconds`. */
  readonly readAt: EpochSeconds;
  /** What the hour meter showed, in whole seconds (≥ 0). */
  readonly readingSeconds: number;
  /** Epoch seconds: when the reading was recorded. */
  readonly recordedAt: EpochSeconds;
  /** Who gave it (D65): absent for a person's (`manual`), `aemp:{id}` for an AEMP source's. */
  readonly source?: string;
  /** The idle seconds its source gave with it (D64, P156): absent for a person's and where the source gave none. */
  readonly idleSeconds?: number;
}

/**
 * A service schedule of a device (D39), as stored: an interval of engine time and, optionally, of
 * calendar days (whichever comes first), due-soon margins, and the last service.
 */
export interface ServiceSchedule {
  readonly id: number;
  readonly deviceId: number;
  readonly name: string;
  /** Hour-meter seconds between services (> 0). */
  readonly intervalSeconds: number;
  /** Calendar days between services (> 0), or `null` for none. */
  readonly intervalDays: number | null;
  /** The due-soon margin in hour-meter seconds; `null`: a tenth of the interval (D39). */
  readonly dueSoonSeconds: number | null;
  /** The due-soon margin in days; `null`: a tenth of the calendar interval, at least 1 (D39). */
  readonly dueSoonDays: number | null;
  /** Epoch seconds of the last service (at creation: given, or the creation instant). */
  readonly lastDoneAt: EpochSeconds;
  /**
   * The hour meter at the last service as the operator gave it; `null`: the hour meter at
   * `lastDoneAt`, computed at every read from the readings and segments (D38, D39).
   */
  readonly lastDoneHourMeterSeconds: number | null;
  /** Epoch seconds. */
  readonly createdAt: EpochSeconds;
}

/** What a new service schedule is created with (D39); see {@link ServiceSchedule} for each field. */
export interface NewServiceSchedule {
  readonly deviceId: number;
  readonly name: string;
  readonly intervalSeconds: number;
  readonly intervalDays?: number | null;
  readonly dueSoonSeconds?: number | null;
  readonly dueSoonDays?: number | null;
  readonly lastDoneAt: EpochSeconds;
  readonly lastDoneHourMeterSeconds?: number | null;
}

/** The fields of a service schedule that can change; recording a service sets `lastDoneAt` (and `lastDoneHourMeterSeconds: null`). */
export interface ServiceScheduleChanges {
  readonly name?: string;
  readonly intervalSeconds?: number;
  readonly intervalDays?: number | null;
  readonly dueSoonSeconds?: number | null;
  readonly dueSoonDays?: number | null;
  readonly lastDoneAt?: EpochSeconds;
  readonly lastDoneHourMeterSeconds?: number | null;
}

/** Where a schedule stands (D39): `overdue` when either interval has run out, else `due_soon` within either margin, else `ok`. */
export type ServiceStatus = 'ok' | 'due_soon' | 'overdue';

/** The statuses of a schedule, from best to worst. */
export const SERVICE_STATUSES: readonly ServiceStatus[] = ['ok', 'due_soon', 'overdue'];

/** One schedule as the service endpoint shows it (D39); instants are D9 timestamps, dates `YYYY-MM-DD` in the device zone. */
export interface ServiceScheduleState {
  readonly id: number;
  readonly name: string;
  readonly intervalSeconds: number;
  readonly intervalDays: number | null;
  readonly dueSoonSeconds: number;
  readonly dueSoonDays: number | null;
  readonly lastDoneAt: string;
  readonly lastDoneHourMeterSeconds: number;
  readonly dueHourMeterSeconds: number;
  readonly dueDate: string | null;
  readonly remainingSeconds: number;
  readonly remainingDays: number | null;
  readonly status: ServiceStatus;
  /** D54 (P101): the schedule's version, as its writes answer it and compare `If-Match` with. */
  readonly version: string;
}

/** A device's service schedules at *now* (`GET /devices/{id}/service`, D39). */
export interface DeviceService {
  readonly deviceId: number;
  readonly timeZone: string;
  /** D9 timestamp of *now*. */
  readonly asOf: string;
  readonly hourMeterSeconds: number;
  /** The schedules by ascending id. */
  readonly schedules: readonly ServiceScheduleState[];
}

/** What an import did (D1). */
export interface ImportSummary {
  /** New segments written. */
  readonly inserted: number;
  /** Stored open segments closed by an import of the same segment with its end. */
  readonly closed: number;
  /** Segments identical to stored ones (or repeated in the batch), skipped. */
  readonly skipped: number;
}

/** Where a stored segment came from (D23): an import of segments (D1), or derived from telemetry points (D20). */
export type SegmentSource = 'import' | 'telemetry';

/**
 * A stored ingest token (D24): a secret made like an API key (prefix `fhi_`) that writes the
 * telemetry of one account's devices and reads nothing. Only its SHA-256 fingerprint is stored.
 */
export interface IngestTokenRecord extends StoredCredential {}

/** An ingest token found by fingerprint, with the account it belongs to. */
export interface IngestTokenLookup {
  readonly ingestToken: IngestTokenRecord;
  readonly account: Account;
}

/**
 * One telemetry point of a write (D20, D25), naming its device by id or by IMEI (exactly one of
 * the two). `time` is whole epoch seconds (parse wire points with `parseTelemetryPoint`, which
 * floors a fraction).
 */
export type DeviceTelemetryPoint = {
  /** Epoch seconds, whole. */
  readonly time: EpochSeconds;
  /** Engine on. */
  readonly ignition: boolean;
  /** Speed in km/h, ≥ 0. */
  readonly speedKmh: number;
  /** Issue 34: optional position, degrees (−90…90), with `longitude`. */
  readonly latitude?: number;
  /** Degrees (−180…180), with `latitude`. */
  readonly longitude?: number;
} & ({ readonly deviceId: number; readonly imei?: undefined } | { readonly imei: string; readonly deviceId?: undefined });

/** What a telemetry write did (`docs/ingestion.md`). */
export interface TelemetryWriteResult {
  /** Points that were new or changed a stored point (D21). */
  readonly accepted: number;
  /** Points equal to a stored point (or below it in both fields): nothing changed. */
  readonly duplicates: number;
  /**
   * Every device the batch named, by id ascending: its IMEI and zone, its `lastReportedAt` after
   * the write (D26), and its share of `accepted` and `duplicates`. A caller can show the instant in
   * the device's zone (D9), and answer each of several writers whose points shared one batch,
   * without reading the device again.
   */
  readonly devices: readonly TelemetryWriteDevice[];
}

/** One device of a {@link TelemetryWriteResult}. */
export interface TelemetryWriteDevice {
  readonly deviceId: number;
  readonly imei: string;
  readonly timeZone: string;
  readonly lastReportedAt: EpochSeconds | null;
  /** The device's points that were new or changed a stored point (D21). */
  readonly accepted: number;
  /** The device's points equal to a stored point. */
  readonly duplicates: number;
}
