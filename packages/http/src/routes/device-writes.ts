import { deviceEntityTag, FleetHoursError, readDeviceFields, type FleetHours } from '@fleet-hours/core';
import type { Context, Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { readLimitedBody } from '../request-body/read-limited-body.js';
import { jsonResponse } from '../respond/json-response.js';
import { accountId } from './account-id.js';
import { changeOrigin } from './change-origin.js';
import { deviceBodies, deviceBody } from './list-devices.js';
import { parseDeviceId } from './parse-device-id.js';

/** The largest body of a write route (D52): 64 KiB. */
export const MAX_WRITE_BODY_BYTES = 64 * 1024;

/** How long a write's body may take to arrive, in milliseconds. */
const _BODY_TIMEOUT_MS = 10_000;

/**
 * The JSON body of a write route (D52): `Content-Type: application/json` (415 otherwise), at most
 * {@link MAX_WRITE_BODY_BYTES} (413), JSON text (400 `invalid_body`). Its fields are the core's to check.
 */
export async function readJsonBody(c: Context<FleetHoursEnv>): Promise<unknown> {
  const type = c.req.header('Content-Type') ?? '';
  if (!/^application\/json\s*(?:;|$)/i.test(type.trim())) {
    throw new FleetHoursError('unsupported_media_type', {
      message: `The body must be JSON, sent with "Content-Type: application/json"${type === '' ? '' : `, not "${type.slice(0, 60)}"`}`,
    });
  }
  const text = await readLimitedBody(c.req.raw, { maxBytes: MAX_WRITE_BODY_BYTES, timeoutMs: _BODY_TIMEOUT_MS });
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new FleetHoursError('invalid_body', { message: 'The body is not JSON' });
  }
}

/** `POST /api/v1/devices`: a new device of the account (D52), 201 with its `Location`. */
export function createDeviceRoute(options: { readonly fleetHours: FleetHours }): Handler<FleetHoursEnv> {
  return async function createDevice(c) {
    const fields = await readJsonBody(c);
    const device = await options.fleetHours.manage.createDevice({ accountId: accountId(c), fields, origin: changeOrigin(c) });
    // The account is the key's: it exists while the key is admitted.
    if (!device) throw new FleetHoursError('internal_error', { message: 'The account of an admitted key is gone' });
    // A device made now has no position yet (P157): its body needs no read.
    return jsonResponse(c, deviceBody(device), 201, {
      Location: `${c.req.path.replace(/\/$/, '')}/${device.id}`,
      ETag: deviceEntityTag(device),
    });
  };
}

/** `PATCH /api/v1/devices/{id}`: changes a device of the account (D52); another account's is 404 as a missing one (D11). */
export function updateDeviceRoute(options: { readonly fleetHours: FleetHours }): Handler<FleetHoursEnv> {
  return async function updateDevice(c) {
    const deviceId = parseDeviceId(c.req.param('id') ?? '');
    const fields = await readJsonBody(c);
    // The fields are checked first whatever the id (P71): a device that is not there is the last check.
    if (deviceId === null) readDeviceFields(fields, 'update');
    // D54: with If-Match, the change applies only to the device as the client read it (412 otherwise).
    const ifMatch = c.req.header('If-Match');
    const device =
      deviceId === null
        ? null
        : await options.fleetHours.manage.updateDevice({ accountId: accountId(c), deviceId, fields, ifMatch, origin: changeOrigin(c) });
    if (!device) throw new FleetHoursError('device_not_found');
    return jsonResponse(c, (await deviceBodies(options.fleetHours.store, [device]))[0]!, 200, { ETag: deviceEntityTag(device) });
  };
}
