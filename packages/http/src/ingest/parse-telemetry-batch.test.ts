import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTelemetryBatch, telemetryBatchFormat } from './parse-telemetry-batch.js';

const NOW = 1_800_000_000;

const point = fc.record({
  device: fc.oneof(
    fc.integer({ min: 1, max: 2 ** 31 - 1 }).map((id) => ({ device_id: id })),
    fc.stringMatching(/^[0-9]{15}$/).map((imei) => ({ imei })),
  ),
  time: fc.oneof(
    fc.integer({ min: 0, max: NOW + 300 }),
    fc.double({ min: 0, max: NOW, noNaN: true }),
    fc.integer({ min: 0, max: NOW }).map((seconds) => new Date(seconds * 1000).toISOString()),
  ),
  ignition: fc.boolean(),
  speed_kmh: fc.double({ min: 0, max: 300, noNaN: true }),
});

describe('parseTelemetryBatch()', () => {
  it('reads the same points from NDJSON and from a JSON array, in body order (docs/ingestion.md)', () => {
    fc.assert(
      fc.property(fc.array(point, { maxLength: 30 }), (points) => {
        const objects = points.map(({ device, ...fields }) => ({ ...device, ...fields }));
        const ndjson = parseTelemetryBatch({
          text: objects.map((object) => JSON.stringify(object)).join('\n\n'),
          format: 'ndjson',
          now: NOW,
          maxPoints: 10_000,
        });
        const array = parseTelemetryBatch({ text: JSON.stringify(objects), format: 'json', now: NOW, maxPoints: 10_000 });
        expect(ndjson.points).toEqual(array.points);
        expect(array.points.map((parsed) => parsed.time)).toEqual(
          objects.map((object) => (typeof object.time === 'string' ? Date.parse(object.time) / 1000 : Math.floor(object.time))),
        );
        // Blank lines count in NDJSON line numbers; an array names indexes.
        if (objects.length > 1) expect([ndjson.positionOf(1), array.positionOf(1)]).toEqual(['line 3', 'index 1']);
      }),
    );
  });

  it('names the line and the field of the first bad point', () => {
    const text = [
      '{"device_id": 1, "time": 5, "ignition": true, "speed_kmh": 1}',
      '',
      '{"device_id": 1, "time": 5, "ignition": "yes", "speed_kmh": 1}',
    ].join('\n');
    expect(() => parseTelemetryBatch({ text, format: 'ndjson', now: NOW, maxPoints: 10 })).toThrow(
      'line 3: ignition must be true or false, got "yes"',
    );
  });

  it('refuses more than maxPoints with 413 payload_too_large', () => {
    const text = Array.from({ length: 3 }, () => '{"device_id": 1, "time": 5, "ignition": true, "speed_kmh": 1}').join('\n');
    expect(() => parseTelemetryBatch({ text, format: 'ndjson', now: NOW, maxPoints: 2 })).toThrow(
      expect.objectContaining({ code: 'payload_too_large', status: 413 }),
    );
  });
});

describe('telemetryBatchFormat()', () => {
  it('reads the format from the Content-Type, parameters ignored, and refuses any other with 400', () => {
    expect(telemetryBatchFormat('application/x-ndjson; charset=utf-8')).toBe('ndjson');
    expect(telemetryBatchFormat('Application/JSON')).toBe('json');
    expect(() => telemetryBatchFormat(undefined)).toThrow('Content-Type must be "application/x-ndjson" or "application/json", got none');
  });
});
