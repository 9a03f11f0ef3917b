import { fingerprintApiKey, generateIngestToken } from '../access/api-key.js';
import { credentialState } from '../access/credential-state.js';
import { FleetHoursError, InvalidFieldError } from '../errors/errors.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { givenInstantRangeMessage, isGivenInstantInRange } from '../time/instant-floor.js';
import { parseInstant } from '../time/parse-instant.js';
import type { EpochSeconds, IngestTokenRecord } from '../types.js';
import { REDACTED, type ChangeLog, type ChangeOrigin } from './change-log.js';
import { entityVersion, ifMatchNames, preconditionFailed } from './entity-tag.js';
import { NO_CHANGE_LOG, type FieldsWrite } from './write-input.js';
import { readOptionalText } from './optional-text.js';
import { changeUnits } from './change-unit.js';

/**
 * Ingest tokens managed (D24, D52): the one implementation behind `GET`, `POST /api/v1/ingest-tokens`,
 * `DELETE /api/v1/ingest-tokens/{id}` and the CLI's `ingest-tokens create|list|revoke`. A token is
 * made here and returned once by the write that made it; only its SHA-256 fingerprint is stored,
 * and a list shows only the fingerprint's first characters (P80). The change log never gets it (D55).
 */

/** The fields of a new ingest token, by their names in the API's body. */
export const INGEST_TOKEN_FIELDS = ['label', 'expires_at'] as const;

/** The longest label, in characters. */
export const INGEST_TOKEN_LABEL_MAX = 200;

/** Hex characters of a token's fingerprint the API shows (P80): enough to tell tokens apart. */
export const INGEST_TOKEN_FINGERPRINT_PREFIX_LENGTH = 8;

/** The fields of a new ingest token, checked. */
export interface IngestTokenFields {
  readonly label: string | null;
  readonly expiresAt: EpochSeconds | null;
}

/**
 * Checks the fields of a new ingest token (P80): a JSON object of {@link INGEST_TOKEN_FIELDS}, all
 * optional; `label` a text without control characters, at most {@link INGEST_TOKEN_LABEL_MAX}
 * characters (empty or `null`: none); `expires_at` an ISO 8601 instant with an offset, or `null` (never).
 *
 * @throws {InvalidFieldError} Naming the first field that cannot be used, unknown fields included.
 * @throws {FleetHoursError} `invalid_body` when the input is not an object.
 * @example
 * ```ts
 * import { readIngestTokenFields } from '@fleet-hours/core';
 * readIngestTokenFields({ label: ' yard ', expires_at: '2027-01-01T00:00:00Z' }); // { label: 'yard', expiresAt: 1798761600 }
 * ```
 */
export function readIngestTokenFields(input: unknown): IngestTokenFields {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new FleetHoursError('invalid_body', { message: 'The body must be a JSON object with the fields of an ingest token' });
  const given = input as Readonly<Record<string, unknown>>;
  for (const field of Object.keys(given)) {
    if (!(INGEST_TOKEN_FIELDS as readonly string[]).includes(field))
      throw new InvalidFieldError(field, `Unknown field "${field.slice(0, 40)}": an ingest token has ${INGEST_TOKEN_FIELDS.join(', ')}`);
  }
  return { label: readOptionalText('label', given.label, INGEST_TOKEN_LABEL_MAX), expiresAt: _expiresAt(given.expires_at) };
}

function _expiresAt(value: unknown): EpochSeconds | null {
  if (value === undefined || value === null) return null;
  const instant = typeof value === 'string' ? _instant(value.trim()) : null;
  if (instant === null)
    throw new InvalidFieldError(
      'expires_at',
      'expires_at must be an ISO 8601 instant with an offset, e.g. "2027-01-01T00:00:00Z", or null',
    );
  if (!isGivenInstantInRange(instant))
    throw new InvalidFieldError('expires_at', givenInstantRangeMessage('expires_at', JSON.stringify(value)));
  return instant;
}

function _instant(text: string): EpochSeconds | null {
  try {
    return parseInstant(text);
  } catch {
    return null;
  }
}

/** An ingest token as the API shows it: never the token, and only the start of its fingerprint (P80). */
export interface IngestTokenBody {
  readonly id: number;
  readonly label: string | null;
  readonly fingerprint_prefix: string;
  readonly state: 'active' | 'expired' | 'revoked';
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly revoked_at: string | null;
  /** D54 (P100): its `ETag` without the quotes. */
  readonly version: string;
}

/**
 * An ingest token in the API's shape (P80).
 *
 * @param record The stored token.
 * @param now Now, epoch seconds: whether it has expired.
 */
export function ingestTokenBody(record: IngestTokenRecord, now: EpochSeconds): IngestTokenBody {
  return {
    id: record.id,
    label: record.label,
    fingerprint_prefix: record.fingerprint.slice(0, INGEST_TOKEN_FINGERPRINT_PREFIX_LENGTH),
    state: credentialState(record, now),
    created_at: _iso(record.createdAt)!,
    expires_at: _iso(record.expiresAt),
    revoked_at: _iso(record.revokedAt),
    version: ingestTokenVersion(record),
  };
}

