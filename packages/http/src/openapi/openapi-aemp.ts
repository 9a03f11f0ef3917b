/** D64: the parameters and schemas of the served AEMP feed in the OpenAPI document. */
import { AEMP_SERIES_KINDS } from '@fleet-hours/core';
import { AEMP_NAMESPACE } from '../aemp/aemp-document.js';

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const UTC_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}Z)?$';
const DATETIME: Json = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$', xml: { attribute: true } };
const HOUR: Json = { type: 'number', minimum: 0, description: 'Decimal hours with 6 places: `round(Hour × 3600)` is the seconds.' };

/** The 200 content of an AEMP operation: XML (the default), and JSON under either media type, one schema. */
export function aempContent(schema: string): Json {
  return {
    'application/xml': { schema: ref(schema) },
    'application/json': { schema: ref(schema) },
    'application/iso15143-snapshot+json': { schema: ref(schema) },
  };
}

/** The path parameters of the AEMP routes besides the device id. */
export const AEMP_PARAMETERS: Json = {
  AempPage: {
    name: 'page',
    in: 'path',
    required: true,
    description: 'The page, from 1. A page past the last (or anything but a positive integer) is 404.',
    schema: { type: 'integer', minimum: 1 },
  },
  AempSeriesKind: {
    name: 'kind',
    in: 'path',
    required: true,
    description: 'Which cumulative value: the hour meter, or the idle hours.',
    schema: { type: 'string', enum: [...AEMP_SERIES_KINDS] },
  },
  AempStart: {
    name: 'startUTC',
    in: 'path',
    required: true,
    description: 'The start of the window: `YYYY-MM-DDThh:mm:ssZ`, or a date (its midnight, UTC). Anything else is 400.',
    schema: { type: 'string', pattern: UTC_PATTERN },
  },
  AempEnd: {
    name: 'endUTC',
    in: 'path',
    required: true,
    description: 'The end of the window: `YYYY-MM-DDThh:mm:ssZ`, or a date (the end of that UTC day). Before `startUTC`: 400.',
    schema: { type: 'string', pattern: UTC_PATTERN },
  },
};

const _cumulative: Json = { type: 'object', required: ['datetime', 'Hour'], properties: { datetime: DATETIME, Hour: HOUR } };
const _optionalText = (description: string): Json => ({ type: 'string', description });

/** The `Fleet` document: XML names, the same as JSON keys. */
export const AEMP_SCHEMAS: Json = {
  AempFleet: {
    type: 'object',
    xml: { name: 'Fleet', namespace: AEMP_NAMESPACE },
    required: ['version', 'snapshotTime', 'Links', 'Equipment'],
    properties: {
      version: { type: 'string', const: '20190501', xml: { attribute: true } },
      snapshotTime: DATETIME,
      Links: {
        type: 'array',
        xml: { wrapped: false },
        items: {
          type: 'object',
          required: ['rel', 'href'],
          properties: { rel: { type: 'string', enum: ['self', 'next', 'last'] }, href: { type: 'string', format: 'uri' } },
        },
      },
      Equipment: {
        type: 'array',
        xml: { wrapped: false },
        items: {
          type: 'object',
          required: ['EquipmentHeader'],
          properties: {
            EquipmentHeader: {
              type: 'object',
              required: ['EquipmentID'],
              properties: {
                OEMName: _optionalText("The machine's maker; absent when the device has none."),
                Model: _optionalText("The machine's model."),
                EquipmentID: _optionalText("The device's name."),
                SerialNumber: _optionalText("The machine's serial number."),
                PIN: _optionalText("The machine's product identification number."),
              },
            },
            Location: {
              type: 'object',
              description: 'The newest position the points of the device carried; absent when none did.',
              properties: {
                datetime: DATETIME,
                Latitude: { type: 'number', minimum: -90, maximum: 90 },
                Longitude: { type: 'number', minimum: -180, maximum: 180 },
              },
            },
            CumulativeOperatingHours: {
              description: 'The hour meter: at `snapshotTime` in a snapshot, one per value (an array in JSON) in a time series.',
              oneOf: [_cumulative, { type: 'array', items: _cumulative }],
            },
            CumulativeIdleHours: {
              description: 'The idle hours counted: at `snapshotTime`, or one per value in a time series.',
              oneOf: [_cumulative, { type: 'array', items: _cumulative }],
            },
            EngineStatus: {
              type: 'object',
              description: 'Whether the engine runs at `snapshotTime`; absent for a device that never reported.',
              properties: { datetime: DATETIME, Running: { type: 'boolean' } },
            },
          },
        },
      },
    },
  },
};
