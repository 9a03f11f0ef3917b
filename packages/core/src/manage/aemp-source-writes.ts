import { aempSourceBody, readAempSourceFields, type AempSource } from '../aemp/aemp-source.js';
import { FleetHoursError, InvalidParameterError } from '../errors/errors.js';
import { aempSourcesOf, type AempSourceStore, type StoredAempPoll } from '../store/aemp-source-port.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { EpochSeconds } from '../types.js';
import type { ChangeLog, ChangeOrigin } from './change-log.js';
import { changeUnits } from './change-unit.js';
import { entityVersion, ifMatchNames, preconditionFailed } from './entity-tag.js';

/** The bounds of a page of a source's polls (P135): 20 by default, at most 100. */
export const AEMP_POLLS_PAGE = { default: 20, max: 100 } as const;

/** A change of one source (D54, D55): whose, which, over which version (`If-Match`), by whom. */
export interface AempSourceChange {
  readonly accountId: number;
  readonly sourceId: number;
  readonly ifMatch?: string | undefined;
  readonly origin: ChangeOrigin;
}

/** The service's management of AEMP sources (D52, D65, P133): every front end's. */
export interface AempSourceWrites {
  /** The account's sources by id. @throws {FleetHoursError} `not_found` when the store keeps no sources. */
  listAempSources(input: { readonly accountId: number }): Promise<readonly AempSource[]>;
  /** The account's source; `null` when it has none by that id. */
  findAempSource(input: { readonly accountId: number; readonly sourceId: number }): Promise<AempSource | null>;
  /**
   * Creates a source (enabled, due at once). The body is checked before anything is read.
   *
   * @returns The source; `null` when the account does not exist.
   * @throws {InvalidFieldError} A field that cannot be used, by its name (400).
   */
  createAempSource(input: {
    readonly accountId: number;
    readonly body: unknown;
    readonly origin: ChangeOrigin;
  }): Promise<AempSource | null>;
  /**
   * Changes a source's fields; `auth`, when given, whole with its secret.
   *
   * @throws {FleetHoursError} `precondition_failed` (412) when `ifMatch` names another version, also when it changes meanwhile (D54).
   */
  updateAempSource(input: AempSourceChange & { readonly body: unknown }): Promise<AempSource | null>;
  /** Removes a source and its polls (its readings stay). */
  removeAempSource(input: AempSourceChange): Promise<AempSource | null>;
  /**
   * A page of a source's polls, newest first (P135).
   *
   * @returns The page and the cursor of the next (`null`: the last); `null` when the account has no such source.
   * @throws {InvalidParameterError} `limit` or `cursor` that cannot be used.
   */
  listAempPolls(input: {
    readonly accountId: number;
    readonly sourceId: number;
    readonly limit?: number | undefined;
    readonly cursor?: string | undefined;
  }): Promise<{ readonly data: readonly StoredAempPoll[]; readonly nextCursor: string | null } | null>;
}

/**
 * The management of AEMP sources over a store (D65, P133). Each change is reported to the change
 * log (D55) as `aemp_source.create|update|delete` with the source in its API shape, never a
 * secret: a changed secret shows as the field `secret` changed, `"[redacted]"` both sides.
 *
 * @param options The store, the clock in epoch seconds, where changes are written down (D55).
 */