/**
 * The version of an ingest token (D54, P100): a hash of its label, its expiry and its revocation.
 * A revocation is the one change a token has, so it gives the token its one new version.
 *
 * @example
 * ```ts
 * import { ingestTokenVersion } from '@fleet-hours/core';
 * ingestTokenVersion({ label: 'yard', expiresAt: null, revokedAt: null }).length; // 18
 * ```
 */
export function ingestTokenVersion(record: Pick<IngestTokenRecord, 'label' | 'expiresAt' | 'revokedAt'>): string {
  return entityVersion('t', [record.label, record.expiresAt, record.revokedAt]);
}

/** The service's management of ingest tokens (D24, D52): every front end's. */
export interface IngestTokenWrites {
  /** The account's tokens, by id, revoked and expired ones included. */
  listIngestTokens(input: { readonly accountId: number }): Promise<readonly IngestTokenRecord[]>;
  /**
   * Creates a token of the account.
   *
   * @returns The stored token and the token itself, which is never returned again; `null` when the account does not exist.
   * @throws {InvalidFieldError} A field that cannot be used (400).
   */
  createIngestToken(input: FieldsWrite): Promise<{ readonly record: IngestTokenRecord; readonly token: string } | null>;
  /**
   * Revokes a token of the account: it answers 401 `revoked_ingest_token` from the next request on
   * (D24). A token revoked before keeps its first revocation.
   *
   * @param input `accountId`: the account whose token it must be; `null` for the operator's CLI, any
   *   account's. `ifMatch`: the token's tag as read (D54), only with an account.
   * @returns The token; `null` when there is no such token (of the account).
   * @throws {FleetHoursError} `precondition_failed` (412) when `ifMatch` names none of its tag, also when it is revoked meanwhile (D54).
   */
  revokeIngestToken(input: {
    readonly accountId: number | null;
    readonly tokenId: number;
    readonly ifMatch?: string | undefined;
    readonly origin: ChangeOrigin;
  }): Promise<IngestTokenRecord | null>;
}

/**
 * The management of ingest tokens over a store (D24, D52).
 *
 * @param options The store, the clock in epoch seconds, where changes are written down (D55; default: nowhere).
 */
export function ingestTokenWrites(options: {
  readonly store: FleetHoursStore;
  readonly nowSeconds: () => EpochSeconds;
  readonly changeLog?: ChangeLog | undefined;
  /** A new token; default `generateIngestToken()`. */
  readonly generate?: () => string;
}): IngestTokenWrites {
  const { store, nowSeconds } = options;
  const changeLog = options.changeLog ?? NO_CHANGE_LOG;
  const generate = options.generate ?? (() => generateIngestToken());
  const recorder =
    (changeLog: ChangeLog) =>
    (action: string, origin: ChangeOrigin, token: IngestTokenRecord, before: object | null, after: object | null) =>
      changeLog.record({
        accountId: token.accountId,
        origin,
        action,
        resource: { type: 'ingest_token', id: String(token.id) },
        before: before as Readonly<Record<string, unknown>> | null,
        after: after as Readonly<Record<string, unknown>> | null,
        // D55: the token is never handed to the log; the field says that one was made.
        secretFields: ['token'],
      });
  // P102: each write reads, changes and reports in one unit of the store.
  const units = changeUnits(store, changeLog);
  const inUnit = <T>(work: (unit: { readonly store: FleetHoursStore; readonly record: ReturnType<typeof recorder> }) => Promise<T>) =>
    units(({ store, changeLog }) => work({ store, record: recorder(changeLog) }));
  return {
    listIngestTokens: ({ accountId }) => store.listIngestTokens({ accountId }),
    async createIngestToken({ accountId, fields, origin }) {
      const { label, expiresAt } = readIngestTokenFields(fields);
      const token = generate();
      const now = nowSeconds();
      const fingerprint = await fingerprintApiKey(token);
      return inUnit(async ({ store, record }) => {
        const stored = await store.createIngestToken({ accountId, fingerprint, label, expiresAt, now });
        if (!stored) return null;
        await record('ingest_token.create', origin, stored, null, { ...ingestTokenBody(stored, now), token: REDACTED });
        return { record: stored, token };
      });
    },
    revokeIngestToken: ({ accountId, tokenId, ifMatch, origin }) =>
      inUnit(async ({ store, record }) => {
        // A token never changes account: once found on this one, the revocation is the account's.
        const found =
          accountId === null ? null : ((await store.listIngestTokens({ accountId })).find((token) => token.id === tokenId) ?? null);
        if (accountId !== null && found === null) return null;
        if (ifMatch !== undefined && (found === null || !ifMatchNames(ifMatch, ingestTokenVersion(found))))
          throw preconditionFailed('ingest token');
        const now = nowSeconds();
        const revoked = await store.revokeIngestToken({ tokenId, now });
        if (!revoked) return null;
        // D54 (P100): the store keeps the first revocation; one made by another write since the read is a change meanwhile.
        if (ifMatch !== undefined && revoked.revokedAt !== now && !ifMatchNames(ifMatch, ingestTokenVersion(revoked)))
          throw preconditionFailed('ingest token');
        // Revoked before: nothing changed to write down.
        if (found?.revokedAt == null && revoked.revokedAt === now)
          await record(
            'ingest_token.revoke',
            origin,
            revoked,
            ingestTokenBody(found ?? { ...revoked, revokedAt: null }, now),
            ingestTokenBody(revoked, now),
          );
        return revoked;
      }),
  };
}

const _iso = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'));
