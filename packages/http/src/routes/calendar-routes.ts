import {
  FleetHoursError,
  readWorkCalendarBody,
  workCalendarAnswer,
  workCalendarEntityTag,
  type FleetHours,
  type WorkCalendarView,
} from '@fleet-hours/core';
import type { Context, Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { accountId } from './account-id.js';
import { changeOrigin } from './change-origin.js';
import { readJsonBody } from './device-writes.js';
import { parseDeviceId } from './parse-device-id.js';

/**
 * The routes of work calendars (D52, D58, P113): a device's (`/devices/{id}/calendar`: its own, else
 * the account's default) and the account's default (`/calendar`). Each reads the request, asks
 * core's `manage` and answers with the calendar and its `ETag`; every check is core's.
 */

type _Route = (options: { readonly fleetHours: FleetHours }) => Handler<FleetHoursEnv>;

/** The device of the path, `null` for the account's default; a text no device has is 404 as a missing one (D11). */
function _place(c: Context<FleetHoursEnv>): number | null {
  const id = c.req.param('id');
  if (id === undefined) return null;
  const deviceId = parseDeviceId(id);
  if (deviceId === null) throw new FleetHoursError('device_not_found');
  return deviceId;
}

function _answer(c: Context<FleetHoursEnv>, view: WorkCalendarView | null): Response {
  // The account's default exists while its key is admitted: only a device can be missing.
  if (!view) throw new FleetHoursError('device_not_found');
  return jsonResponse(c, workCalendarAnswer(view), 200, { ETag: workCalendarEntityTag(view) });
}

/** `GET /api/v1/devices/{id}/calendar` and `GET /api/v1/calendar`: the calendar in use (P113). */
export const getWorkCalendarRoute: _Route = (options) =>
  async function getWorkCalendar(c) {
    const deviceId = _place(c);
    return _answer(c, await options.fleetHours.manage.findWorkCalendar({ accountId: accountId(c), deviceId }));
  };

/** `PUT /api/v1/devices/{id}/calendar` and `PUT /api/v1/calendar`: sets the calendar, or with `null` removes it; `If-Match` (D54). */
export const putWorkCalendarRoute: _Route = (options) =>
  async function putWorkCalendar(c) {
    const body = await readJsonBody(c);
    // The body is checked first whatever the id (P71): a device that is not there is the last check.
    readWorkCalendarBody(body);
    const deviceId = _place(c);
    return _answer(
      c,
      await options.fleetHours.manage.putWorkCalendar({
        accountId: accountId(c),
        deviceId,
        body,
        ifMatch: c.req.header('If-Match'),
        origin: changeOrigin(c),
      }),
    );
  };
