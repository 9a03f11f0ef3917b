import { sql, type RawBuilder } from 'kysely';
import { summarizeOf, sumByBucketOf, type BucketRow, type SummaryRow } from './segment-queries.js';

/**
 * A page of the fleet endpoints (D32) in one statement: the requests go in as arrays, `unnest`
 * makes one row per request, and the per-device query of `sql/segment-queries.ts` — the one place of
 * that SQL — runs for each row through `cross join lateral`, reading the device and window from the
 * row's columns. PostgreSQL plans the statement once, whatever the number of devices, and runs the
 * per-device query's bounded index scans for each row. (A `union all` of one copy of the query per
 * device, the obvious composition, costs the planner time that grows faster than the number of
 * devices, before any row is read.)
 */

/** A row of {@link sumByBucketMany}: a row of `sumByBucket` and the index of its request. */
export interface FleetBucketRow extends BucketRow {
  readonly request: number;
}

/** A row of {@link summarizeMany}: the row of `summarize` and the index of its request. */
export interface FleetSummaryRow extends SummaryRow {
  readonly request: number;
}

/**
 * `sumByBucket` for several devices in one statement. Requests are given with their index (the
 * caller leaves out those that need no query); each has at least two boundaries. The boundaries of
 * every request travel as one flat array, each request naming its slice (windows of devices in
 * different zones may have different numbers of days). Buckets without engine time return no row.
 */
export function sumByBucketMany(
  requests: readonly { readonly index: number; readonly deviceId: number; readonly boundaries: readonly number[] }[],
  now: number,
): RawBuilder<FleetBucketRow> {
  const { flat, firsts, lasts } = flatBoundaries(requests);
  const perDevice = sumByBucketOfRow('fleet_request', now);
  // Each request's boundaries are cut from the flat array once, into a row of their own
  // (`materialized`): inlined instead, the slice of the whole array would be recomputed wherever the
  // per-device query reads a boundary.
  return sql<FleetBucketRow>`
    with fleet_request as materialized (
      select request.request, request.device_id, (${flat}::float8[])[request.first:request.last] as boundaries
        from unnest(${requests.map((request) => request.index)}::int[], ${requests.map((request) => request.deviceId)}::int[], ${firsts}::int[], ${lasts}::int[])
             as request(request, device_id, first, last)
    )
    select fleet_request.request, per_device.bucket, per_device.moving_seconds, per_device.idle_seconds
      from fleet_request
     cross join lateral (${perDevice}) as per_device`;
}

/**
 * The boundaries of several requests as one flat array (one parameter, whatever the count), each
 * request naming its slice, 1-based and inclusive: `flat[firsts[i]:lasts[i]]` in SQL.
 */
export function flatBoundaries(requests: readonly { readonly boundaries: readonly number[] }[]): {
  flat: number[];
  firsts: number[];
  lasts: number[];
} {
  const firsts: number[] = [];
  const lasts: number[] = [];
  const flat: number[] = [];
  for (const { boundaries } of requests) {
    firsts.push(flat.length + 1);
    flat.push(...boundaries);
    lasts.push(flat.length);
  }
  return { flat, firsts, lasts };
}

/** `sumByBucketOf` for the request row `alias` of a statement: its `device_id` and `boundaries` columns. */
export function sumByBucketOfRow(alias: string, now: number): RawBuilder<BucketRow> {
  const row = sql.ref(alias);
  return sumByBucketOf(
    {
      deviceId: sql<number>`${row}.device_id`,
      boundaries: sql<number[]>`${row}.boundaries`,
      windowStart: sql<number>`${row}.boundaries[1]`,
      windowEnd: sql<number>`${row}.boundaries[cardinality(${row}.boundaries)]`,
    },
    now,
  );
}

/** `summarize` for several devices in one statement: one row per request. */
export function summarizeMany(
  requests: readonly { readonly index: number; readonly deviceId: number }[],
  now: number,
): RawBuilder<FleetSummaryRow> {
  return sql<FleetSummaryRow>`
    select fleet_request.request, per_device.first_started_at, per_device.moving_seconds, per_device.idle_seconds
      from unnest(${requests.map((request) => request.index)}::int[], ${requests.map((request) => request.deviceId)}::int[]) as fleet_request(request, device_id)
     cross join lateral (${summarizeOf(sql<number>`fleet_request.device_id`, now)}) as per_device`;
}
