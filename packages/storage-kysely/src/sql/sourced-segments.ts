import type { SourcedSegment } from '@fleet-hours/core/adapter';
import { sql, type Kysely } from 'kysely';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/** A segment row with its source, instants as epoch seconds. */
interface SourcedRow {
  readonly started_at: number;
  readonly ended_at: number | null;
  readonly state: SourcedSegment['state'];
  readonly source: SourcedSegment['source'];
}

/**
 * The device's segments of both sources (D23) that overlap or touch `[start, end]`: `started_at ≤
 * end` and `ended_at ≥ start` (an open segment never ends; `end` null: no upper bound), in time
 * order. Two bounded index scans as in `overlappingSegments`: closed segments from `start −
 * longest` on, and the open one. Telemetry writes read their `segmentRange` with it, imports the
 * span of their batch.
 */
export async function listSourcedSegments(
  db: Kysely<FleetHoursDatabase>,
  deviceId: number,
  start: number,
  end: number | null,
): Promise<SourcedSegment[]> {
  const beforeEnd = end === null ? sql`` : sql`and started_at <= to_timestamp(${end}::float8)`;
  const { rows } = await sql<SourcedRow>`
    select date_part('epoch', started_at) as started_at, date_part('epoch', ended_at) as ended_at, state, source
      from engine_segments
     where device_id = ${deviceId} and ended_at is not null ${beforeEnd}
       and ended_at >= to_timestamp(${start}::float8)
       and started_at >= to_timestamp(${start}::float8 - (select longest_segment_seconds from device_states where device_id = ${deviceId}))
    union all
    select date_part('epoch', started_at), null, state, source
      from engine_segments
     where device_id = ${deviceId} and ended_at is null ${beforeEnd}
     order by started_at`.execute(db);
  return rows.map((row) => ({
    startedAt: Number(row.started_at),
    endedAt: row.ended_at === null ? null : Number(row.ended_at),
    state: row.state,
    source: row.source,
  }));
}
