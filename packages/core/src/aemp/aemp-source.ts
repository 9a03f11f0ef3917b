import { FleetHoursError, InvalidFieldError, InvalidParameterError } from '../errors/errors.js';
import { checkWebhookUrl } from '../events/webhook-endpoint.js';
import { readOptionalText } from '../manage/optional-text.js';
import { formatInstant } from '../time/format-instant.js';
import type { EpochSeconds } from '../types.js';

/**
 * An AEMP source as the API reads and shows it (D65, D66, P132, P133): the fields of a write by
 * their names in the body, the answer's shape without secrets, and the entity tag (D54).
 */

/** How a source is signed in to (D66): the secrets (`password`, `token`, `clientSecret`) are stored to be used and never shown. */
export type AempSourceAuth =
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  | { readonly kind: 'bearer'; readonly token: string }
  | {
      readonly kind: 'oauth2_client_credentials';
      readonly tokenUrl: string;
      readonly clientId: string;
      readonly clientSecret: string;
      /** The scope asked for; absent or `null`: none. */
      readonly scope?: string | null;
    };

/** The kinds of {@link AempSourceAuth}, as the body names them. */
export const AEMP_AUTH_KINDS = ['basic', 'bearer', 'oauth2_client_credentials'] as const;

/** A source's sign-in as reads show it (P133): the kind and the fields that are not secret. */
export type AempSourceAuthShown =
  | { readonly kind: 'basic'; readonly username: string }
  | { readonly kind: 'bearer' }
  | { readonly kind: 'oauth2_client_credentials'; readonly tokenUrl: string; readonly clientId: string; readonly scope: string | null };

/** The fields of a source a write gives (P132). */
export interface AempSourceFields {
  readonly name: string;
  readonly url: string;
  readonly auth: AempSourceAuth;
  readonly pollEverySeconds: number;
  readonly minIntervalPerUrlSeconds: number;
  readonly enabled: boolean;
}

/** An AEMP source as a store's reads return it (P132): never its secrets. */
export interface AempSource extends Omit<AempSourceFields, 'auth'> {
  readonly id: number;
  readonly accountId: number;
  readonly auth: AempSourceAuthShown;
  /** D54 (P133): 1 when created, one more at every change. */
  readonly version: number;
  readonly createdAt: EpochSeconds;
  readonly updatedAt: EpochSeconds;
  /** When the server polls it next (P134). */
  readonly nextPollAt: EpochSeconds;
}

/** A source a poller claimed (P134): with its secrets, which only a poll uses. */
export interface ClaimedAempSource extends Omit<AempSource, 'auth'> {
  readonly auth: AempSourceAuth;
}

/** The fields of a write by their names in the API's body (P132); the CLI's options have these names. */
export const AEMP_SOURCE_FIELDS = ['name', 'url', 'auth', 'poll_every_seconds', 'min_interval_per_url_seconds', 'enabled'] as const;

/** The bounds of a source's numbers, in seconds (P132): `poll_every_seconds` 300 (5 min) to a week, default 3600. */
export const AEMP_POLL_EVERY = { min: 300, max: 604_800, default: 3600 } as const;

/** `min_interval_per_url_seconds` 0 to a day, default 300 (P132). */
export const AEMP_MIN_INTERVAL = { min: 0, max: 86_400, default: 300 } as const;

/** The longest name of a source, and of a user name, client id or scope, in characters. */
export const AEMP_TEXT_MAX = 200;

/**
 * Checks the body of a source write (P132): a JSON object of {@link AEMP_SOURCE_FIELDS}. To create,
 * `name`, `url` and `auth` are needed; `url` (and an OAuth2 `token_url`) https, or http only for a
 * loopback host (D48 refuses the other non-public addresses when a poll connects); `auth` whole,
 * with its secret, each time it is given; numbers whole seconds within their bounds. A change
 * needs at least one field.
 *
 * @param input The body, as parsed from JSON.
 * @param mode `create` or `update`.
 * @returns The checked fields (a creation's with the defaults).
 * @throws {InvalidFieldError} Naming the first field that cannot be used (`auth.password`, …).
 * @throws {FleetHoursError} `invalid_body` when the input is not an object, or a change without fields.
 * @example
 * ```ts
 * import { readAempSourceFields } from '@fleet-hours/core';
 * readAempSourceFields({ name: 'Cat', url: 'https://oem.example/aemp/Fleet/1', auth: { kind: 'bearer', token: 't' } }, 'create').pollEverySeconds; // 3600
 * ```
 */
