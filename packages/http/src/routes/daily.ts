import type { DailyHours, FleetHours } from '@fleet-hours/core';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { listRoute, wholeList } from './list-route.js';
import { deviceWindowRead } from './window-routes.js';

/** The JSON body of `/hours/daily` (D8), the one place of its fields and their order: also each element of the fleet page (D32). */
export function dailyBody(series: DailyHours) {
  return {
    device_id: series.deviceId,
    timezone: series.timeZone,
    from: series.from,
    to: series.to,
    data: series.days.map((day) => ({
      date: day.date,
      engine_seconds: day.engineSeconds,
      moving_seconds: day.movingSeconds,
      idle_seconds: day.idleSeconds,
      // D59: the day's length, its calendar's scheduled time, the engine inside and outside it, the first on and last off.
      day_seconds: day.daySeconds,
      scheduled_seconds: day.scheduledSeconds,
      engine_in_schedule_seconds: day.engineInScheduleSeconds,
      engine_outside_schedule_seconds: day.engineOutsideScheduleSeconds,
      first_engine_on: day.firstEngineOn,
      last_engine_off: day.lastEngineOff,
    })),
  };
}

/** `GET /api/v1/devices/{id}/hours/daily`: one entry per local day of the window (D8); in CSV one row per day (D62). */
export function dailyRoute(options: { readonly fleetHours: FleetHours; readonly now: () => number }): Handler<FleetHoursEnv> {
  const read = deviceWindowRead((query) => options.fleetHours.daily(query), dailyBody);
  return listRoute('daily', options.now, async (c) => wholeList(await read(c)));
}
