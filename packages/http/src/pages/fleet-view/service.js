// @ts-check
/** Where a service schedule stands (D39): its limit that comes first, in words. */
import { el } from './dom.js';
import { hoursMinutes } from './days.js';

/** @typedef {import('./types.js').ServiceStatus} ServiceStatus */
/** @typedef {import('./types.js').Schedule} Schedule */
/** @typedef {import('./types.js').Service} Service */
/** @typedef {import('./types.js').Limit} Limit */

// --- Service schedules (D39) -------------------------------------------------------------------
/** @type {Record<ServiceStatus, string>} */
const STATUS_WORDS = { ok: 'OK', due_soon: 'Due soon', overdue: 'Overdue' };
/** @type {Record<ServiceStatus, number>} */
const STATUS_RANK = { ok: 0, due_soon: 1, overdue: 2 };
/** @param {ServiceStatus} status */
export const statusBadge = (status) => el('span', { class: `status status-${status}` }, [STATUS_WORDS[status] || status]);

/**
 * The limit of a schedule that comes first: the one whose own status is worse (an interval run
 * out, then a margin reached), else the one with the smaller share of its interval left; engine
 * hours on a tie.
 * @param {Schedule} schedule
 * @returns {Limit}
 */
export function firstLimit(schedule) {
  /** @type {Limit} */
  const hours = {
    schedule: schedule,
    unit: 'seconds',
    remaining: schedule.remaining_seconds,
    share: schedule.remaining_seconds / schedule.interval_seconds,
  };
  if (schedule.remaining_days === null || schedule.interval_days === null) return hours;
  /** @type {Limit} */
  const days = {
    schedule: schedule,
    unit: 'days',
    remaining: schedule.remaining_days,
    share: schedule.remaining_days / schedule.interval_days,
  };
  const hoursRank = schedule.remaining_seconds <= 0 ? 2 : schedule.remaining_seconds <= schedule.due_soon_seconds ? 1 : 0;
  const daysRank = schedule.remaining_days < 0 ? 2 : schedule.remaining_days <= (schedule.due_soon_days || 0) ? 1 : 0;
  return daysRank > hoursRank || (daysRank === hoursRank && days.share < hours.share) ? days : hours;
}
/** Orders limits most urgent first: the schedule's status (D39), then the share of the interval left. @param {Limit} a @param {Limit} b */
export const byUrgency = (a, b) => STATUS_RANK[b.schedule.status] - STATUS_RANK[a.schedule.status] || a.share - b.share;

/** @param {number} days */
const daysText = (days) => `${days} day${days === 1 ? '' : 's'}`;
/** What is left of a limit: "9:30 h left", "14:00 h over", "12 days left", "due today", "3 days over". @param {Limit} limit */
export function remainingText(limit) {
  const value = limit.remaining;
  if (limit.unit === 'seconds') return value > 0 ? `${hoursMinutes(value)} h left` : `${hoursMinutes(-value)} h over`;
  if (value === 0) return 'due today';
  return value > 0 ? `${daysText(value)} left` : `${daysText(-value)} over`;
}
/** Both limits of a schedule in words, for a tooltip. @param {Schedule} schedule */
export function limitsText(schedule) {
  const hours = `due at ${hoursMinutes(schedule.due_hour_meter_seconds)} h on the hour meter (${remainingText({ schedule: schedule, unit: 'seconds', remaining: schedule.remaining_seconds, share: 0 })})`;
  if (schedule.due_date === null || schedule.remaining_days === null) return hours;
  return `${hours} or on ${schedule.due_date} (${remainingText({ schedule: schedule, unit: 'days', remaining: schedule.remaining_days, share: 0 })}), whichever comes first`;
}
/** The data attributes of a shown limit, which the tests read. @param {Limit} limit */
export const limitData = (limit) => ({
  'data-status': limit.schedule.status,
  'data-schedule-id': limit.schedule.id,
  'data-unit': limit.unit,
  'data-remaining': limit.remaining,
});

/**
 * A vehicle's service: its worst status and what is left of its most urgent schedule; "–" for a
 * vehicle without schedules, and nothing until the schedules have been read.
 * @param {Service | null | undefined} service
 */
export function serviceCell(service) {
  const attributes = { class: 'service', 'data-label': 'Service' };
  if (service === undefined) return el('td', attributes, ['…']);
  if (service === null || !service.data.length) {
    return el('td', Object.assign(attributes, { 'data-status': 'none', title: 'No service schedules' }), ['–']);
  }
  const urgent = service.data.map(firstLimit).sort(byUrgency)[0];
  if (!urgent) return el('td', attributes, ['–']);
  return el('td', Object.assign(attributes, limitData(urgent), { title: `${urgent.schedule.name}: ${limitsText(urgent.schedule)}` }), [
    el('span', {}, [
      statusBadge(urgent.schedule.status),
      ' ',
      el('span', { class: 'remaining' }, [remainingText(urgent)]),
      el('span', { class: 'sub schedule-name' }, [urgent.schedule.name]),
    ]),
  ]);
}
