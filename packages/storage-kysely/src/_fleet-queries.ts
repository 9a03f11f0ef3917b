import { sql, type RawBuilder } from 'kysely';
import { _summarize, _sumByBucket, type BucketRow, type SummaryRow } from './_segment-queries.js';

/**
 * A page of the fleet endpoints (D32) in one statement: the per-device builders of
 * `_segment-queries.ts` — the one place of that SQL — composed with `union all`, each branch tagged
 * with the index of its request. PostgreSQL plans every branch on its own, so each keeps the bounded
 * index scans of a single-device read; the page is one round trip whatever its size.
 */

/** A row of {@link _sumByBucketMany}: a row of `_sumByBucket` and the index of its request. */
export interface FleetBucketRow extends BucketRow {
  readonly request: number;
}

/** A row of {@link _summarizeMany}: the row of `_summarize` and the index of its request. */
export interface FleetSummaryRow extends SummaryRow {
  readonly request: number;
}

/**
 * `_sumByBucket` for several devices in one statement. Requests are given with their index (the
 * caller leaves out those that need no query); buckets without engine time return no row.
 */
export function _sumByBucketMany(
  requests: readonly { readonly index: number; readonly deviceId: number; readonly boundaries: readonly number[] }[],
  now: number,
): RawBuilder<FleetBucketRow> {
  const branches = requests.map(
    ({ index, deviceId, boundaries }) =>
      sql`select ${sql.lit(index)}::int as request, per_device.bucket, per_device.moving_seconds, per_device.idle_seconds
            from (${_sumByBucket(deviceId, boundaries, now)}) as per_device`,
  );
  return sql<FleetBucketRow>`${sql.join(branches, sql` union all `)}`;
}

/** `_summarize` for several devices in one statement: one row per request. */
export function _summarizeMany(requests: readonly { readonly index: number; readonly deviceId: number }[], now: number): RawBuilder<FleetSummaryRow> {
  const branches = requests.map(
    ({ index, deviceId }) =>
      sql`select ${sql.lit(index)}::int as request, per_device.first_started_at, per_device.moving_seconds, per_device.idle_seconds
            from (${_summarize(deviceId, now)}) as per_device`,
  );
  return sql<FleetSummaryRow>`${sql.join(branches, sql` union all `)}`;
}
