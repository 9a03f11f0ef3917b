/**
 * The lists of the API that also answer CSV (D62), by the name of their route in `READ_ENDPOINTS`
 * or `MANAGE_ENDPOINTS`: what an entry is and its columns. A route named here answers
 * `Accept: text/csv`; every other route answers 406 to a request that accepts CSV and not JSON
 * (P116). Adding a list is one row here.
 */
import type { ManageEndpointName, ReadEndpointName } from '../access/read-endpoints.js';
import { SERVICE_SCHEDULE_BODY_FIELDS } from '../events/service-schedule-body.js';

/** One list that answers CSV (D62). */
export interface CsvList {
  /**
   * Where the entries are: `'list'`, the answer's `data` array (a page, or the whole list); `'entry'`,
   * the answer itself is the one entry (a device's daily series, whose days are its `unwind`).
   */
  readonly answer: 'list' | 'entry';
  /**
   * The header: the JSON field names of an entry in the order the JSON answer has them; a field of
   * an object in it as `object.field` (`actor.kind`). A field holding an array or a free-form map
   * (`tags`, `changes`) is one column, written as JSON text (P115).
   */
  readonly columns: readonly string[];
  /** The field of an entry that holds a list of its own (`data`): one row per element, the entry's fields on each (D62). */
  readonly unwind?: string;
  /** The file name's subject, `fleet-hours-<file>-<date>.csv`; `{id}` is the id of the route's path (P117). */
  readonly file: string;
  /**
   * P143: a query parameter whose value gives the entries another shape (`by=tag` of the fleet's
   * utilization): the list of each such value; any other value, or none, is this list.
   */
  readonly variants?: { readonly parameter: string; readonly lists: { readonly [value: string]: CsvList } };
}

const _DAILY = [
  'device_id',
  'timezone',
  'from',
  'to',
  'data.date',
  'data.engine_seconds',
  'data.moving_seconds',
  'data.idle_seconds',
  'data.day_seconds',
  'data.scheduled_seconds',
  'data.engine_in_schedule_seconds',
  'data.engine_outside_schedule_seconds',
  'data.first_engine_on',
  'data.last_engine_off',
] as const;

const _SERVICE = [
  'device_id',
  'timezone',
  'as_of',
  'hour_meter_seconds',
  ...SERVICE_SCHEDULE_BODY_FIELDS.map((field) => `data.${field}`),
] as const;

/** The fields of a utilization period (D60), under `data`. */
const _PERIOD = [
  'period',
  'from',
  'to',
  'engine_seconds',
  'moving_seconds',
  'idle_seconds',
  'scheduled_seconds',
  'engine_in_schedule_seconds',
  'engine_outside_schedule_seconds',
  'days_used',
  'utilization',
  'idle_share',
].map((field) => `data.${field}`);

/** P143: a device's utilization, one row per period; also each device of the fleet's. */
const _UTILIZATION = ['device_id', 'timezone', 'from', 'to', 'group_by', ..._PERIOD] as const;

