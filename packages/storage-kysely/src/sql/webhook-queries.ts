/**
 * The statements on webhook endpoints, the outbox, deliveries and attempts (D40, D41). A claim
 * is one statement that locks the due rows it takes (`for update skip locked`), so senders of any
 * number of instances claim disjoint sets at once; an attempt's report is one transaction that
 * locks its delivery, then its endpoint.
 */
import type { EventType, NewWebhookEvent, WebhookAttempt, WebhookDelivery, WebhookDeliveryState, WebhookEndpoint } from '@fleet-hours/core';
import type { EndpointDisabledReason } from '@fleet-hours/core';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { FleetHoursDatabase, WebhookEndpointsTable } from '../schema/database-schema.js';
import { epochSeconds, type EpochSecondsRow, instantOf, isId, secondsOrNull } from './sql-values.js';

type Db = Kysely<FleetHoursDatabase> | Transaction<FleetHoursDatabase>;

export const ENDPOINT_COLUMNS = [
  'id',
  'account_id',
  'url',
  'event_types',
  'description',
  'secret',
  'previous_secret',
  epochSeconds('previous_secret_expires_at').as('previous_secret_expires_at'),
  'enabled',
  'disabled_reason',
  epochSeconds('disabled_at').as('disabled_at'),
  epochSeconds('failing_since').as('failing_since'),
  epochSeconds('created_at').as('created_at'),
] as const;

/** An endpoint row as {@link ENDPOINT_COLUMNS} read it: the table's columns, its instants as epoch seconds. */
export type EndpointRow = EpochSecondsRow<WebhookEndpointsTable>;

export function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    eventTypes: row.event_types as EventType[],
    description: row.description,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: secondsOrNull(row.previous_secret_expires_at),
    enabled: row.enabled,
    disabledReason: row.disabled_reason as EndpointDisabledReason | null,
    disabledAt: secondsOrNull(row.disabled_at),
    failingSince: secondsOrNull(row.failing_since),
    createdAt: Number(row.created_at),
  };
}

/** A delivery row as `DELIVERY_COLUMNS` read it. */
export interface DeliveryRow {
  id: string | number;
  event_id: string;
  endpoint_id: number;
  state: string;
  attempts: number;
  next_attempt_at: number | string | null;
  created_at: number | string;
  claimant: string | null;
}

export const DELIVERY_COLUMNS = sql`d.id, d.event_id, d.endpoint_id, d.state, d.attempts, date_part('epoch', d.next_attempt_at) as next_attempt_at,
  date_part('epoch', d.created_at) as created_at, d.claimant`;

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: Number(row.id),
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    state: row.state as WebhookDeliveryState,
    attempts: row.attempts,
    nextAttemptAt: secondsOrNull(row.next_attempt_at),
    createdAt: Number(row.created_at),
  };
}

/**
 * Stores the events whose id is new, and their deliveries: to every enabled endpoint of the
 * account that wants the type, or to the one endpoint named. Run inside a transaction.
 *
 * @returns The ids stored.
 */
export async function insertEvents(trx: Db, events: readonly NewWebhookEvent[], now: number): Promise<string[]> {
  if (events.length === 0) return [];
  const inserted = await trx
    .insertInto('webhook_events')
    .values(
      events.map((event) => ({
        id: event.id,
        account_id: event.accountId,
        type: event.type,
        about_device_id: event.deviceId,
        cause: event.cause === undefined ? null : instantOf(event.cause),
        body: event.body,
        raised_at: instantOf(event.raisedAt),
      })),
    )
    .onConflict((conflict) => conflict.column('id').doNothing())
    .returning('id')
    .execute();
  const stored = new Set(inserted.map((row) => row.id));
  const fresh = events.filter((event, index) => stored.has(event.id) && events.findIndex((other) => other.id === event.id) === index);
  const broadcast = fresh.filter((event) => event.endpointId === undefined).map((event) => event.id);
  if (broadcast.length > 0) {
    await sql`
      insert into webhook_deliveries (event_id, endpoint_id, state, next_attempt_at, created_at)
      select e.id, p.id, 'pending', ${instantOf(now)}, ${instantOf(now)}
        from webhook_events e join webhook_endpoints p on p.account_id = e.account_id
       where e.id = any(${broadcast}::text[]) and p.enabled and e.type = any(p.event_types)
       order by e.id, p.id`.execute(trx);
  }
  for (const event of fresh.filter((one) => one.endpointId !== undefined)) {
    await sql`
      insert into webhook_deliveries (event_id, endpoint_id, state, next_attempt_at, created_at)
      select ${event.id}, p.id, 'pending', ${instantOf(now)}, ${instantOf(now)}
        from webhook_endpoints p where p.id = ${event.endpointId} and p.account_id = ${event.accountId}`.execute(trx);
  }
  return fresh.map((event) => event.id);
}

