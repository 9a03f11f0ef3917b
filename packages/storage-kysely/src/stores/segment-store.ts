import { type BucketSeconds, type FleetHoursStore } from '@fleet-hours/core';
import { assertEpochSeconds, assertSourcesApart, planSegmentImport, segmentSpan } from '@fleet-hours/core/adapter';
import type { Kysely } from 'kysely';
import { _writeDevices } from './_device-writes.js';
import { _listOverlapping, _lockDevice, _summarize, _sumByBucket } from './_segment-queries.js';
import { _listSourcedSegments } from './_sourced-segments.js';
import { _isId, _seconds } from './_sql-values.js';
import { _guard } from './_storage-error.js';
import { _summarizeMany, _sumByBucketMany } from './_fleet-queries.js';
import type { FleetHoursDatabase } from './database-schema.js';

/** The methods of the storage port on engine segments, both aggregation capabilities included. */
export interface _SegmentStore extends Pick<FleetHoursStore, 'listSegments' | 'importSegments'> {
  sumSegmentSeconds: NonNullable<FleetHoursStore['sumSegmentSeconds']>;
  summarizeDeviceSegments: NonNullable<FleetHoursStore['summarizeDeviceSegments']>;
  sumSegmentSecondsMany: NonNullable<FleetHoursStore['sumSegmentSecondsMany']>;
  summarizeDeviceSegmentsMany: NonNullable<FleetHoursStore['summarizeDeviceSegmentsMany']>;
}

/**
 * Engine segments on Kysely: reads and aggregation in the database (see `_segment-queries.ts`),
 * imports one transaction per batch, applied through the core's `planSegmentImport` (D1, P6).
 */
export function _segmentStore(db: Kysely<FleetHoursDatabase>): _SegmentStore {
  return {
    listSegments: ({ deviceId, start, end }) =>
      _guard(async () => {
        if (start !== undefined) assertEpochSeconds('start', start);
        if (end !== undefined) assertEpochSeconds('end', end);
        if (!_isId(deviceId)) return [];
        const segments = await _listOverlapping(db, deviceId, start, end);
        return segments.map((segment) => ({ deviceId, ...segment }));
      }),

    sumSegmentSeconds: ({ deviceId, boundaries, now }) =>
      _guard(async () => {
        boundaries.forEach((boundary, index) => assertEpochSeconds(`boundaries[${index}]`, boundary));
        assertEpochSeconds('now', now);
        const buckets: BucketSeconds[] = Array.from({ length: Math.max(0, boundaries.length - 1) }, () => ({ movingSeconds: 0, idleSeconds: 0 }));
        if (buckets.length === 0 || !_isId(deviceId)) return buckets;
        const { rows } = await _sumByBucket(deviceId, boundaries, now).execute(db);
        for (const row of rows) {
          buckets[Number(row.bucket) - 1] = { movingSeconds: Number(row.moving_seconds), idleSeconds: Number(row.idle_seconds) };
        }
        return buckets;
      }),

    // A page of the fleet (D32): every device's buckets in one statement (see `_fleet-queries.ts`).
    sumSegmentSecondsMany: ({ requests, now }) =>
      _guard(async () => {
        requests.forEach((request, index) => request.boundaries.forEach((boundary, position) => assertEpochSeconds(`requests[${index}].boundaries[${position}]`, boundary)));
        assertEpochSeconds('now', now);
        const results: BucketSeconds[][] = requests.map(({ boundaries }) =>
          Array.from({ length: Math.max(0, boundaries.length - 1) }, () => ({ movingSeconds: 0, idleSeconds: 0 })),
        );
        const asked = requests.flatMap(({ deviceId, boundaries }, index) => (boundaries.length > 1 && _isId(deviceId) ? [{ index, deviceId, boundaries }] : []));
        if (asked.length === 0) return results;
        const { rows } = await _sumByBucketMany(asked, now).execute(db);
        for (const row of rows) {
          results[Number(row.request)]![Number(row.bucket) - 1] = { movingSeconds: Number(row.moving_seconds), idleSeconds: Number(row.idle_seconds) };
        }
        return results;
      }),

    summarizeDeviceSegmentsMany: ({ deviceIds, now }) =>
      _guard(async () => {
        assertEpochSeconds('now', now);
        const results = deviceIds.map(() => ({ firstStartedAt: null as number | null, movingSeconds: 0, idleSeconds: 0 }));
        const asked = deviceIds.flatMap((deviceId, index) => (_isId(deviceId) ? [{ index, deviceId }] : []));
        if (asked.length === 0) return results;
        const { rows } = await _summarizeMany(asked, now).execute(db);
        for (const row of rows) {
          results[Number(row.request)] = { firstStartedAt: _seconds(row.first_started_at), movingSeconds: Number(row.moving_seconds), idleSeconds: Number(row.idle_seconds) };
        }
        return results;
      }),

    summarizeDeviceSegments: ({ deviceId, now }) =>
      _guard(async () => {
        assertEpochSeconds('now', now);
        if (!_isId(deviceId)) return { firstStartedAt: null, movingSeconds: 0, idleSeconds: 0 };
        const { rows } = await _summarize(deviceId, now).execute(db);
        const row = rows[0];
        return {
          firstStartedAt: _seconds(row?.first_started_at ?? null),
          movingSeconds: Number(row?.moving_seconds ?? 0),
          idleSeconds: Number(row?.idle_seconds ?? 0),
        };
      }),

    importSegments: ({ deviceId, segments, reportedAt }) =>
      _guard(async () => {
        // Every instant is checked before the database is touched: the rows by segmentSpan().
        const span = segmentSpan(segments);
        if (reportedAt !== undefined) assertEpochSeconds('reportedAt', reportedAt);
        if (!_isId(deviceId)) return null;
        // One transaction per batch (D1): a refusal or any failure rolls everything back.
        return db.transaction().execute(async (trx) => {
          const device = await _lockDevice(trx, deviceId);
          if (!device) return null;
          const stored = span ? await _listSourcedSegments(trx, deviceId, span.start, span.end) : [];
          // D1's rules see imported segments only; segments derived from telemetry must not be overlapped at all (D23).
          const imported = stored.filter((segment) => segment.source === 'import');
          const plan = planSegmentImport({ incoming: segments, stored: imported, reportedAt, lastReportedAt: _seconds(device.last_reported_at) });
          const telemetry = stored.filter((segment) => segment.source === 'telemetry');
          assertSourcesApart({ deviceId, written: 'import', incoming: plan.insert, other: telemetry });

          // D27: the per-day figures follow in this transaction, and the device's record (P6) in its row.
          // A close is the open segment removed and the closed one added (an open segment is in no figure).
          const storedState = new Map(stored.map((segment) => [segment.startedAt, segment.state]));
          const closed = plan.close.map((close) => ({ ...close, state: storedState.get(close.startedAt)! }));
          await _writeDevices(trx, [
            {
              deviceId,
              device,
              removed: closed.map((close) => ({ ...close, endedAt: null })),
              added: [...plan.insert, ...closed],
              source: 'import',
              lastReportedAt: plan.lastReportedAt,
            },
          ]);
          return { inserted: plan.insert.length, closed: plan.close.length, skipped: plan.skipped };
        });
      }),
  };
}
