/**
 * What the HTTP layer adds to each row of core's `MANAGE_ENDPOINTS` (the write routes, D52): the
 * handler that answers it and its operation in the OpenAPI document. The app registers one route
 * per row (`create-fleet-hours-app.ts`), the document describes one operation per row
 * (`openapi-manage.ts`), and the compiler refuses a row of core's table that has no entry here.
 * The method, the policy (a `manage` key, the key's budget of writes) are the core row's.
 */
import type { FleetHours } from '@fleet-hours/core';
import { MANAGE_ENDPOINTS, ROUTE_POLICIES, type ManageEndpoint } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { honoPath } from './api-routes.js';
import type { ApiEndpoint } from './read-endpoints.js';
import { createDeviceRoute, updateDeviceRoute } from './device-writes.js';
import { listAuditRoute } from './audit.js';
import {
  addHourMeterReadingRoute,
  createServiceScheduleRoute,
  listHourMeterReadingsRoute,
  recordServiceDoneRoute,
  removeHourMeterReadingRoute,
  removeServiceScheduleRoute,
  updateServiceScheduleRoute,
} from './maintenance-writes.js';

type ManageEndpointRow = (typeof MANAGE_ENDPOINTS)[number];

/** The operation of a write route in the OpenAPI document; its path, method and limit come from its core row. */
export interface ManageOpenApiOperation {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tag: 'Devices' | 'Service' | 'Audit';
  /** The schema of the request body, in `components.schemas`; absent: the route reads no body. */
  readonly requestSchema?: string;
  /** Whether the body may be left out (a service done now). */
  readonly optionalBody?: boolean;
  /** The schema of the answer's body, in `components.schemas`; absent for a 204. */
  readonly schema?: string;
  /** The status of a success: 201 for a creation, 204 for a removal. */
  readonly status: 200 | 201 | 204;
  /** Parameters besides the device id, in `components.parameters` (path ids, `If-Match`, paging). */
  readonly parameters?: readonly string[];
  /** The 409 of the route, in `components.responses`; absent: none. */
  readonly conflict?: string;
  /** What a success answers, for the document. */
  readonly answer?: string;
}

/** The HTTP side of one write route. */
interface _HttpManageEndpoint {
  readonly handler: (options: { readonly fleetHours: FleetHours }) => Handler<FleetHoursEnv>;
  readonly openApi: ManageOpenApiOperation;
}