/** What a claim takes (`claimDeliveries`). */
export interface ClaimInput {
  claimant: string;
  eventId?: string | undefined;
  limit: number;
  leaseSeconds: number;
  now: number;
  perEndpoint?: number | undefined;
  held?: readonly { readonly endpointId: number; readonly requests: number }[] | undefined;
}

/**
 * The claim: the due rows no one holds, locked and skipped when another claim holds them (D41).
 * With `perEndpoint` (D47, P62): the endpoints that have pending deliveries, found one index probe
 * each (`webhook_deliveries_endpoint_due_idx`, migration 0014), those enabled and under their
 * share; of each, its oldest due rows up to its share less what the claimant already sends it,
 * locked (`skip locked`: claims made at once take disjoint rows); of those, the oldest `limit`.
 * An endpoint at its share is not read at all, however large its backlog. Rows locked and not
 * taken are unlocked when the statement ends. Under READ COMMITTED a row another claim took while
 * this one waited for its lock is seen as it is now, and left out by the same conditions.
 */
export function claimDue(input: ClaimInput) {
  const at = instantOf(input.now);
  const free = sql`d.state = 'pending' and d.next_attempt_at <= ${at} and (d.claimed_until is null or d.claimed_until <= ${at})`;
  const ofEvent = input.eventId === undefined ? sql`` : sql`and d.event_id = ${input.eventId}`;
  if (input.perEndpoint === undefined) {
    return _claimRows(
      input,
      sql`
      select d.id
        from webhook_deliveries d join webhook_endpoints p on p.id = d.endpoint_id
       where ${free} and p.enabled ${ofEvent}
       order by d.next_attempt_at, d.id
       limit ${input.limit}
       for update of d skip locked`,
    );
  }
  const share = Math.max(0, Math.floor(input.perEndpoint));
  const held = (input.held ?? []).filter((one) => isId(one.endpointId));
  return _claimRows(
    input,
    sql`
      with recursive pending (endpoint_id) as (
        (select d.endpoint_id from webhook_deliveries d where d.state = 'pending' order by d.endpoint_id limit 1)
        union all
        select (select d.endpoint_id from webhook_deliveries d
                 where d.state = 'pending' and d.endpoint_id > e.endpoint_id order by d.endpoint_id limit 1)
          from pending e where e.endpoint_id is not null),
      held (endpoint_id, requests) as (
        select * from unnest(${held.map((one) => one.endpointId)}::integer[], ${held.map((one) => one.requests)}::integer[])),
      room as (
        select e.endpoint_id, ${share}::integer - coalesce(h.requests, 0) as room
          from pending e join webhook_endpoints p on p.id = e.endpoint_id and p.enabled
          left join held h on h.endpoint_id = e.endpoint_id
         where ${share}::integer - coalesce(h.requests, 0) > 0)
      select c.id
        from room r cross join lateral (
          select d.id, d.next_attempt_at from webhook_deliveries d
           where d.endpoint_id = r.endpoint_id and ${free} ${ofEvent}
           order by d.next_attempt_at, d.id
           limit r.room
           for update of d skip locked) c
       order by c.next_attempt_at, c.id
       limit ${input.limit}`,
  );
}

/**
 * A claimed row: the delivery, its event and its endpoint's columns as {@link EndpointRow} has them,
 * prefixed `endpoint_` (its id is the delivery's `endpoint_id`, its account the event's), read by the claim itself.
 */
export type ClaimedRow = DeliveryRow & {
  type: string;
  account_id: number;
  about_device_id: number | null;
  body: string;
  raised_at: number | string;
} & { [Column in Exclude<keyof EndpointRow, 'id' | 'account_id'> as `endpoint_${Column}`]: EndpointRow[Column] };

/** The endpoint of a claimed row. */
export function claimedEndpoint(row: ClaimedRow): WebhookEndpoint {
  return toEndpoint({
    id: row.endpoint_id,
    account_id: row.account_id,
    url: row.endpoint_url,
    event_types: row.endpoint_event_types,
    description: row.endpoint_description,
    secret: row.endpoint_secret,
    previous_secret: row.endpoint_previous_secret,
    previous_secret_expires_at: row.endpoint_previous_secret_expires_at,
    enabled: row.endpoint_enabled,
    disabled_reason: row.endpoint_disabled_reason,
    disabled_at: row.endpoint_disabled_at,
    failing_since: row.endpoint_failing_since,
    created_at: row.endpoint_created_at,
  });
}

