import { shownAempAuth, type AempSource, type AempSourceAuth, type ClaimedAempSource } from '../aemp/aemp-source.js';
import { assertEpochSeconds } from '../time/assert-epoch-seconds.js';
import type { Account } from '../types.js';
import type { AempSourceStore, StoredAempPoll } from './aemp-source-port.js';
import type { MemoryUndo } from './memory-units.js';

/** A source as the memory store keeps it: with its secrets and its claim. */
interface _Kept extends Omit<AempSource, 'auth'> {
  readonly auth: AempSourceAuth;
  readonly claimant: string | null;
  readonly claimedUntil: number | null;
}

/**
 * The AEMP sources of a memory store (P132, P134, P135): sources by id, each with its claim, and
 * their polls in the order stored. A claim and its check run in one turn of the event loop, so two
 * claims never return one source.
 */
export function memoryAempSources(accounts: ReadonlyMap<number, Account>, undo: MemoryUndo): AempSourceStore {
  const sources = new Map<number, _Kept>();
  const polls: StoredAempPoll[] = [];
  const ids = { source: 0, poll: 0 };
  // P102: a failed unit puts them back (a source is replaced, never changed in place).
  undo.keep([sources, polls, ids]);
  const shown = (kept: _Kept): AempSource => {
    const { auth, claimant: _claimant, claimedUntil: _claimedUntil, ...rest } = structuredClone(kept);
    return { ...rest, auth: shownAempAuth(auth) };
  };
  const owned = (accountId: number, sourceId: number) => {
    const kept = sources.get(sourceId);
    return kept && kept.accountId === accountId ? kept : null;
  };
  const free = (kept: _Kept, now: number) => kept.claimedUntil === null || kept.claimedUntil <= now;
  return {
    async createAempSource({ accountId, fields, now }) {
      assertEpochSeconds('now', now);
      if (!accounts.has(accountId)) return null;
      const kept: _Kept = {
        ...structuredClone(fields),
        id: ++ids.source,
        accountId,
        version: 1,
        createdAt: now,
        updatedAt: now,
        nextPollAt: now,
        claimant: null,
        claimedUntil: null,
      };
      sources.set(kept.id, kept);
      return shown(kept);
    },
    async findAempSource({ accountId, sourceId }) {
      const kept = owned(accountId, sourceId);
      return kept ? shown(kept) : null;
    },
    async listAempSources({ accountId }) {
      return [...sources.values()]
        .filter((kept) => kept.accountId === accountId)
        .sort((a, b) => a.id - b.id)
        .map(shown);
    },
    async updateAempSource({ accountId, sourceId, changes, now, expectedVersion }) {
      assertEpochSeconds('now', now);
      const kept = owned(accountId, sourceId);
      if (!kept || (expectedVersion !== undefined && kept.version !== expectedVersion)) return null;
      const updated: _Kept = { ...kept, ...structuredClone(changes), version: kept.version + 1, updatedAt: now };
      sources.set(sourceId, updated);
      return shown(updated);
    },
    async removeAempSource({ accountId, sourceId, expectedVersion }) {
      const kept = owned(accountId, sourceId);
      if (!kept || (expectedVersion !== undefined && kept.version !== expectedVersion)) return null;
      sources.delete(sourceId);
      polls.splice(0, polls.length, ...polls.filter((poll) => poll.sourceId !== sourceId));
      return shown(kept);
    },
    async claimAempSource({ claimant, now, leaseSeconds, sourceId, accountId }) {
      assertEpochSeconds('now', now);
      const candidates =
        sourceId === undefined
          ? [...sources.values()]
              .filter((kept) => kept.enabled && kept.nextPollAt <= now && free(kept, now))
              .sort((a, b) => a.nextPollAt - b.nextPollAt || a.id - b.id)
          : [sources.get(sourceId)].filter(
              (kept): kept is _Kept => kept !== undefined && (accountId === undefined || kept.accountId === accountId) && free(kept, now),
            );
      const first = candidates[0];
      if (!first) return null;
      const claimed: _Kept = { ...first, claimant, claimedUntil: now + leaseSeconds };
      sources.set(first.id, claimed);
      const { claimant: _claimant, claimedUntil: _claimedUntil, ...source } = structuredClone(claimed);
      return source satisfies ClaimedAempSource;
    },
    async finishAempPoll({ sourceId, claimant, record, nextPollAt }) {
      assertEpochSeconds('nextPollAt', nextPollAt);
      const kept = sources.get(sourceId);
      if (!kept) return null;
      if (kept.claimant === claimant) sources.set(sourceId, { ...kept, claimant: null, claimedUntil: null, nextPollAt });
      const stored: StoredAempPoll = { ...structuredClone(record), id: ++ids.poll, sourceId };
      polls.push(stored);
      return structuredClone(stored);
    },
    async listAempPolls({ accountId, sourceId, limit, beforeId }) {
      if (!owned(accountId, sourceId)) return [];
      return polls
        .filter((poll) => poll.sourceId === sourceId && (beforeId === undefined || poll.id < beforeId))
        .reverse()
        .slice(0, limit)
        .map((poll) => structuredClone(poll));
    },
  };
}