/** Every list of the API that answers CSV (D62), by route name. */
export const CSV_LISTS = {
  devices: {
    answer: 'list',
    file: 'devices',
    columns: [
      'id',
      'name',
      'imei',
      'registration',
      'model',
      'status',
      'timezone',
      'last_reported_at',
      'tags',
      'oem_name',
      'equipment_model',
      'serial_number',
      'pin',
      'position.latitude',
      'position.longitude',
      'position.at',
      'version',
    ],
  },
  daily: { answer: 'entry', file: 'device-{id}-daily', columns: _DAILY, unwind: 'data' },
  fleetHours: {
    answer: 'list',
    file: 'hours',
    columns: ['device_id', 'from', 'to', 'timezone', 'engine_seconds', 'moving_seconds', 'idle_seconds'],
  },
  fleetDaily: { answer: 'list', file: 'daily', columns: _DAILY, unwind: 'data' },
  fleetMeter: {
    answer: 'list',
    file: 'meter',
    columns: [
      'device_id',
      'timezone',
      'since',
      'as_of',
      'engine_seconds',
      'moving_seconds',
      'idle_seconds',
      'hour_meter_seconds',
      'hour_meter_read_at',
    ],
  },
  utilization: { answer: 'entry', file: 'device-{id}-utilization', columns: _UTILIZATION, unwind: 'data' },
  fleetUtilization: {
    answer: 'list',
    file: 'utilization',
    columns: _UTILIZATION,
    unwind: 'data',
    // P143: `by=tag`, one row per tag per period.
    variants: {
      parameter: 'by',
      lists: {
        tag: { answer: 'list', file: 'utilization-by-tag', columns: ['tag', 'device_count', 'group_by', ..._PERIOD], unwind: 'data' },
      },
    },
  },
  service: { answer: 'entry', file: 'device-{id}-service', columns: _SERVICE, unwind: 'data' },
  fleetService: { answer: 'list', file: 'service', columns: _SERVICE, unwind: 'data' },
  listAudit: {
    answer: 'list',
    file: 'audit',
    columns: [
      'id',
      'at',
      'actor.kind',
      'actor.label',
      'actor.fingerprint_prefix',
      'request_id',
      'action',
      'resource.type',
      'resource.id',
      'changes',
    ],
  },
  listHourMeterReadings: {
    answer: 'list',
    file: 'device-{id}-hour-meter-readings',
    columns: ['id', 'device_id', 'read_at', 'reading_seconds', 'source', 'recorded_at', 'version'],
  },
  listWebhooks: {
    answer: 'list',
    file: 'webhooks',
    columns: [
      'id',
      'url',
      'event_types',
      'enabled',
      'description',
      'disabled_reason',
      'disabled_at',
      'failing_since',
      'previous_secret_expires_at',
      'created_at',
      'version',
    ],
  },
  listWebhookDeliveries: {
    answer: 'list',
    file: 'webhook-{id}-deliveries',
    columns: ['id', 'event_id', 'event_type', 'attempted_at', 'status', 'duration_ms', 'error'],
  },
  listIngestTokens: {
    answer: 'list',
    file: 'ingest-tokens',
    columns: ['id', 'label', 'fingerprint_prefix', 'state', 'created_at', 'expires_at', 'revoked_at', 'version'],
  },
  // AEMP sources (P133): the fields of `aempSourceBody`, never a secret; their polls (P135).
  listAempSources: {
    answer: 'list',
    file: 'aemp-sources',
    columns: [
      'id',
      'name',
      'url',
      'auth.kind',
      'auth.username',
      'auth.token_url',
      'auth.client_id',
      'auth.scope',
      'auth.has_secret',
      'poll_every_seconds',
      'min_interval_per_url_seconds',
      'enabled',
      'next_poll_at',
      'created_at',
      'updated_at',
      'version',
    ],
  },
  listAempPolls: {
    answer: 'list',
    file: 'aemp-source-{id}-polls',
    columns: [
      'id',
      'source_id',
      'started_at',
      'finished_at',
      'pages',
      'equipment_seen',
      'matched',
      'unmatched',
      'readings_stored',
      'readings_refused',
      'error.status',
      'error.message',
    ],
  },
} as const satisfies { readonly [Name in ReadEndpointName | ManageEndpointName]?: CsvList };

/** The name of a route whose list answers CSV: `devices`, `fleetDaily`, `listAudit`, … */
export type CsvListName = keyof typeof CSV_LISTS;

/**
 * The list of a route, when it answers CSV (D62).
 *
 * @param name The route's name in `READ_ENDPOINTS` or `MANAGE_ENDPOINTS`.
 * @returns Its row of {@link CSV_LISTS}, or `undefined` for a route that answers JSON only.
 */
export function csvList(name: string): CsvList | undefined {
  return Object.hasOwn(CSV_LISTS, name) ? CSV_LISTS[name as CsvListName] : undefined;
}

/**
 * The list a request reads (P143): the list's variant for the value of its parameter, else the list.
 *
 * @param list The route's list.
 * @param value The value of the request's query parameter that `variants` names, if any.
 * @returns The list whose columns the answer has.
 */
export function csvListVariant(list: CsvList, value: string | undefined): CsvList {
  const lists = list.variants?.lists;
  return value !== undefined && lists !== undefined && Object.hasOwn(lists, value) ? lists[value]! : list;
}

/**
 * The file name of a CSV export (P117): `fleet-hours-<file>-<date>.csv`, `{id}` in the list's
 * `file` replaced by the path's id (only letters, digits, `-` and `_` kept), `date` the day of the
 * export (the caller's clock).
 *
 * @param list The list.
 * @param date The export's date, `YYYY-MM-DD`.
 * @param id The id in the route's path, for a list of one device or endpoint.
 * @returns The file name, e.g. `fleet-hours-daily-2026-11-01.csv`.
 * @example
 * ```ts
 * import { CSV_LISTS, csvFileName } from '@fleet-hours/core';
 * csvFileName(CSV_LISTS.daily, '2026-11-01', '7'); // 'fleet-hours-device-7-daily-2026-11-01.csv'
 * ```
 */
export function csvFileName(list: CsvList, date: string, id = ''): string {
  return `fleet-hours-${list.file.replace('{id}', id.replace(/[^A-Za-z0-9_-]/g, ''))}-${date}.csv`;
}
