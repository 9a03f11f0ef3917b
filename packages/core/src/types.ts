/**
 * Domain types shared by every Fleet Hours package.
 *
 * Instants are whole epoch seconds ({@link EpochSeconds}); local dates are `YYYY-MM-DD` strings or
 * `Temporal.PlainDate`. Nothing here carries a `Date`.
 *
 * @module
 */

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
export interface ApiKeyRecord extends StoredCredential {}

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
}

/** The fields of a device that can change. */
export interface DeviceChanges {
  readonly name?: string;
  readonly registration?: string | null;
  readonly model?: string;
  readonly status?: string;
  readonly timeZone?: string;
}

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
