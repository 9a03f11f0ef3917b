import { BeyondRetentionError, type BucketSeconds, type EngineSegment, type FleetHoursStore, type SegmentInput } from '@fleet-hours/core';
import { assertEpochSeconds, assertSourcesApart, planSegmentImport, segmentSpan } from '@fleet-hours/core/adapter';
import type { Kysely } from 'kysely';
import { writeDevices } from '../sql/device-writes.js';
import { listOverlapping, listOverlappingMany, lockDevice, summarize, sumByBucket } from '../sql/segment-queries.js';
import { listSourcedSegments } from '../sql/sourced-segments.js';
import { isId, secondsOrNull } from '../sql/sql-values.js';
import { guard } from './storage-error.js';
import { engineSecondsBeforeMany } from '../sql/engine-before.js';
import { summarizeMany, sumByBucketMany } from '../sql/fleet-queries.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { inTransaction } from '../sql/in-transaction.js';

/** The methods of the storage port on engine segments, both aggregation capabilities included. */
export interface SegmentStore extends Pick<FleetHoursStore, 'listSegments' | 'importSegments'> {
  sumSegmentSeconds: NonNullable<FleetHoursStore['sumSegmentSeconds']>;
  listSegmentsMany: NonNullable<FleetHoursStore['listSegmentsMany']>;
  summarizeDeviceSegments: NonNullable<FleetHoursStore['summarizeDeviceSegments']>;
  sumSegmentSecondsMany: NonNullable<FleetHoursStore['sumSegmentSecondsMany']>;
  summarizeDeviceSegmentsMany: NonNullable<FleetHoursStore['summarizeDeviceSegmentsMany']>;
  engineSecondsBeforeMany: NonNullable<FleetHoursStore['engineSecondsBeforeMany']>;
}

/**
 * Engine segments on Kysely: reads and aggregation in the database (see `sql/segment-queries.ts`),
 * imports one transaction per batch, applied through the core's `planSegmentImport` (D1, P6).
 */
export function segmentStore(db: Kysely<FleetHoursDatabase>): SegmentStore {
  return {
    listSegments: ({ deviceId, start, end }) =>
      guard(async () => {
        if (start !== undefined) assertEpochSeconds('start', start);
        if (end !== undefined) assertEpochSeconds('end', end);
        if (!isId(deviceId)) return [];
        const segments = await listOverlapping(db, deviceId, start, end);
        return segments.map((segment) => ({ deviceId, ...segment }));
      }),

    // The day fields of a fleet page (D49, D59, P129): every device's segments in one statement.
    listSegmentsMany: _listSegmentsMany(db),

    sumSegmentSeconds: ({ deviceId, boundaries, now }) =>
      guard(async () => {
        boundaries.forEach((boundary, index) => assertEpochSeconds(`boundaries[${index}]`, boundary));
        assertEpochSeconds('now', now);
        const buckets: BucketSeconds[] = Array.from({ length: Math.max(0, boundaries.length - 1) }, () => ({
          movingSeconds: 0,
          idleSeconds: 0,
        }));
        if (buckets.length === 0 || !isId(deviceId)) return buckets;
        const { rows } = await sumByBucket(deviceId, boundaries, now).execute(db);
        for (const row of rows) {
          buckets[Number(row.bucket) - 1] = { movingSeconds: Number(row.moving_seconds), idleSeconds: Number(row.idle_seconds) };
        }
        return buckets;
      }),

    // A page of the fleet (D32): every device's buckets in one statement (see `sql/fleet-queries.ts`).
    sumSegmentSecondsMany: ({ requests, now }) =>
      guard(async () => {
        requests.forEach((request, index) =>
          request.boundaries.forEach((boundary, position) => assertEpochSeconds(`requests[${index}].boundaries[${position}]`, boundary)),
        );
        assertEpochSeconds('now', now);
        const results: BucketSeconds[][] = requests.map(({ boundaries }) =>
          Array.from({ length: Math.max(0, boundaries.length - 1) }, () => ({ movingSeconds: 0, idleSeconds: 0 })),
        );
        const asked = requests.flatMap(({ deviceId, boundaries }, index) =>
          boundaries.length > 1 && isId(deviceId) ? [{ index, deviceId, boundaries }] : [],
        );
        if (asked.length === 0) return results;
        const { rows } = await sumByBucketMany(asked, now).execute(db);
        for (const row of rows) {
          results[Number(row.request)]![Number(row.bucket) - 1] = {
            movingSeconds: Number(row.moving_seconds),
            idleSeconds: Number(row.idle_seconds),
          };
        }
        return results;
      }),

    // The hour meter's engine time at its instants (D38): one statement, running totals (P56, `sql/engine-before.ts`).
    engineSecondsBeforeMany: _engineSecondsBeforeMany(db),

    summarizeDeviceSegmentsMany: ({ deviceIds, now }) =>
      guard(async () => {
        assertEpochSeconds('now', now);
        const results = deviceIds.map(() => ({ firstStartedAt: null as number | null, movingSeconds: 0, idleSeconds: 0 }));
        const asked = deviceIds.flatMap((deviceId, index) => (isId(deviceId) ? [{ index, deviceId }] : []));
        if (asked.length === 0) return results;
        const { rows } = await summarizeMany(asked, now).execute(db);
        for (const row of rows) {
          results[Number(row.request)] = {
            firstStartedAt: secondsOrNull(row.first_started_at),
            movingSeconds: Number(row.moving_seconds),
            idleSeconds: Number(row.idle_seconds),
          };
        }
        return results;
      }),

    summarizeDeviceSegments: ({ deviceId, now }) =>
      guard(async () => {
        assertEpochSeconds('now', now);
        if (!isId(deviceId)) return { firstStartedAt: null, movingSeconds: 0, idleSeconds: 0 };
        const { rows } = await summarize(deviceId, now).execute(db);
        const row = rows[0];
        return {
          firstStartedAt: secondsOrNull(row?.first_started_at ?? null),
          movingSeconds: Number(row?.moving_seconds ?? 0),
          idleSeconds: Number(row?.idle_seconds ?? 0),
        };
      }),

    importSegments: ({ deviceId, segments, reportedAt }) =>
      guard(async () => {
        // Every instant is checked before the database is touched: the rows by segmentSpan().
        const span = segmentSpan(segments);
        if (reportedAt !== undefined) assertEpochSeconds('reportedAt', reportedAt);
        if (!isId(deviceId)) return null;
        // One transaction per batch (D1): a refusal or any failure rolls everything back.
        return inTransaction(db, async (trx) => {
          const device = await lockDevice(trx, deviceId);
          if (!device) return null;
          // D45: a segment starting before the recorded horizon refuses the batch: before it everything is final.
          _assertAfterHorizon(segments, secondsOrNull(device.horizon));
          const stored = span ? await listSourcedSegments(trx, deviceId, span.start, span.end) : [];
          // D1's rules see imported segments only; segments derived from telemetry must not be overlapped at all (D23).
          const imported = stored.filter((segment) => segment.source === 'import');
          const plan = planSegmentImport({
            incoming: segments,
            stored: imported,
            reportedAt,
            lastReportedAt: secondsOrNull(device.last_reported_at),
          });
          const telemetry = stored.filter((segment) => segment.source === 'telemetry');
          assertSourcesApart({ deviceId, written: 'import', incoming: plan.insert, other: telemetry });

          // D27: the per-day figures follow in this transaction, and the device's record (P6) in its row.
          // A close is the open segment removed and the closed one added (an open segment is in no figure).
          const storedState = new Map(stored.map((segment) => [segment.startedAt, segment.state]));
          const closed = plan.close.map((close) => ({ ...close, state: storedState.get(close.startedAt)! }));
          await writeDevices(trx, [
            {
              deviceId,
              device,
              removed: closed.map((close) => ({ ...close, endedAt: null })),
              added: [...plan.insert, ...closed],
              source: 'import',
              lastReportedAt: plan.lastReportedAt,
              settledAt: secondsOrNull(device.last_reported_at),
            },
          ]);
          return { inserted: plan.insert.length, closed: plan.close.length, skipped: plan.skipped };
        });
      }),
  };
}

