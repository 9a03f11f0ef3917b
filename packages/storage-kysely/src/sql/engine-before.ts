import { sql, type RawBuilder } from 'kysely';

/** A row of {@link engineSecondsBeforeMany}: the engine seconds of one device before one instant. */
export interface EngineBeforeRow {
  readonly request: number;
  readonly position: number;
  readonly moving_seconds: number;
  readonly idle_seconds: number;
}

/**
 * The engine seconds of each device before each of its instants (each at or before `now`), in one
 * statement whatever their number, at a cost that follows neither the device's history nor the
 * time between its instants (D27, D38; P56):
 *
 * - the device's day row with the latest start at or before the instant: one probe backwards on
 *   the key `(device_id, day_start)`. When that day ends by the instant, the closed engine time
 *   before the instant is the row's running total through it (`*_before_seconds` + its seconds):
 *   no later day before the instant has closed engine time, or it would have a row. Otherwise the
 *   instant is inside that day: the running total before the day, plus
 * - the closed segments from the day's start up to the instant, clipped to that range: one bounded
 *   range scan on the segments' key (as in `overlappingSegments`: a segment that reaches into the
 *   range started at most the device's longest segment before it). Without any such row there is
 *   no closed engine time before the instant.
 * - the open segment (never in the figures), from its start up to the instant. It is the device's
 *   latest segment when there is one (no segment can start after it without overlapping it, D1),
 *   so one probe backwards on the key finds it: the planner, left to choose, may scan the whole
 *   key for `ended_at is null` instead of using the partial index (P56).
 *
 * Exact whatever zone the rows were cut in: they tile time without overlapping and each holds every
 * second of every closed segment in it. The requests and instants travel as four arrays (one row per
 * instant); a device that does not exist has no rows and no segments, so its values are zeros.
 */
export function engineSecondsBeforeMany(
  requests: readonly { readonly index: number; readonly deviceId: number; readonly instants: readonly number[] }[],
): RawBuilder<EngineBeforeRow> {
  const asked = requests.flatMap(({ index, deviceId, instants }) =>
    instants.map((instant, position) => ({ index, position, deviceId, instant })),
  );
  return sql<EngineBeforeRow>`
    select asked.request, asked.position,
           coalesce(day.moving_seconds, 0) + coalesce(part.moving_seconds, 0) + coalesce(open_segment.moving_seconds, 0) as moving_seconds,
           coalesce(day.idle_seconds, 0) + coalesce(part.idle_seconds, 0) + coalesce(open_segment.idle_seconds, 0) as idle_seconds
      from unnest(${asked.map((row) => row.index)}::int[], ${asked.map((row) => row.position)}::int[],
                  ${asked.map((row) => row.deviceId)}::int[], ${asked.map((row) => row.instant)}::float8[])
           as asked(request, position, device_id, instant)
      left join lateral (
             select case when figure.day_end <= asked.instant then figure.moving_before_seconds + figure.moving_seconds
                         else figure.moving_before_seconds end::float8 as moving_seconds,
                    case when figure.day_end <= asked.instant then figure.idle_before_seconds + figure.idle_seconds
                         else figure.idle_before_seconds end::float8 as idle_seconds,
                    case when figure.day_end <= asked.instant then null else figure.day_start::float8 end as day_start
               from engine_day_figures as figure
              where figure.device_id = asked.device_id and figure.day_start <= asked.instant::bigint
              order by figure.day_start desc
              limit 1
           ) as day on true
      left join lateral (
             select coalesce(sum(least(date_part('epoch', ended_at), asked.instant) - greatest(date_part('epoch', started_at), day.day_start))
                               filter (where state = 'moving'), 0) as moving_seconds,
                    coalesce(sum(least(date_part('epoch', ended_at), asked.instant) - greatest(date_part('epoch', started_at), day.day_start))
                               filter (where state = 'idle'), 0) as idle_seconds
               from engine_segments
              where day.day_start is not null
                and device_id = asked.device_id and ended_at is not null
                and started_at < to_timestamp(asked.instant) and ended_at > to_timestamp(day.day_start)
                and started_at >= to_timestamp(day.day_start - (select longest_segment_seconds from device_states where device_id = asked.device_id))
           ) as part on true
      left join lateral (
             select case when last.state = 'moving' then greatest(0, asked.instant - date_part('epoch', last.started_at)) else 0 end as moving_seconds,
                    case when last.state = 'idle' then greatest(0, asked.instant - date_part('epoch', last.started_at)) else 0 end as idle_seconds
               from (
                      select state, started_at, ended_at from engine_segments
                       where device_id = asked.device_id order by started_at desc limit 1
                    ) as last
              where last.ended_at is null
           ) as open_segment on true`;
}
