import { CALENDAR_EXCEPTIONS_MAX, CALENDAR_WINDOWS_MAX, WEEKDAYS } from '@fleet-hours/core';
import { type Json, ref } from './openapi-refs.js';

/**
 * The work calendars' part of the OpenAPI document (D58, P113): the calendar as the routes answer
 * it, the body of a `PUT`, its `ETag` and `If-Match`.
 */

const _windows: Json = {
  type: 'array',
  maxItems: CALENDAR_WINDOWS_MAX,
  description:
    'Windows of local wall time, `[start, end]`, not overlapping. `end` before `start` runs past midnight into the next day; `"24:00"` only as an end; `end` equal to `start` is refused.',
  items: {
    type: 'array',
    minItems: 2,
    maxItems: 2,
    prefixItems: [
      { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'Start, `HH:MM`.' },
      { type: 'string', pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$', description: 'End, `HH:MM` or `24:00`.' },
    ],
    items: { type: 'string' },
  },
};

const _weekly = (nullable: boolean): Json => ({
  type: nullable ? ['object', 'null'] : 'object',
  description: nullable ? 'The windows of each day of the week; null when there is no calendar.' : 'The windows of each day of the week.',
  required: [...WEEKDAYS],
  additionalProperties: false,
  properties: Object.fromEntries(WEEKDAYS.map((day) => [day, ref('schemas', 'CalendarWindows')])),
});

const _exceptions: Json = {
  type: 'array',
  maxItems: CALENDAR_EXCEPTIONS_MAX,
  description: 'Dated days whose windows replace the weekday’s (`[]`: a holiday), by date; each date once.',
  items: {
    type: 'object',
    required: ['date', 'windows'],
    additionalProperties: false,
    properties: { date: { type: 'string', format: 'date' }, windows: ref('schemas', 'CalendarWindows') },
  },
};

const _readOnly: Json = {
  source: {
    type: 'string',
    enum: ['device', 'account', 'none'],
    description: "Where the calendar shown comes from: the device's own, the account's default, or none.",
  },
  timezone: {
    type: ['string', 'null'],
    description: "The device's IANA zone, in which the windows are read; null for the account's default.",
  },
  version: {
    type: 'integer',
    minimum: 0,
    description: 'How many times this calendar was set or removed (0: never); the `ETag` in double quotes.',
  },
};

/** The schemas of the work calendars' routes. */
export const CALENDAR_SCHEMAS: Readonly<Record<string, Json>> = {
  CalendarWindows: _windows,
  WorkCalendar: {
    type: 'object',
    description: 'A work calendar (the hours a machine is meant to work) as a read shows it.',
    required: ['source', 'timezone', 'weekly', 'exceptions', 'version'],
    additionalProperties: false,
    properties: { ..._readOnly, weekly: _weekly(true), exceptions: _exceptions },
  },
  WorkCalendarPut: {
    type: ['object', 'null'],
    description:
      'A work calendar, or null to remove it. `source`, `timezone` and `version` may be sent back as a read shows them (other values are 400).',
    required: ['weekly'],
    additionalProperties: false,
    properties: { weekly: _weekly(false), exceptions: _exceptions, ..._readOnly },
  },
};

/** The parameters of the work calendars' routes. */
export const CALENDAR_PARAMETERS: Readonly<Record<string, Json>> = {
  CalendarIfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description: 'The `ETag` of the calendar as last read (or `*`): the write applies only if it is still that version, else 412.',
    schema: { type: 'string' },
  },
};

/** The `ETag` of a calendar's answer. */
export const CALENDAR_ETAG_DESCRIPTION =
  "The calendar's version in double quotes: how many times the device's own calendar (or the account's default) was set or removed. Send it back as `If-Match`.";