export function aempSourceWrites(options: {
  readonly store: FleetHoursStore;
  readonly nowSeconds: () => EpochSeconds;
  readonly changeLog: ChangeLog;
}): AempSourceWrites {
  const { store, nowSeconds, changeLog } = options;
  const units = changeUnits(store, changeLog);
  /** P102: a write's unit, with the unit's sources and a recorder over its change log. */
  const inUnit = <T>(work: (sources: AempSourceStore, record: _Record) => Promise<T>) =>
    units(({ store, changeLog }) =>
      work(_sources(store), (action, source, before, after) =>
        changeLog.record({
          accountId: source.accountId,
          origin: before.origin,
          action,
          resource: { type: 'aemp_source', id: String(source.id) },
          before: before.body,
          after,
          secretFields: ['secret'],
        }),
      ),
    );
  const checked = (source: AempSource, ifMatch: string | undefined) => {
    if (ifMatch !== undefined && !ifMatchNames(ifMatch, `a${source.version}`)) throw preconditionFailed('AEMP source');
    return ifMatch === undefined ? {} : { expectedVersion: source.version };
  };
  return {
    listAempSources: ({ accountId }) => _sources(store).listAempSources({ accountId }),
    findAempSource: ({ accountId, sourceId }) => _sources(store).findAempSource({ accountId, sourceId }),
    async createAempSource({ accountId, body, origin }) {
      const fields = readAempSourceFields(body, 'create');
      return inUnit(async (sources, record) => {
        const source = await sources.createAempSource({ accountId, fields, now: nowSeconds() });
        if (source) await record('aemp_source.create', source, { origin, body: null }, _audited(source, _secretMark(fields.auth)));
        return source;
      });
    },
    async updateAempSource({ accountId, sourceId, body, ifMatch, origin }) {
      const changes = readAempSourceFields(body, 'update');
      return inUnit(async (sources, record) => {
        const current = await sources.findAempSource({ accountId, sourceId });
        if (!current) return null;
        const updated = await sources.updateAempSource({ accountId, sourceId, changes, now: nowSeconds(), ...checked(current, ifMatch) });
        // Gone or changed meanwhile: 412 with If-Match (D54), else a miss.
        if (!updated) {
          if (ifMatch !== undefined) throw preconditionFailed('AEMP source');
          return null;
        }
        // A secret given anew counts as changed (its value is never compared, nor written down).
        const mark = changes.auth ? _secretMark(changes.auth) : 'kept';
        await record('aemp_source.update', updated, { origin, body: _audited(current, 'kept') }, _audited(updated, mark));
        return updated;
      });
    },
    removeAempSource: ({ accountId, sourceId, ifMatch, origin }) =>
      inUnit(async (sources, record) => {
        const current = await sources.findAempSource({ accountId, sourceId });
        if (!current) return null;
        const removed = await sources.removeAempSource({ accountId, sourceId, ...checked(current, ifMatch) });
        // Gone or changed meanwhile: 412 with If-Match (D54), else a miss.
        if (!removed) {
          if (ifMatch !== undefined) throw preconditionFailed('AEMP source');
          return null;
        }
        await record('aemp_source.delete', removed, { origin, body: _audited(removed, 'kept') }, null);
        return removed;
      }),
    async listAempPolls({ accountId, sourceId, limit, cursor }) {
      const size = limit ?? AEMP_POLLS_PAGE.default;
      if (!Number.isInteger(size) || size < 1 || size > AEMP_POLLS_PAGE.max)
        throw new InvalidParameterError('limit', `Parameter limit must be a whole number from 1 to ${AEMP_POLLS_PAGE.max}`);
      const beforeId = cursor === undefined ? undefined : _decodeCursor(cursor, sourceId);
      const sources = _sources(store);
      if (!(await sources.findAempSource({ accountId, sourceId }))) return null;
      // One more than the page: whether there is a next page, without a count.
      const found = await sources.listAempPolls({ accountId, sourceId, limit: size + 1, ...(beforeId === undefined ? {} : { beforeId }) });
      const data = found.slice(0, size);
      const last = data.at(-1);
      return { data, nextCursor: found.length > size && last ? `${sourceId}.${last.id}` : null };
    },
  };
}

type _Record = (
  action: string,
  source: AempSource,
  before: { readonly origin: ChangeOrigin; readonly body: Readonly<Record<string, unknown>> | null },
  after: Readonly<Record<string, unknown>> | null,
) => Promise<void>;

/** The store's sources; a store without them answers 404 (P132). */
function _sources(store: FleetHoursStore): AempSourceStore {
  const sources = aempSourcesOf(store);
  if (!sources) throw new FleetHoursError('not_found', { message: 'This server keeps no AEMP sources' });
  return sources;
}

/** What the change log is given of a source (D55): its API shape, and a mark of its secret that the log writes redacted. */
function _audited(source: AempSource, secret: string): Readonly<Record<string, unknown>> {
  const { version: _version, updated_at: _updatedAt, next_poll_at: _next, ...body } = aempSourceBody(source);
  return { ...body, secret };
}

/** A mark that differs when a secret does: a hash, which the log never writes (`secretFields`). */
function _secretMark(auth: NonNullable<ReturnType<typeof readAempSourceFields>['auth']>): string {
  const secret = auth.kind === 'basic' ? auth.password : auth.kind === 'bearer' ? auth.token : auth.clientSecret;
  return entityVersion('s', [secret]);
}

function _decodeCursor(text: string, sourceId: number): number {
  const match = /^(\d{1,10})\.(\d{1,15})$/.exec(text);
  if (!match || Number(match[1]) !== sourceId)
    throw new InvalidParameterError(
      'cursor',
      'Parameter cursor is not a cursor of this list: give the next_cursor of a previous page of it',
    );
  return Number(match[2]);
}
