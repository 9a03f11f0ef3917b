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

type ManageEndpointRow = (typeof MANAGE_ENDPOINTS)[number];

/** The operation of a write route in the OpenAPI document; its path, method and limit come from its core row. */
export interface ManageOpenApiOperation {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tag: 'Devices' | 'Audit';
  /** The schema of the request body, in `components.schemas`; none for a GET. */
  readonly requestSchema?: string;
  /** The schema of the answer's body, in `components.schemas`. */
  readonly schema: string;
  /** The status of a success: 201 for a creation. */
  readonly status: 200 | 201;
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
