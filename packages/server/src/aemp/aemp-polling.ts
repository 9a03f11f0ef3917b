import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  aempSourcesOf,
  type AempPollRecord,
  type ChangeOrigin,
  type ClaimedAempSource,
  type EpochSeconds,
  type FleetHours,
  type StoredAempPoll,
} from '@fleet-hours/core';
import { aempSourcePoller } from './aemp-source-poller.js';

/** What the polls of stored AEMP sources need (D65, P134). */
export interface AempPollingOptions {
  /** The service: its store keeps the sources, its `manage` writes the readings. */
  readonly fleetHours: FleetHours;
  /** Epoch milliseconds now. */
  readonly now: () => number;
  /** Let requests reach non-public addresses, and http on the loopback address (D48). */
  readonly allowPrivateAddresses: boolean;
  /** How long a claim holds a source, in seconds: a poller that dies frees it after this. Default 900. */
  readonly leaseSeconds?: number;
  /** Receives a line per poll (never a secret). */
  readonly log: (entry: object) => void;
}

/** The default lease of a claimed source: a poll that takes longer may be polled again by another server (P134). */
export const AEMP_POLL_LEASE_SECONDS = 900;

/** The most sources one round of the background polling takes, one after the other. */
const _ROUND = 20;

/** The origin of a poll's readings (D55, P136): the poller, labelled with its source. */
export function aempPollerOrigin(sourceId: number): ChangeOrigin {
  return { actor: { kind: 'aemp_poller', label: `aemp:${sourceId}` }, requestId: null };
}

/**
 * Polls claimed AEMP sources (D65, P134): claim, poll, store the record and release with the next
 * poll due `poll_every_seconds` after the poll's end. `pollDue` takes the due, enabled sources of
 * every account (one claim at a time: another server takes the others); `pollNow` one source of an
 * account now, due or not (the CLI's `aemp-sources poll`).
 */
export function aempPolling(options: AempPollingOptions) {
  const sources = aempSourcesOf(options.fleetHours.store);
  const claimant = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const nowSeconds = (): EpochSeconds => Math.floor(options.now() / 1000);
  const leaseSeconds = options.leaseSeconds ?? AEMP_POLL_LEASE_SECONDS;
  const poller = aempSourcePoller({
    store: options.fleetHours.store,
    writes: options.fleetHours.manage,
    origin: aempPollerOrigin(0),
    allowPrivateAddresses: options.allowPrivateAddresses,
    now: options.now,
    // P140: a poll that stored readings checks their devices' events at once.
    events: options.fleetHours.events,
  });
  const run = async (source: ClaimedAempSource): Promise<StoredAempPoll | null> => {
    let record: AempPollRecord;
    try {
      record = await poller.poll(
        {
          id: source.id,
          accountId: source.accountId,
          url: source.url,
          auth: source.auth,
          minIntervalPerUrlSeconds: source.minIntervalPerUrlSeconds,
        },
        aempPollerOrigin(source.id),
      );
    } catch (error) {
      // Not a page that could not be read (those are in the record): the store failed. Recorded without its details.
      options.log({ level: 'error', msg: 'aemp poll failed', source_id: source.id, error: (error as Error).message });
      const at = nowSeconds();
      record = {
        ...{ sourceId: source.id, startedAt: at, finishedAt: at, pages: 0, equipmentSeen: 0, matched: 0, unmatched: [] },
        ...{ readingsStored: 0, readingsRefused: [], error: { status: null, message: 'the poll failed on this server' }, stop: null },
      };
    }
    const stored = await sources!.finishAempPoll({
      sourceId: source.id,
      claimant,
      record,
      // P155: never sooner than the source allows: a poll that ended on a longer wait is next due after it.
      nextPollAt: Math.max(record.finishedAt + source.pollEverySeconds, poller.notBefore(source.id) ?? 0),
    });
    options.log({
      msg: 'aemp poll',
      source_id: source.id,
      pages: record.pages,
      matched: record.matched,
      unmatched: record.unmatched.length,
      readings_stored: record.readingsStored,
      readings_refused: record.readingsRefused.length,
      error: record.error?.message ?? null,
    });
    return stored;
  };
  return {
    /** Polls the due sources one after the other, a round of at most 20; how many it polled. */
    async pollDue(): Promise<number> {
      if (!sources) return 0;
      let polled = 0;
      for (; polled < _ROUND; polled += 1) {
        const source = await sources.claimAempSource({ claimant, now: nowSeconds(), leaseSeconds });
        if (!source) break;
        await run(source);
      }
      return polled;
    },
    /** Polls one source of the account now; `null` when there is no such source, or another server polls it now. */
    async pollNow(input: { readonly accountId: number; readonly sourceId: number }): Promise<StoredAempPoll | null> {
      if (!sources) return null;
      const source = await sources.claimAempSource({ claimant, now: nowSeconds(), leaseSeconds, ...input });
      return source ? run(source) : null;
    },
  };
}

/**
 * The background polling of a server (D65, P134): a round of {@link aempPolling}'s `pollDue` now,
 * then every `intervalMs` after the end of the last.
 */
export function startAempPolling(options: AempPollingOptions & { readonly intervalMs: number }): { close(): Promise<void> } {
  const polling = aempPolling(options);
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let round: Promise<void> = Promise.resolve();
  const next = () => {
    if (stopped) return;
    round = polling
      .pollDue()
      .then(() => undefined)
      .catch((error: unknown) => options.log({ level: 'error', msg: 'aemp polling failed', error: (error as Error).message }))
      .finally(() => {
        if (!stopped) timer = setTimeout(next, options.intervalMs);
      });
  };
  timer = setTimeout(next, 0);
  return {
    async close() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await round;
    },
  };
}
