import {
  AempFetchError,
  pollAempSource,
  type AempPollOptions,
  type AempPollRecord,
  type ChangeOrigin,
  type EpochSeconds,
  type EventChecks,
} from '@fleet-hours/core';
import { aempPageReader, type AempAuth, type AempReaderOptions } from './aemp-page-reader.js';

/** What a poll needs of a source (D65): where its feed starts, how to sign in, how often a URL may be asked. */
export interface AempSourceSettings {
  readonly id: number | string;
  readonly accountId: number;
  /** The feed's first page: `…/Fleet/1`, or `…/Fleet/0` where the source starts there. */
  readonly url: string;
  readonly auth: AempAuth | null;
  readonly minIntervalPerUrlSeconds: number;
  readonly format?: 'xml' | 'json';
}

/** What polls share: the store and writes, who writes, and the reader's bounds. */
export interface AempSourcePollerOptions
  extends Pick<AempPollOptions, 'store' | 'writes'>,
    Pick<AempReaderOptions, 'allowPrivateAddresses' | 'maxWaitSeconds' | 'maxRetries' | 'timeoutMs' | 'now' | 'sleep'> {
  /** Who the readings are written by (D55). */
  readonly origin: ChangeOrigin;
  /**
   * The check of events (`fleetHours.events`, D40, P140): after a poll that stored readings, the
   * devices it wrote are checked at once, as a write of their engine time is, so their schedules'
   * `service.due_soon` and `service.overdue` follow the feed without waiting for the periodic check.
   * Without it, only the periodic check raises them.
   */
  readonly events?: Pick<EventChecks, 'check'>;
}

/**
 * Polls sources (D65, D66): one reader per source, kept while its settings stay (so its OAuth2
 * token and the times its URLs were asked carry over from poll to poll), made anew when they change.
 */
export function aempSourcePoller(options: AempSourcePollerOptions): {
  /** Polls a source; its readings and their change-log entries name `origin` (default: the poller's). */
  readonly poll: (source: AempSourceSettings, origin?: ChangeOrigin) => Promise<AempPollRecord>;
  /**
   * When the source's last poll ended on a wait longer than a poll waits (its `Retry-After`, or its
   * URL's minimum interval; P155), the first second it may be asked again; else `null`.
   */
  readonly notBefore: (sourceId: number | string) => EpochSeconds | null;
} {
  const notBefore = new Map<string, EpochSeconds>();
  const readers = new Map<string, { readonly settings: string; readonly reader: ReturnType<typeof aempPageReader> }>();
  const nowSeconds = (): EpochSeconds => Math.floor((options.now ?? Date.now)() / 1000);
  const readerOf = (source: AempSourceSettings) => {
    const key = String(source.id);
    const settings = JSON.stringify([source.auth, source.minIntervalPerUrlSeconds, source.format ?? 'xml']);
    const kept = readers.get(key);
    if (kept?.settings === settings) return kept.reader;
    const { store: _store, writes: _writes, origin: _origin, events: _events, ...bounds } = options;
    const reader = aempPageReader({
      ...bounds,
      auth: source.auth,
      minIntervalPerUrlSeconds: source.minIntervalPerUrlSeconds,
      format: source.format ?? 'xml',
    });
    readers.set(key, { settings, reader });
    return reader;
  };
  return {
    async poll(source, origin = options.origin) {
      // P140: the devices whose readings this poll stored, for the check of their events.
      const written = new Set<number>();
      notBefore.delete(String(source.id));
      const record = await pollAempSource({
        sourceId: source.id,
        accountId: source.accountId,
        url: source.url,
        fetchPage: async (url) => {
          try {
            return await readerOf(source).fetchPage(url);
          } catch (error) {
            if (error instanceof AempFetchError && error.retryAfterSeconds !== null)
              notBefore.set(String(source.id), nowSeconds() + error.retryAfterSeconds);
            throw error;
          }
        },
        store: options.store,
        writes: {
          async addSourceReading(input) {
            const added = await options.writes.addSourceReading(input);
            if (added) written.add(input.deviceId);
            return added;
          },
        },
        origin,
        nowSeconds,
      });
      // The readings are committed, each in its own unit: the check reads them like any other reader.
      // A check that fails leaves the poll's record intact: the periodic check raises the same
      // events under the same ids (D40), so nothing is lost, only later.
      if (options.events && written.size > 0) {
        const deviceIds = [...written].sort((a, b) => a - b);
        await options.events.check({ now: nowSeconds(), accountId: source.accountId, deviceIds }).catch(() => 0);
      }
      return record;
    },
    notBefore: (sourceId) => notBefore.get(String(sourceId)) ?? null,
  };
}