/** Marks the rows `due` selects as the claimant's, and returns each with its event and endpoint: one round trip. */
function _claimRows(input: ClaimInput, due: ReturnType<typeof sql>) {
  return sql<ClaimedRow>`
    with due as (${due})
    update webhook_deliveries d
       set claimant = ${input.claimant}, claimed_until = ${instantOf(input.now + input.leaseSeconds)}
      from due, webhook_events e, webhook_endpoints p
     where d.id = due.id and e.id = d.event_id and p.id = d.endpoint_id
    returning ${DELIVERY_COLUMNS}, e.type, e.account_id, e.about_device_id, e.body, date_part('epoch', e.raised_at) as raised_at,
      p.url as endpoint_url, p.event_types as endpoint_event_types, p.description as endpoint_description,
      p.secret as endpoint_secret,
      p.previous_secret as endpoint_previous_secret,
      date_part('epoch', p.previous_secret_expires_at) as endpoint_previous_secret_expires_at, p.enabled as endpoint_enabled,
      p.disabled_reason as endpoint_disabled_reason, date_part('epoch', p.disabled_at) as endpoint_disabled_at,
      date_part('epoch', p.failing_since) as endpoint_failing_since, date_part('epoch', p.created_at) as endpoint_created_at`;
}

/** An attempt row as `listAttempts` reads it. */
interface AttemptRow {
  id: string | number;
  delivery_id: string | number;
  event_id: string;
  event_type: string;
  endpoint_id: number;
  attempted_at: number | string;
  status: number | null;
  duration_ms: number;
  error: string | null;
}

/** The endpoint's attempts, newest first; with `failedOnly`, those of failed deliveries. */
export async function listAttempts(
  db: Db,
  input: {
    endpointId: number;
    failedOnly: boolean;
    limit: number;
    before?: { readonly attemptedAt: number; readonly id: number } | undefined;
  },
): Promise<WebhookAttempt[]> {
  const { before } = input;
  const { rows } = await sql<AttemptRow>`
    select a.id, a.delivery_id, a.event_id, a.event_type, a.endpoint_id, date_part('epoch', a.attempted_at) as attempted_at,
           a.status, a.duration_ms, a.error
      from webhook_attempts a
     where a.endpoint_id = ${input.endpointId}
       ${before === undefined ? sql`` : sql`and (a.attempted_at, a.id) < (${instantOf(before.attemptedAt)}, ${before.id})`}
       ${input.failedOnly ? sql`and exists (select 1 from webhook_deliveries d where d.id = a.delivery_id and d.state = 'failed')` : sql``}
     order by a.attempted_at desc, a.id desc
     limit ${input.limit}`.execute(db);
  return rows.map((row) => ({
    id: Number(row.id),
    deliveryId: Number(row.delivery_id),
    eventId: row.event_id,
    eventType: row.event_type as EventType,
    endpointId: row.endpoint_id,
    attemptedAt: Number(row.attempted_at),
    status: row.status,
    durationMs: Number(row.duration_ms),
    error: row.error,
  }));
}

/**
 * Successful attempts (2xx) of `claimant`, of distinct deliveries, in ONE statement (D41): each
 * attempt inserted; each delivery its claimant still holds marked `delivered` and released; the
 * failing streak of their endpoints cleared — an endpoint row is written (and locked) only when it
 * has a streak, so the successes of many senders to one endpoint do not queue on it. A delivery
 * whose claim was lost keeps its state (its attempt is recorded all the same).
 *
 * @returns The deliveries after the attempts, by id (a missing delivery is absent).
 */
export async function recordSuccesses(
  db: Db,
  claimant: string,
  reports: readonly {
    deliveryId: number;
    attempt: { attemptedAt: number; status: number | null; durationMs: number; error: string | null };
  }[],
): Promise<Map<number, DeliveryRow>> {
  const ids = reports.map((report) => report.deliveryId);
  const { rows } = await sql<DeliveryRow>`
    with input as (
      select * from unnest(${ids}::bigint[], ${reports.map((report) => report.attempt.attemptedAt)}::float8[],
                           ${reports.map((report) => report.attempt.status)}::integer[], ${reports.map((report) => report.attempt.durationMs)}::float8[],
                           ${reports.map((report) => report.attempt.error)}::text[])
        with ordinality as i (delivery_id, attempted_at, status, duration_ms, error, ord)),
    recorded as (
      insert into webhook_attempts (delivery_id, event_id, event_type, endpoint_id, attempted_at, status, duration_ms, error)
      select i.delivery_id, d.event_id, e.type, d.endpoint_id, to_timestamp(i.attempted_at), i.status, i.duration_ms, i.error
        from input i join webhook_deliveries d on d.id = i.delivery_id join webhook_events e on e.id = d.event_id
       order by i.ord),
    done as (
      update webhook_deliveries d
         set state = 'delivered', attempts = d.attempts + 1, next_attempt_at = null, claimant = null, claimed_until = null
        from input i
       where d.id = i.delivery_id and d.claimant = ${claimant}
      returning ${DELIVERY_COLUMNS}),
    healed as (
      update webhook_endpoints p set failing_since = null
       where p.id in (select endpoint_id from done) and p.failing_since is not null)
    select * from done
    union all
    select ${DELIVERY_COLUMNS} from webhook_deliveries d
     where d.id = any(${ids}::bigint[]) and d.id not in (select id from done)`.execute(db);
  return new Map(rows.map((row) => [Number(row.id), row]));
}
