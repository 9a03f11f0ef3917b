/**
 * The runtime check of the arguments of the service's public functions. TypeScript callers are
 * checked by the compiler; JavaScript callers, and values that crossed a JSON boundary, are not —
 * and without this check a date passed as text fails deep inside Temporal with a message that
 * names neither the parameter nor the fix (`toDate.subtract is not a function`).
 */

/** One kind of argument: whether a value is one, and what to pass instead, said to the caller. */
interface _ArgumentKind {
  readonly accepts: (value: unknown) => boolean;
  /** What the parameter must be, from its name and the value given. */
  readonly expected: (name: string, value: unknown) => string;
}

import { assertEpochSeconds } from '../time/assert-epoch-seconds.js';
import { SERVICE_STATUSES } from '../types.js';
import { UTILIZATION_GROUPINGS } from '../calendar/utilization.js';

const _isEpochSeconds = (value: unknown) => {
  try {
    assertEpochSeconds('value', value as number);
    return true;
  } catch {
    return false;
  }
};

const _isPlainDate = (value: unknown) => Object.prototype.toString.call(value) === '[object Temporal.PlainDate]';

/** Every kind of argument the service takes; a name ending in `?` also accepts `undefined`. */
const _KINDS = {
  id: { accepts: (value) => Number.isSafeInteger(value) && (value as number) > 0, expected: () => 'a positive integer' },
  'date?': {
    accepts: (value) => value === undefined || _isPlainDate(value),
    // Temporal's PlainDate is found by its tag, not `instanceof`, so that a date made by another copy of the polyfill (ESM and CJS) passes.
    expected: (name, value) =>
      `a Temporal.PlainDate (use parseWindowQuery({ ${name}: "${typeof value === 'string' ? value : '2026-11-01'}" }))`,
  },
  'limit?': {
    accepts: (value) => value === undefined || typeof value === 'number',
    expected: () => 'a number of devices per page (use parsePageQuery({ limit: "50" }))',
  },
  'cursor?': {
    accepts: (value) => value === undefined || typeof value === 'string',
    expected: () => 'the nextCursor of a previous page, a string',
  },
  'tag?': {
    accepts: (value) => value === undefined || typeof value === 'string',
    expected: () => 'a tag, a string (use parseTagParameter(c.req.queries("tag")))',
  },
  'statuses?': {
    accepts: (value) => value === undefined || (Array.isArray(value) && value.every((status) => SERVICE_STATUSES.includes(status))),
    expected: () => `an array of statuses (${SERVICE_STATUSES.join(', ')}; use parseServiceStatuses("due_soon,overdue"))`,
  },
  groupBy: {
    accepts: (value) => (UTILIZATION_GROUPINGS as readonly unknown[]).includes(value),
    expected: () => `one of ${UTILIZATION_GROUPINGS.join(', ')} (use parseUtilizationGrouping("week"))`,
  },
  authorization: {
    accepts: (value) => value === undefined || value === null || typeof value === 'string',
    expected: () => 'the Authorization header value, a string such as "Bearer fh_…" (or null or undefined when absent)',
  },
  credential: { accepts: (value) => value === 'api_key' || value === 'ingest_token', expected: () => '"api_key" or "ingest_token"' },
  'credential?': {
    accepts: (value) => value === undefined || value === 'api_key' || value === 'ingest_token',
    expected: () => '"api_key" or "ingest_token"',
  },
  'id?': {
    accepts: (value) => value === undefined || (Number.isSafeInteger(value) && (value as number) > 0),
    expected: () => 'a positive integer',
  },
  'ids?': {
    accepts: (value) => value === undefined || (Array.isArray(value) && value.every((id) => Number.isSafeInteger(id) && id > 0)),
    expected: () => 'an array of positive integers',
  },
  'seconds?': {
    accepts: (value) => value === undefined || _isEpochSeconds(value),
    expected: () => 'whole epoch seconds of the years 0001 to 9999 (not milliseconds: Math.floor(Date.now() / 1000))',
  },
  clock: { accepts: (value) => typeof value === 'function', expected: () => 'a function returning epoch milliseconds (pass Date.now)' },
  object: { accepts: (value) => typeof value === 'object' && value !== null, expected: () => 'an object' },
} as const satisfies Readonly<Record<string, _ArgumentKind>>;

/** The kind of one parameter, by name in {@link _KINDS}. */
export type ArgumentKindName = keyof typeof _KINDS;

/**
 * Checks the one object argument of a public function of the service, field by field.
 *
 * @param fn The function as the caller wrote it: `hours()`, `fleet.meter()`.
 * @param input The argument as passed.
 * @param shape The kind of each field.
 * @throws {TypeError} `hours(): from must be a Temporal.PlainDate (use parseWindowQuery({ from: "2026-11-01" })), got "2026-11-01"`.
 */
export function checkArguments(fn: string, input: unknown, shape: Readonly<Record<string, ArgumentKindName>>): void {
  if (typeof input !== 'object' || input === null) {
    throw new TypeError(`${fn}: pass one object { ${Object.keys(shape).join(', ')} }, got ${_describe(input)}`);
  }
  for (const [name, kind] of Object.entries(shape)) {
    const value = (input as Record<string, unknown>)[name];
    const { accepts, expected } = _KINDS[kind] as _ArgumentKind;
    if (!accepts(value)) throw new TypeError(`${fn}: ${name} must be ${expected(name, value)}, got ${_describe(value)}`);
  }
}

/** A value as a message shows it: text and numbers quoted, objects by their kind. */
function _describe(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return `${typeof value} "${String(value)}"`;
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return `a Date "${Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString()}"`;
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  return tag === 'Object' ? 'an object' : `a ${tag}${tag.startsWith('Temporal.') ? ` "${String(value)}"` : ''}`;
}
