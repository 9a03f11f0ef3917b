/**
 * What the HTTP layer adds to each row of core's `READ_ENDPOINTS`: the handler that answers it and
 * its operation in the OpenAPI document. The app registers one route per row
 * (`create-fleet-hours-app.ts`), the document describes one path per row (`openapi-document.ts`),
 * and the compiler refuses a row of core's table that has no entry here. The policy, the rate
 * limit, the page sizes and the cursor of each endpoint are its core row's.
 */
import type { FleetHours } from '@fleet-hours/core';
import { READ_ENDPOINTS, ROUTE_POLICIES, type ReadEndpoint, type RoutePolicy } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { honoPath } from './api-routes.js';
import { dailyRoute } from './daily.js';
import { fleetDailyRoute } from './fleet-daily.js';
import { fleetHoursRoute } from './fleet-hours.js';
import { fleetMeterRoute } from './fleet-meter.js';
import { fleetServiceRoute } from './fleet-service.js';
import { hoursRoute } from './hours.js';
import { listDevicesRoute } from './list-devices.js';
import { meterRoute } from './meter.js';
import { presentedKeyRoute } from './presented-key.js';
import { serviceRoute } from './service.js';
import { aempEquipmentRoute, aempFleetRoute, aempSeriesRoute } from './aemp-routes.js';
import { fleetUtilizationRoute, utilizationRoute } from './utilization.js';

type ReadEndpointRow = (typeof READ_ENDPOINTS)[number];

/** What the OpenAPI document says of every operation, read or write, in words: its id, summary, description and tag. */
export interface OperationWords<Tag extends string> {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tag: Tag;
}

/** The operation of an endpoint in the OpenAPI document; its path, limit, page and device parameters come from its core row. */
export interface OpenApiOperation extends OperationWords<'Devices' | 'Hours' | 'Service' | 'Fleet' | 'Keys' | 'AEMP'> {
  /** The schema of the 200 body, in `components.schemas`. */
  readonly schema: string;
  /** Whether it takes the window `from` and `to` (D4–D7). */
  readonly withWindow: boolean;
  /** Query parameters of its own, after the window and page ones, by name in `components.parameters`. */
  readonly parameters?: readonly string[];
  /** D64: an AEMP document, XML by default and JSON on request; its path parameters other than `{id}`, by name in `components.parameters`. */
  readonly aemp?: { readonly pathParameters: readonly string[] };
}

/** The HTTP side of one endpoint. */
export interface HttpEndpoint<Row extends ReadEndpoint = ReadEndpoint> {
  /** Builds the handler, given the service, the endpoint's core row (its page sizes and cursor, for a fleet endpoint) and the app's clock. */
  readonly handler: (options: {
    readonly fleetHours: FleetHours;
    readonly endpoint: Row;
    readonly now: () => number;
  }) => Handler<FleetHoursEnv>;
  readonly openApi: OpenApiOperation;
}

/** The AEMP operations' shared sentence (D64). */
const AEMP_FORMAT =
  'XML by default (namespace `http://www.jcmanet.or.jp/english2017/ISO/15143/-3/20190501`, `version="20190501"`); JSON, with the same names as keys, when `Accept` names `application/json` or `application/iso15143-snapshot+json`. Datetimes are UTC with `Z`; hours are decimal with 6 places, so `round(Hour × 3600)` gives the seconds back.';

/** The fleet operations' shared sentence (D32). */
const PAGED =
  'a page at a time, devices by ascending id: each element of `data` is exactly the body that endpoint returns for that device.';