/** Every write route, by its name in core's table. */
const HTTP_MANAGE_ENDPOINTS: { readonly [Row in ManageEndpointRow as Row['name']]: _HttpManageEndpoint } = {
  createDevice: {
    handler: createDeviceRoute,
    openApi: {
      operationId: 'createDevice',
      summary: 'Create a vehicle',
      description:
        'A new device of the account. `name`, `imei`, `model` and `timezone` are needed; `registration` and `status` (`active` by default) are optional. The answer is the device, with its URL in `Location`. An IMEI that already names an active device of the account is 409 `conflict`.',
      tag: 'Devices',
      requestSchema: 'DeviceCreate',
      schema: 'Device',
      status: 201,
    },
  },
  updateDevice: {
    handler: updateDeviceRoute,
    openApi: {
      operationId: 'updateDevice',
      summary: 'Change a vehicle',
      description:
        'Changes the fields given, at least one; the others stay. `status` is `active` or `inactive`: an inactive device frees its IMEI. A device of another account is 404, as a missing one. A change that would give two active devices of the account one IMEI is 409 `conflict`.',
      tag: 'Devices',
      requestSchema: 'DeviceChange',
      schema: 'Device',
      status: 200,
    },
  },
  listAudit: {
    handler: listAuditRoute,
    openApi: {
      operationId: 'listAudit',
      summary: 'List the changes',
      description:
        'Every change made to the account by the API or the operator CLI, newest first, a page at a time: when, by which key (its label and the first 8 characters of its fingerprint) or `cli`, under which request (`X-Request-Id`), the action, the resource, and each field changed as `[before, after]`. Secrets are written as `"[redacted]"`. Pass `next_cursor` back as `cursor` until it is null.',
      tag: 'Audit',
      schema: 'AuditPage',
      status: 200,
    },
  },
  // Hour-meter readings, service schedules and services done (D38, D39, D52, P76).
  listHourMeterReadings: {
    handler: listHourMeterReadingsRoute,
    openApi: {
      operationId: 'listHourMeterReadings',
      summary: "A vehicle's hour-meter readings",
      description:
        "The readings of the machine's own hour meter recorded for the device, newest first, a page at a time (`limit` 1–500, default 100; `cursor` the `next_cursor` of the page before).",
      tag: 'Service',
      schema: 'HourMeterReadingPage',
      status: 200,
      parameters: ['ReadingLimit', 'ReadingCursor'],
      answer: 'OK: a page of readings',
    },
  },
  addHourMeterReading: {
    handler: addHourMeterReadingRoute,
    openApi: {
      operationId: 'addHourMeterReading',
      summary: 'Record an hour-meter reading',
      description:
        "What the machine's hour meter showed (`reading_seconds`) at an instant (`read_at`, default now; not in the future). A reading at the same instant is replaced (same id). The hour meter counts from the latest reading at or before each instant, so a reading for the past re-bases everything after it. The answer is the reading with the hour meter it gives now.",
      tag: 'Service',
      requestSchema: 'HourMeterReadingCreate',
      schema: 'HourMeterReadingRecorded',
      status: 201,
      answer: 'Created: the reading and the hour meter now, its URL in `Location`',
    },
  },
  removeHourMeterReading: {
    handler: removeHourMeterReadingRoute,
    openApi: {
      operationId: 'removeHourMeterReading',
      summary: 'Remove an hour-meter reading',
      description: 'A reading of another device or of another account is 404, as a missing device.',
      tag: 'Service',
      status: 204,
      parameters: ['ReadingId', 'IfMatch'],
      answer: 'Removed',
    },
  },
  createServiceSchedule: {
    handler: createServiceScheduleRoute,
    openApi: {
      operationId: 'createServiceSchedule',
      summary: 'Create a service schedule',
      description:
        'A schedule of engine time (`interval_seconds` of hour meter) and optionally calendar days (`interval_days`), whichever comes first, with due-soon margins (default a tenth of each interval). Without `last_done_at` the last service is now, at the hour meter now. A name the device already has is 409 `conflict`. The answer is the schedule as `/service` shows it.',
      tag: 'Service',
      requestSchema: 'ServiceScheduleCreate',
      schema: 'ServiceScheduleWritten',
      status: 201,
      conflict: 'ScheduleConflict',
      answer: 'Created: the schedule, its URL in `Location`',
    },
  },
  updateServiceSchedule: {
    handler: updateServiceScheduleRoute,
    openApi: {
      operationId: 'updateServiceSchedule',
      summary: 'Change a service schedule',
      description:
        'Changes the fields given, at least one; the others stay. `null` removes the calendar interval (and its margin) or returns a margin to its default. A name another schedule of the device has is 409 `conflict`.',
      tag: 'Service',
      requestSchema: 'ServiceScheduleChange',
      schema: 'ServiceScheduleWritten',
      status: 200,
      parameters: ['ScheduleId', 'IfMatch'],
      conflict: 'ScheduleConflict',
      answer: 'OK: the schedule',
    },
  },
  removeServiceSchedule: {
    handler: removeServiceScheduleRoute,
    openApi: {
      operationId: 'removeServiceSchedule',
      summary: 'Remove a service schedule',
      description: 'A schedule of another device or of another account is 404, as a missing device.',
      tag: 'Service',
      status: 204,
      parameters: ['ScheduleId', 'IfMatch'],
      answer: 'Removed',
    },
  },
  recordServiceDone: {
    handler: recordServiceDoneRoute,
    openApi: {
      operationId: 'recordServiceDone',
      summary: 'Record a service done',
      description:
        "The schedule's last service becomes `done_at` (default now; not in the future), at the hour meter of then; `hour_meter_seconds`, when given, is recorded as a reading at `done_at` first. The body may be left out.",
      tag: 'Service',
      requestSchema: 'ServiceDone',
      optionalBody: true,
      schema: 'ServiceScheduleWritten',
      status: 200,
      parameters: ['ScheduleId'],
      answer: 'OK: the schedule after the service',
    },
  },
};

/** A write route as the app and the document use it: its core row (name, method, template) with its HTTP side. */
export type ManageApiEndpoint = Omit<ApiEndpoint, 'endpoint' | 'openApi'> & {
  readonly endpoint: ManageEndpoint;
  readonly openApi: ManageOpenApiOperation;
};

/** Every write route, in the order of core's `MANAGE_ENDPOINTS`. */
export const MANAGE_API_ENDPOINTS: readonly ManageApiEndpoint[] = MANAGE_ENDPOINTS.map((endpoint): ManageApiEndpoint => {
  const http = HTTP_MANAGE_ENDPOINTS[endpoint.name];
  return {
    endpoint,
    policy: ROUTE_POLICIES[endpoint.name],
    honoPath: honoPath(endpoint.template),
    openApi: http.openApi,
    handler: (fleetHours) => http.handler({ fleetHours }),
  };
});
