import { FleetHoursError, serviceScheduleBody, type DeviceService, type FleetHours } from '@fleet-hours/core';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { parseDeviceId } from './parse-device-id.js';
import { accountId } from './account-id.js';
import { listRoute, wholeList } from './list-route.js';

/** One schedule of the service body (D39): in the core, where the events' bodies (D40) take it too. */
export { serviceScheduleBody };

/** The JSON body of `/devices/{id}/service` (D39): also each element of the fleet page (D32) and of `fleet-hours service list --json`. */
export function serviceBody(service: DeviceService) {
  return {
    device_id: service.deviceId,
    timezone: service.timeZone,
    as_of: service.asOf,
    hour_meter_seconds: service.hourMeterSeconds,
    data: service.schedules.map(serviceScheduleBody),
  };
}

/** `GET /api/v1/devices/{id}/service`: the device's service schedules at now (D39); in CSV one row per schedule (D62). */
export function serviceRoute(options: { readonly fleetHours: FleetHours; readonly now: () => number }): Handler<FleetHoursEnv> {
  return listRoute('service', options.now, async function service(c) {
    const deviceId = parseDeviceId(c.req.param('id') ?? '');
    const service = deviceId === null ? null : await options.fleetHours.service({ accountId: accountId(c), deviceId });
    if (!service) throw new FleetHoursError('device_not_found');
    return wholeList(serviceBody(service));
  });
}
