import { FleetHoursError, type DeviceService, type FleetHours, type ServiceScheduleState } from '@fleet-hours/core';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { parseDeviceId } from './parse-device-id.js';
import { accountId } from './account-id.js';

/** One schedule of the service body (D39), the one place of its fields and their order. */
export function serviceScheduleBody(schedule: ServiceScheduleState) {
  return {
    id: schedule.id,
    name: schedule.name,
    interval_seconds: schedule.intervalSeconds,
    interval_days: schedule.intervalDays,
    due_soon_seconds: schedule.dueSoonSeconds,
    due_soon_days: schedule.dueSoonDays,
    last_done_at: schedule.lastDoneAt,
    last_done_hour_meter_seconds: schedule.lastDoneHourMeterSeconds,
    due_hour_meter_seconds: schedule.dueHourMeterSeconds,
    due_date: schedule.dueDate,
    remaining_seconds: schedule.remainingSeconds,
    remaining_days: schedule.remainingDays,
    status: schedule.status,
  };
}

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

/** `GET /api/v1/devices/{id}/service`: the device's service schedules at now (D39). */
export function serviceRoute(options: { readonly fleetHours: FleetHours }): Handler<FleetHoursEnv> {
  return async function service(c) {
    const deviceId = parseDeviceId(c.req.param('id') ?? '');
    const service = deviceId === null ? null : await options.fleetHours.service({ accountId: accountId(c), deviceId });
    if (!service) throw new FleetHoursError('device_not_found');
    return jsonResponse(c, serviceBody(service));
  };
}