/**
 * D45: the first segment of the batch (in its order) that starts before the retention horizon
 * refuses it with `BeyondRetentionError`, its 0-based position as `index`; no horizon, no refusal.
 */
function _assertAfterHorizon(segments: readonly SegmentInput[], horizon: number | null): void {
  if (horizon === null) return;
  const index = segments.findIndex((segment) => segment.startedAt < horizon);
  if (index >= 0) throw new BeyondRetentionError({ index, time: segments[index]!.startedAt, horizon });
}

/** `engineSecondsBeforeMany` on Kysely: every instant checked first, each capped at now (P1), one statement for all. */
function _engineSecondsBeforeMany(db: Kysely<FleetHoursDatabase>): SegmentStore['engineSecondsBeforeMany'] {
  return ({ requests, now }) =>
    guard(async () => {
      requests.forEach((request, index) =>
        request.instants.forEach((instant, position) => assertEpochSeconds(`requests[${index}].instants[${position}]`, instant)),
      );
      assertEpochSeconds('now', now);
      const results: BucketSeconds[][] = requests.map(({ instants }) => instants.map(() => ({ movingSeconds: 0, idleSeconds: 0 })));
      const asked = requests.flatMap(({ deviceId, instants }, index) =>
        instants.length > 0 && isId(deviceId) ? [{ index, deviceId, instants: instants.map((instant) => Math.min(instant, now)) }] : [],
      );
      if (asked.length === 0) return results;
      const { rows } = await engineSecondsBeforeMany(asked).execute(db);
      for (const row of rows) {
        results[Number(row.request)]![Number(row.position)] = {
          movingSeconds: Number(row.moving_seconds),
          idleSeconds: Number(row.idle_seconds),
        };
      }
      return results;
    });
}

/** `listSegmentsMany` on Kysely: every instant checked first, then one statement for every request (`sql/segment-queries.ts`). */
function _listSegmentsMany(db: Kysely<FleetHoursDatabase>): SegmentStore['listSegmentsMany'] {
  return ({ requests }) =>
    guard(async () => {
      requests.forEach(({ start, end }, index) => {
        assertEpochSeconds(`requests[${index}].start`, start);
        assertEpochSeconds(`requests[${index}].end`, end);
      });
      const results: EngineSegment[][] = requests.map(() => []);
      const asked = requests.flatMap((request, index) => (isId(request.deviceId) ? [{ index, ...request }] : []));
      if (asked.length === 0) return results;
      for (const { request, ...segment } of await listOverlappingMany(db, asked))
        results[request]!.push({ deviceId: requests[request]!.deviceId, ...segment });
      return results;
    });
}
