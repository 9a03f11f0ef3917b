import { UTILIZATION_GROUPINGS, UTILIZATION_SPLITS } from '@fleet-hours/core';
import { type Json, ref } from './openapi-refs.js';

/** The utilization part of the OpenAPI document (D60, P130, P131): its parameters and bodies. */

const _seconds = (description: string): Json => ({ type: 'integer', minimum: 0, description });
const _ratio = (description: string, divisor: string): Json => ({
  type: ['number', 'null'],
  minimum: 0,
  description: `${description}, not rounded; null when ${divisor} is 0.`,
});

const _period: Json = {
  type: 'object',
  required: [
    ...['period', 'from', 'to', 'engine_seconds', 'moving_seconds', 'idle_seconds', 'scheduled_seconds'],
    ...['engine_in_schedule_seconds', 'engine_outside_schedule_seconds', 'days_used', 'utilization', 'idle_share'],
  ],
  properties: {
    period: {
      type: 'string',
      pattern: '^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?|-W[0-9]{2})$',
      description: 'YYYY-MM-DD (day), YYYY-Www (ISO week, of the year of its Thursday) or YYYY-MM (month).',
    },
    from: { type: 'string', format: 'date', description: 'The first local date of the period inside the window.' },
    to: { type: 'string', format: 'date', description: 'The last local date of the period inside the window.' },
    engine_seconds: _seconds('Engine seconds of its days; moving_seconds + idle_seconds.'),
    moving_seconds: _seconds('Seconds with the engine on and the vehicle moving.'),
    idle_seconds: _seconds('Seconds with the engine on and the vehicle standing.'),
    scheduled_seconds: _seconds("Seconds inside the windows of the vehicle's work calendar, up to now; 0 without a calendar."),
    engine_in_schedule_seconds: _seconds('Engine seconds inside those windows.'),
    engine_outside_schedule_seconds: _seconds('Engine seconds outside them.'),
    days_used: { type: 'integer', minimum: 0, description: 'Days of the period with engine time.' },
    utilization: _ratio('engine_in_schedule_seconds / scheduled_seconds', 'scheduled_seconds'),
    idle_share: _ratio('idle_seconds / engine_seconds', 'engine_seconds'),
  },
};

const _groupBy: Json = { type: 'string', enum: [...UTILIZATION_GROUPINGS], description: 'The grouping asked.' };
const _periods: Json = { type: 'array', items: ref('schemas', 'UtilizationPeriod'), description: 'One entry per period, in time order.' };

/** The query parameters of the utilization routes. */
export const UTILIZATION_PARAMETERS: Json = {
  GroupBy: {
    name: 'group_by',
    in: 'query',
    required: false,
    description:
      'How the local days are grouped: `day`, `week` (ISO weeks, Monday first) or `month`. Default `day`. Anything else, or repeated: 400.',
    schema: { type: 'string', enum: [...UTILIZATION_GROUPINGS], default: 'day' },
  },
  UtilizationBy: {
    name: 'by',
    in: 'query',
    required: false,
    description: 'One element per `device` (paged, the default) or per `tag` (not paged). Anything else, or repeated: 400.',
    schema: { type: 'string', enum: [...UTILIZATION_SPLITS], default: 'device' },
  },
};

const _example = {
  device_id: 7,
  timezone: 'Europe/Berlin',
  from: '2026-10-26T00:00:00+01:00',
  to: '2026-11-01T23:59:59+01:00',
  group_by: 'week',
  data: [
    {
      ...{ period: '2026-W44', from: '2026-10-26', to: '2026-11-01', engine_seconds: 108_000, moving_seconds: 93_600 },
      ...{ idle_seconds: 14_400, scheduled_seconds: 198_000, engine_in_schedule_seconds: 99_000, engine_outside_schedule_seconds: 9_000 },
      ...{ days_used: 5, utilization: 0.5, idle_share: 0.13333333333333333 },
    },
  ],
};

/** The bodies of the utilization routes. */
export const UTILIZATION_SCHEMAS: Json = {
  UtilizationPeriod: _period,
  Utilization: {
    type: 'object',
    required: ['device_id', 'timezone', 'from', 'to', 'group_by', 'data'],
    properties: {
      device_id: { type: 'integer', minimum: 1 },
      timezone: { type: 'string', description: 'IANA zone of the vehicle.' },
      from: { type: 'string', description: "The window start actually applied, on the vehicle's wall clock with its offset." },
      to: { type: 'string', description: "The window end actually applied, on the vehicle's wall clock with its offset." },
      group_by: _groupBy,
      data: _periods,
    },
    examples: [_example],
  },
  TagUtilization: {
    type: 'object',
    required: ['tag', 'device_count', 'group_by', 'data'],
    properties: {
      tag: { type: 'string' },
      device_count: { type: 'integer', minimum: 1, description: 'How many devices in scope have the tag.' },
      group_by: _groupBy,
      data: { ..._periods, description: 'The days of its devices added up by period, in time order.' },
    },
  },
  FleetUtilizationPage: {
    type: 'object',
    required: ['data', 'next_cursor'],
    properties: {
      data: {
        type: 'array',
        items: { oneOf: [ref('schemas', 'Utilization'), ref('schemas', 'TagUtilization')] },
        description:
          'by=device: the body of `/devices/{id}/utilization` per device of the page, by ascending id; by=tag: one element per tag, in code-point order.',
      },
      next_cursor: {
        type: ['string', 'null'],
        pattern: '^[A-Za-z0-9_-]+$',
        description: 'by=device: pass it as `cursor` for the next page, null on the last; by=tag: always null.',
      },
    },
    examples: [{ data: [_example], next_cursor: null }],
  },
};
