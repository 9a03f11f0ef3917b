import { FleetHoursError, hourMeterReadingBody, InvalidParameterError, scheduleWriteBody, type FleetHours } from '@fleet-hours/core';
import type { Context, Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { accountId } from './account-id.js';
import { changeOrigin } from './change-origin.js';
import { readJsonBody } from './device-writes.js';
import { parseDeviceId } from './parse-device-id.js';
import { listRoute, pagedList } from './list-route.js';

/**
 * The routes of hour-meter readings, service schedules and services done (D38, D39, D52, P76): each
 * reads its ids and body and hands them to the core's `manage`, which checks the fields (before the
 * device, P71) and reports the change (D55). A device, reading or schedule that is not the account's
 * is 404 as a missing one (D11).
 */

type _Options = { readonly fleetHours: FleetHours; readonly now: () => number };

/** `GET /api/v1/devices/{id}/hour-meter/readings`: the device's readings, newest first, a page at a time; in CSV, every page (D62). */
export function listHourMeterReadingsRoute(options: _Options): Handler<FleetHoursEnv> {
  return listRoute('listHourMeterReadings', options.now, async function listHourMeterReadings(c) {
    const deviceId = _id(c.req.param('id'));
    const limit = _limit(c.req.queries('limit'));
    return pagedList(
      async (cursor) => {
        const page = await options.fleetHours.manage.hourMeterReadings({ accountId: accountId(c), deviceId, limit, cursor });
        if (!page) throw new FleetHoursError('device_not_found');
        const body = {
          data: page.readings.map((reading) => hourMeterReadingBody(reading, page.device.timeZone)),
          next_cursor: page.nextCursor,
        };
        return { body, nextCursor: page.nextCursor };
      },
      _single(c.req.queries('cursor'), 'cursor'),
    );
  });
}

/** `POST /api/v1/devices/{id}/hour-meter/readings`: 201, the reading with the hour meter it gives now (D38). */
export function addHourMeterReadingRoute(options: _Options): Handler<FleetHoursEnv> {
  return async function addHourMeterReading(c) {
    const deviceId = _id(c.req.param('id'));
    const fields = await readJsonBody(c);
    const recorded = await options.fleetHours.manage.addHourMeterReading({
      accountId: accountId(c),
      deviceId,
      fields,
      origin: changeOrigin(c),
    });
    if (!recorded) throw new FleetHoursError('device_not_found');
    const body = hourMeterReadingBody(recorded.reading, recorded.device.timeZone);
    return jsonResponse(
      c,
      { ...body, hour_meter_seconds: recorded.hourMeter.seconds, hour_meter_read_at: recorded.hourMeter.readAt },
      201,
      { Location: `${c.req.path.replace(/\/$/, '')}/${body.id}`, ETag: `"${body.version}"` },
    );
  };
}

/** `DELETE /api/v1/devices/{id}/hour-meter/readings/{reading_id}`: 204. */
export function removeHourMeterReadingRoute(options: _Options): Handler<FleetHoursEnv> {
  return async function removeHourMeterReading(c) {
    const removed = await options.fleetHours.manage.removeHourMeterReading({
      accountId: accountId(c),
      deviceId: _id(c.req.param('id')),
      readingId: _id(c.req.param('reading_id')),
      ifMatch: c.req.header('If-Match'),
      origin: changeOrigin(c),
    });
    if (!removed) throw new FleetHoursError('device_not_found');
    return c.body(null, 204);
  };
}

/** `POST /api/v1/devices/{id}/service/schedules`: 201, the schedule as `/service` shows it (D39). */
export function createServiceScheduleRoute(options: _Options): Handler<FleetHoursEnv> {
  return async function createServiceSchedule(c) {
    const deviceId = _id(c.req.param('id'));
    const fields = await readJsonBody(c);
    const write = await options.fleetHours.manage.createServiceSchedule({
      accountId: accountId(c),
      deviceId,
      fields,
      origin: changeOrigin(c),
    });
    if (!write) throw new FleetHoursError('device_not_found');
    const body = scheduleWriteBody(write);
    return jsonResponse(c, body, 201, { Location: `${c.req.path.replace(/\/$/, '')}/${body.id}`, ETag: `"${body.version}"` });
  };
}

/** `PATCH /api/v1/devices/{id}/service/schedules/{schedule_id}`: 200, the schedule after the change (D39, D54). */
export function updateServiceScheduleRoute(options: _Options): Handler<FleetHoursEnv> {
  return async function updateServiceSchedule(c) {
    const fields = await readJsonBody(c);
    const write = await options.fleetHours.manage.updateServiceSchedule({
      accountId: accountId(c),
      deviceId: _id(c.req.param('id')),
      scheduleId: _id(c.req.param('schedule_id')),
      fields,
      ifMatch: c.req.header('If-Match'),
      origin: changeOrigin(c),
    });
    if (!write) throw new FleetHoursError('device_not_found');
    const body = scheduleWriteBody(write);
    return jsonResponse(c, body, 200, { ETag: `"${body.version}"` });
  };
}

/** `DELETE /api/v1/devices/{id}/service/schedules/{schedule_id}`: 204. */
export function removeServiceScheduleRoute(options: _Options): Handler<FleetHoursEnv> {
  return async function removeServiceSchedule(c) {
    const removed = await options.fleetHours.manage.removeServiceSchedule({
      accountId: accountId(c),
      deviceId: _id(c.req.param('id')),
      scheduleId: _id(c.req.param('schedule_id')),
      ifMatch: c.req.header('If-Match'),
      origin: changeOrigin(c),
    });
    if (!removed) throw new FleetHoursError('device_not_found');
    return c.body(null, 204);
  };
}

/** `POST /api/v1/devices/{id}/service/schedules/{schedule_id}/done`: 200, the schedule after the service (D39). */
export function recordServiceDoneRoute(options: _Options): Handler<FleetHoursEnv> {
  return async function recordServiceDone(c) {
    const fields = await _optionalJsonBody(c);
    const write = await options.fleetHours.manage.recordServiceDone({
      accountId: accountId(c),
      deviceId: _id(c.req.param('id')),
      scheduleId: _id(c.req.param('schedule_id')),
      fields,
      origin: changeOrigin(c),
    });
    if (!write) throw new FleetHoursError('device_not_found');
    const body = scheduleWriteBody(write);
    return jsonResponse(c, body, 200, { ETag: `"${body.version}"` });
  };
}

/**
 * An id of the path: one that is no id (a sign, a leading zero, too large, empty) is 0, which no
 * device, schedule or reading has, so the core still checks the body first (P71) and then answers
 * the same 404 as a missing device (D11).
 */
function _id(text: string | undefined): number {
  return parseDeviceId(text ?? '') ?? 0;
}

/** A body that may be left out (a service done now): no body at all reads as `{}`; any body is JSON (415, 413, 400 otherwise). */
async function _optionalJsonBody(c: Context<FleetHoursEnv>): Promise<unknown> {
  const length = c.req.header('Content-Length');
  const empty = c.req.header('Content-Type') === undefined && c.req.header('Transfer-Encoding') === undefined && (length ?? '0') === '0';
  return empty ? {} : readJsonBody(c);
}

/** `limit`: a whole number written in digits; its range is the core's. */
function _limit(values: readonly string[] | undefined): number | undefined {
  const given = _single(values, 'limit');
  if (given === undefined) return undefined;
  if (!/^[0-9]{1,9}$/.test(given)) {
    const shown = given.length > 40 ? `${given.slice(0, 40)}…` : given;
    throw new InvalidParameterError('limit', `Cannot parse limit "${shown}": give a whole number from 1 to 500`);
  }
  return Number(given);
}

function _single(values: readonly string[] | undefined, name: string): string | undefined {
  if (values !== undefined && values.length > 1)
    throw new InvalidParameterError(name, `Parameter ${name} is given ${values.length} times: give it once`);
  return values?.[0];
}