export function readAempSourceFields(input: unknown, mode: 'create'): AempSourceFields;
export function readAempSourceFields(input: unknown, mode: 'update'): Partial<AempSourceFields>;
export function readAempSourceFields(input: unknown, mode: 'create' | 'update'): Partial<AempSourceFields> {
  const given = _object(input, 'body', 'The body must be a JSON object with the fields of an AEMP source');
  for (const field of Object.keys(given))
    if (!(AEMP_SOURCE_FIELDS as readonly string[]).includes(field))
      throw new InvalidFieldError(field, `Unknown field "${field.slice(0, 40)}": an AEMP source has ${AEMP_SOURCE_FIELDS.join(', ')}`);
  if (mode === 'update' && Object.keys(given).length === 0)
    throw new FleetHoursError('invalid_body', { message: `Nothing to change: give at least one of ${AEMP_SOURCE_FIELDS.join(', ')}` });
  if (mode === 'create')
    for (const field of ['name', 'url', 'auth'] as const)
      if (given[field] === undefined) throw new InvalidFieldError(field, `${field} is required`);
  const fields: { -readonly [K in keyof AempSourceFields]?: AempSourceFields[K] } = {};
  if (given.name !== undefined) fields.name = _text('name', given.name);
  if (given.url !== undefined) fields.url = _url('url', given.url);
  if (given.auth !== undefined) fields.auth = _auth(given.auth);
  const pollEvery = given.poll_every_seconds ?? (mode === 'create' ? AEMP_POLL_EVERY.default : undefined);
  if (pollEvery !== undefined) fields.pollEverySeconds = _seconds('poll_every_seconds', pollEvery, AEMP_POLL_EVERY);
  const interval = given.min_interval_per_url_seconds ?? (mode === 'create' ? AEMP_MIN_INTERVAL.default : undefined);
  if (interval !== undefined) fields.minIntervalPerUrlSeconds = _seconds('min_interval_per_url_seconds', interval, AEMP_MIN_INTERVAL);
  if (given.enabled !== undefined) {
    if (typeof given.enabled !== 'boolean') throw new InvalidFieldError('enabled', 'enabled must be true or false');
    fields.enabled = given.enabled;
  } else if (mode === 'create') fields.enabled = true;
  return fields;
}

/**
 * A source's sign-in without its secret (P133): what every read shows.
 *
 * @example
 * ```ts
 * import { shownAempAuth } from '@fleet-hours/core';
 * shownAempAuth({ kind: 'basic', username: 'fleet', password: 'p' }); // { kind: 'basic', username: 'fleet' }
 * ```
 */
export function shownAempAuth(auth: AempSourceAuth): AempSourceAuthShown {
  if (auth.kind === 'basic') return { kind: 'basic', username: auth.username };
  if (auth.kind === 'bearer') return { kind: 'bearer' };
  return { kind: 'oauth2_client_credentials', tokenUrl: auth.tokenUrl, clientId: auth.clientId, scope: auth.scope ?? null };
}

/** A source as the API shows it (P133): snake_case, instants in UTC ISO 8601, `auth` without its secret. */
export interface AempSourceBody {
  readonly id: number;
  readonly name: string;
  readonly url: string;
  readonly auth: {
    readonly kind: AempSourceAuth['kind'];
    readonly username?: string;
    readonly token_url?: string;
    readonly client_id?: string;
    readonly scope?: string | null;
    /** Always `true`: a secret is stored, and never shown. */
    readonly has_secret: true;
  };
  readonly poll_every_seconds: number;
  readonly min_interval_per_url_seconds: number;
  readonly enabled: boolean;
  readonly next_poll_at: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly version: number;
}

/**
 * A source in the API's shape (P133): never a secret.
 *
 * @param source The source as a store read it.
 */
