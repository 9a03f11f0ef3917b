// @ts-check
/**
 * The utilization panel (D60, P145): per vehicle, its current ISO week against its work calendar —
 * utilization and the engine time outside the calendar (after hours) — the outliers first.
 */
import { $, el } from './dom.js';
import { hoursMinutes } from './days.js';

/** @typedef {import('./types.js').Device} Device */
/** @typedef {import('./types.js').UtilizationPeriod} UtilizationPeriod */
/** @typedef {import('./types.js').Utilization} Utilization */

/**
 * The fleet's utilization by ISO week over the API's default window (the last seven local days up
 * to now, in each vehicle's zone): it always holds the whole current week, which is each vehicle's
 * last period. Asking the server for its default keeps "this week" the server's, not this browser's.
 */
export const UTILIZATION_QUERY = { group_by: 'week', limit: 100 };

/**
 * A ratio as percent with one decimal (the API's figure is not rounded): 0.0625 → "6.3%"; null
 * (nothing scheduled, so nothing to divide by) → "–".
 * @param {number | null} ratio
 */
export const percentText = (ratio) => (ratio === null ? '–' : `${(ratio * 100).toFixed(1)}%`);

/**
 * Outliers first: the most engine time outside the calendar, then the lowest utilization (a vehicle
 * with nothing scheduled after those with), then by id.
 * @param {{ deviceId: number, week: UtilizationPeriod }} a
 * @param {{ deviceId: number, week: UtilizationPeriod }} b
 */
export function byOutlier(a, b) {
  const afterHours = b.week.engine_outside_schedule_seconds - a.week.engine_outside_schedule_seconds;
  if (afterHours) return afterHours;
  const ua = a.week.utilization;
  const ub = b.week.utilization;
  if (ua !== ub) {
    if (ua === null) return 1;
    if (ub === null) return -1;
    return ua - ub;
  }
  return a.deviceId - b.deviceId;
}

/**
 * Draws the panel: one row per vehicle with its current week, outliers first.
 * @param {Utilization[] | null} list The fleet's utilization by week; null until read.
 * @param {Device[]} devices The vehicles, for their names.
 */
export function renderUtilization(list, devices) {
  const body = $('utilization-body');
  body.textContent = '';
  $('utilization-week').textContent = '';
  if (list === null) return;
  const names = new Map(devices.map((device) => [device.id, device.name]));
  const rows = list.flatMap((entry) => {
    const week = entry.data[entry.data.length - 1];
    return week ? [{ deviceId: entry.device_id, week: week }] : [];
  });
  rows.sort(byOutlier);
  const weeks = Array.from(new Set(rows.map((row) => row.week.period))).sort();
  $('utilization-week').textContent = weeks.length ? `Week ${weeks.join(' and ')}, Monday up to now, in each vehicle's own zone.` : '';
  rows.forEach(({ deviceId, week }) => {
    /** @param {string} kind @param {string} label @param {number} seconds */
    const time = (kind, label, seconds) =>
      el('td', { class: `num ${kind}`, 'data-label': label, 'data-seconds': seconds, title: `${seconds} s` }, [hoursMinutes(seconds)]);
    body.appendChild(
      el('tr', { 'data-device-id': deviceId, 'data-period': week.period }, [
        el('th', { scope: 'row', class: 'vehicle' }, [names.get(deviceId) || `Vehicle ${deviceId}`]),
        el('td', { class: 'num utilization', 'data-label': 'Utilization', 'data-ratio': week.utilization }, [
          percentText(week.utilization),
        ]),
        time('after-hours', 'After hours (h:mm)', week.engine_outside_schedule_seconds),
        time('in-schedule', 'In schedule (h:mm)', week.engine_in_schedule_seconds),
        time('scheduled', 'Scheduled (h:mm)', week.scheduled_seconds),
      ]),
    );
  });
  if (!rows.length) body.appendChild(el('tr', {}, [el('td', { colspan: 5 }, ['No vehicles on this account yet.'])]));
}