/** Every endpoint of the read API, by its name in core's table. */
const HTTP_ENDPOINTS: { readonly [Row in ReadEndpointRow as Row['name']]: HttpEndpoint<Row> } = {
  devices: {
    handler: listDevicesRoute,
    openApi: {
      operationId: 'listDevices',
      summary: 'List the vehicles of the account',
      description: 'Every device of the account, ordered by id; with `tag`, only the devices having that tag.',
      tag: 'Devices',
      schema: 'DeviceList',
      withWindow: false,
      parameters: ['Tag'],
    },
  },
  hours: {
    handler: hoursRoute,
    openApi: {
      operationId: 'getDeviceHours',
      summary: 'Engine, moving and idle seconds over a window',
      description:
        'Totals over the window `[from, to]` in local days of the vehicle. The window actually applied is returned in `from` and `to`.',
      tag: 'Hours',
      schema: 'HoursTotal',
      withWindow: true,
    },
  },
  daily: {
    handler: dailyRoute,
    openApi: {
      operationId: 'getDeviceDailyHours',
      summary: 'Engine, moving and idle seconds per local day',
      description:
        'One entry per local date of the window, ascending, days without engine time included as zeros; the entries add up to /hours for the same window, second for second. A 23- or 25-hour DST day is one entry with the seconds that really fall in it. Accepts the same `from` and `to` as /hours, with the same defaults.',
      tag: 'Hours',
      schema: 'DailyHours',
      withWindow: true,
    },
  },
  meter: {
    handler: meterRoute,
    openApi: {
      operationId: 'getDeviceMeter',
      summary: 'The running total since the tracker started reporting',
      description:
        'The sum of every segment of the device from its first report up to now. A replaced tracker is a new device with its own meter from 0.',
      tag: 'Hours',
      schema: 'Meter',
      withWindow: false,
    },
  },
  fleetHours: {
    handler: fleetHoursRoute,
    openApi: {
      operationId: 'getFleetHours',
      summary: 'Engine, moving and idle seconds over a window, for every vehicle',
      description: `\`/devices/{id}/hours\` for every device of the account, ${PAGED} \`from\` and \`to\` are local dates applied in each vehicle's own zone, with the same defaults, clamp and checks. A \`from\` after today in some vehicles' zones (no \`to\`) gives those vehicles an empty window — \`from\` the start of that date, \`to\` now, zero seconds — and is refused only when it is after today for every vehicle of the account. Pass \`next_cursor\` back as \`cursor\` for the next page; it is null on the last.`,
      tag: 'Fleet',
      schema: 'FleetHoursPage',
      withWindow: true,
      parameters: ['Tag'],
    },
  },
  fleetDaily: {
    handler: fleetDailyRoute,
    openApi: {
      operationId: 'getFleetDailyHours',
      summary: 'Engine, moving and idle seconds per local day, for every vehicle',
      description: `\`/devices/{id}/hours/daily\` for every device of the account, ${PAGED.slice(0, -1)}, one entry per local date of the vehicle's own zone. A vehicle whose today is before \`from\` (no \`to\`) has an empty window with no entries. Pages are smaller than on the other fleet endpoints: a year of days per vehicle is much data.`,
      tag: 'Fleet',
      schema: 'FleetDailyHoursPage',
      withWindow: true,
      parameters: ['Tag'],
    },
  },
  utilization: {
    handler: utilizationRoute,
    openApi: {
      operationId: 'getDeviceUtilization',
      summary: 'Utilization against the work calendar, by day, ISO week or month',
      description:
        "The daily series of the window grouped into periods: `group_by=day` (each local date), `week` (ISO weeks, Monday first, named by the year of their Thursday) or `month`. Each period has its first and last local date inside the window (periods cut by the window are partial), the sums of its days, `days_used` (days with engine time), `utilization` (engine seconds inside the calendar's windows over the scheduled seconds) and `idle_share` (idle over engine seconds), both null when their divisor is 0 and never rounded. Accepts the same `from` and `to` as /hours/daily.",
      tag: 'Hours',
      schema: 'Utilization',
      withWindow: true,
      parameters: ['GroupBy'],
    },
  },
  fleetUtilization: {
    handler: fleetUtilizationRoute,
    openApi: {
      operationId: 'getFleetUtilization',
      summary: 'Utilization of every vehicle, or of each tag',
      description: `With \`by=device\` (the default): \`/devices/{id}/utilization\` for every device of the account, ${PAGED} With \`by=tag\`: one element per tag of the devices in scope, in code-point order, with \`device_count\` and the days of its devices added up by period (a device with two tags counts in both; a device without tags in none); not paged: \`next_cursor\` is null.`,
      tag: 'Fleet',
      schema: 'FleetUtilizationPage',
      withWindow: true,
      parameters: ['GroupBy', 'UtilizationBy', 'Tag'],
    },
  },
  fleetMeter: {
    handler: fleetMeterRoute,
    openApi: {
      operationId: 'getFleetMeter',
      summary: 'The running totals of every vehicle',
      description: `\`/devices/{id}/meter\` for every device of the account, ${PAGED}`,
      tag: 'Fleet',
      schema: 'FleetMeterPage',
      withWindow: false,
      parameters: ['Tag'],
    },
  },
  service: {
    handler: serviceRoute,
    openApi: {
      operationId: 'getDeviceService',
      summary: 'The service schedules of a vehicle and where each stands',
      description:
        'Every service schedule of the device, by ascending id, at now: due at the last service plus the interval of engine time (`interval_seconds` of hour meter) or the calendar interval (`interval_days`), whichever comes first. Each value is computed at read time from the hour meter, so late telemetry and new readings are reflected at once. A device without schedules has an empty `data`.',
      tag: 'Service',
      schema: 'ServiceBody',
      withWindow: false,
    },
  },
  fleetService: {
    handler: fleetServiceRoute,
    openApi: {
      operationId: 'getFleetService',
      summary: 'The service schedules of every vehicle',
      description: `\`/devices/{id}/service\` for every device of the account, ${PAGED} With \`status\`, only the devices with at least one schedule in one of those statuses (each still with all its schedules): a page holds up to \`limit\` of them, and a page may hold fewer, even none, while \`next_cursor\` is not null.`,
      tag: 'Fleet',
      schema: 'FleetServicePage',
      withWindow: false,
      parameters: ['ServiceStatus', 'Tag'],
    },
  },
  key: {
    handler: presentedKeyRoute,
    openApi: {
      operationId: 'getPresentedKey',
      summary: 'The API key this request carries',
      description:
        'What the key sent in `Authorization` may do: its `scope` (`read`, or `manage` for the write routes), its label, the first characters of its fingerprint, when it expires, and its account. Never the key itself. A client learns from it which actions to offer.',
      tag: 'Keys',
      schema: 'PresentedKey',
      withWindow: false,
    },
  },
  aempFleet: {
    handler: aempFleetRoute,
    openApi: {
      operationId: 'getAempFleet',
      summary: 'The ISO 15143-3 (AEMP 2.0) snapshot of the fleet, a page at a time',
      description: `${AEMP_FORMAT} Equipment by ascending device id, 100 a page from page 1: \`Links\` name \`self\`, \`next\` (absent on the last page) and \`last\`; a page past the last is 404. Each equipment: its header (\`EquipmentID\` is the device's name), its newest \`Location\`, \`CumulativeOperatingHours\` (the hour meter), \`CumulativeIdleHours\` and \`EngineStatus\` at \`snapshotTime\`; an element without a value is absent.`,
      tag: 'AEMP',
      schema: 'AempFleet',
      withWindow: false,
      aemp: { pathParameters: ['AempPage'] },
    },
  },
  aempEquipment: {
    handler: aempEquipmentRoute,
    openApi: {
      operationId: 'getAempEquipment',
      summary: 'The ISO 15143-3 (AEMP 2.0) snapshot of one equipment',
      description: `${AEMP_FORMAT} The \`Fleet\` document with the device's one \`Equipment\` and a \`self\` link.`,
      tag: 'AEMP',
      schema: 'AempFleet',
      withWindow: false,
      aemp: { pathParameters: [] },
    },
  },
  aempSeries: {
    handler: aempSeriesRoute,
    openApi: {
      operationId: 'getAempSeries',
      summary: 'An ISO 15143-3 (AEMP 2.0) time series of one equipment',
      description: `${AEMP_FORMAT} \`CumulativeOperatingHours\` (the hour meter) or \`CumulativeIdleHours\` at the end of every engine run that ended in the window and at \`endUTC\` (or now, when sooner), newest last, 100 values a page, with the same \`Links\` as the fleet pages.`,
      tag: 'AEMP',
      schema: 'AempFleet',
      withWindow: false,
      aemp: { pathParameters: ['AempSeriesKind', 'AempStart', 'AempEnd', 'AempPage'] },
    },
  },
};