export function aempSourceBody(source: AempSource): AempSourceBody {
  const auth = source.auth;
  const instant = (seconds: EpochSeconds) => formatInstant(seconds, 'UTC');
  return {
    id: source.id,
    name: source.name,
    url: source.url,
    auth:
      auth.kind === 'basic'
        ? { kind: auth.kind, username: auth.username, has_secret: true }
        : auth.kind === 'bearer'
          ? { kind: auth.kind, has_secret: true }
          : { kind: auth.kind, token_url: auth.tokenUrl, client_id: auth.clientId, scope: auth.scope, has_secret: true },
    poll_every_seconds: source.pollEverySeconds,
    min_interval_per_url_seconds: source.minIntervalPerUrlSeconds,
    enabled: source.enabled,
    next_poll_at: instant(source.nextPollAt),
    created_at: instant(source.createdAt),
    updated_at: instant(source.updatedAt),
    version: source.version,
  };
}

/**
 * The entity tag of a source (D54, P133): its version in double quotes, `"a3"`.
 *
 * @example
 * ```ts
 * import { aempSourceEntityTag } from '@fleet-hours/core';
 * aempSourceEntityTag({ version: 3 }); // '"a3"'
 * ```
 */
export function aempSourceEntityTag(source: Pick<AempSource, 'version'>): string {
  return `"a${source.version}"`;
}

function _object(value: unknown, field: string, message: string): Readonly<Record<string, unknown>> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Readonly<Record<string, unknown>>;
  if (field === 'body') throw new FleetHoursError('invalid_body', { message });
  throw new InvalidFieldError(field, message);
}

function _text(field: string, value: unknown): string {
  const text = readOptionalText(field, value, AEMP_TEXT_MAX);
  if (text === null) throw new InvalidFieldError(field, `${field} must be a text of 1 to ${AEMP_TEXT_MAX} characters`);
  return text;
}

function _secret(field: string, value: unknown): string {
  // A secret is used as given (not trimmed), and never named in a message.
  if (typeof value !== 'string' || value === '' || value.length > 4096 || /[\r\n]/.test(value))
    throw new InvalidFieldError(field, `${field} must be a text of 1 to 4096 characters without line breaks`);
  return value;
}

function _url(field: string, value: unknown): string {
  if (typeof value !== 'string') throw new InvalidFieldError(field, `${field} must be a string: an absolute https URL`);
  try {
    return checkWebhookUrl(value);
  } catch (error) {
    if (error instanceof InvalidParameterError) throw new InvalidFieldError(field, error.message.replace(/^url/, field));
    throw error;
  }
}

function _seconds(field: string, value: unknown, bounds: { readonly min: number; readonly max: number }): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < bounds.min || value > bounds.max)
    throw new InvalidFieldError(field, `${field} must be a whole number of seconds from ${bounds.min} to ${bounds.max}`);
  return value;
}

function _auth(value: unknown): AempSourceAuth {
  const auth = _object(value, 'auth', `auth must be an object: {"kind": ${AEMP_AUTH_KINDS.map((kind) => `"${kind}"`).join(' | ')}, …}`);
  const allowed: Record<AempSourceAuth['kind'], readonly string[]> = {
    basic: ['kind', 'username', 'password'],
    bearer: ['kind', 'token'],
    oauth2_client_credentials: ['kind', 'token_url', 'client_id', 'client_secret', 'scope'],
  };
  const kind = auth.kind as AempSourceAuth['kind'];
  if (!AEMP_AUTH_KINDS.includes(kind)) throw new InvalidFieldError('auth.kind', `auth.kind must be one of ${AEMP_AUTH_KINDS.join(', ')}`);
  for (const field of Object.keys(auth))
    if (!allowed[kind].includes(field))
      throw new InvalidFieldError(`auth.${field.slice(0, 40)}`, `auth of kind ${kind} has ${allowed[kind].join(', ')}`);
  if (kind === 'basic') return { kind, username: _text('auth.username', auth.username), password: _secret('auth.password', auth.password) };
  if (kind === 'bearer') return { kind, token: _secret('auth.token', auth.token) };
  return {
    kind,
    tokenUrl: _url('auth.token_url', auth.token_url),
    clientId: _text('auth.client_id', auth.client_id),
    clientSecret: _secret('auth.client_secret', auth.client_secret),
    scope: readOptionalText('auth.scope', auth.scope, AEMP_TEXT_MAX),
  };
}