/** An endpoint of the read API as the app and the document use it: its core row with its HTTP side. */
export interface ApiEndpoint {
  /** The core row: name, template, rate limit, paging. */
  readonly endpoint: ReadEndpoint;
  /** The policy its access middleware applies (core's `ROUTE_POLICIES`, one per row). */
  readonly policy: RoutePolicy;
  /** Its path in Hono's syntax. */
  readonly honoPath: string;
  readonly openApi: OpenApiOperation;
  /** Its handler over a service, with the app's clock (epoch milliseconds; default `Date.now`). */
  handler(fleetHours: FleetHours, now?: () => number): Handler<FleetHoursEnv>;
}

/** Every endpoint of the read API, in the order of core's `READ_ENDPOINTS`. */
export const API_ENDPOINTS: readonly ApiEndpoint[] = READ_ENDPOINTS.map((endpoint): ApiEndpoint => {
  // Each row's entry was built for that row: the correlation the compiler cannot follow through a union.
  const http = HTTP_ENDPOINTS[endpoint.name] as unknown as HttpEndpoint;
  return {
    endpoint,
    policy: ROUTE_POLICIES[endpoint.name],
    honoPath: honoPath(endpoint.template),
    openApi: http.openApi,
    handler: (fleetHours, now = Date.now) => http.handler({ fleetHours, endpoint, now }),
  };
});
