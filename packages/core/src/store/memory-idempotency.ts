import { assertEpochSeconds } from '../time/assert-epoch-seconds.js';
import type { IdempotencyRecord } from './idempotency-port.js';
import type { FleetHoursStore } from './storage-port.js';

/**
 * The idempotency keys of a memory store (D53, P85): one map by account and key. Every method
 * reads and writes it without awaiting in between, so concurrent claims of one key take turns and
 * one of them claims it.
 */
export function memoryIdempotency() {
  const entries = new Map<string, IdempotencyRecord>();
  const id = (accountId: number, key: string) => `${accountId}\u0000${key}`;
  return {
    async claimIdempotencyKey({ accountId, key, fingerprint, claimId, now, expiredBefore, abandonedBefore }) {
      assertEpochSeconds('now', now);
      assertEpochSeconds('expiredBefore', expiredBefore);
      assertEpochSeconds('abandonedBefore', abandonedBefore);
      const entry = entries.get(id(accountId, key));
      if (entry && entry.createdAt >= expiredBefore && (entry.response !== null || entry.createdAt >= abandonedBefore)) {
        return entry.response === null
          ? { state: 'running' as const, fingerprint: entry.fingerprint }
          : { state: 'completed' as const, fingerprint: entry.fingerprint, response: entry.response };
      }
      entries.set(id(accountId, key), { accountId, key, fingerprint, claimId, createdAt: now, response: null });
      return { state: 'claimed' as const };
    },
    async completeIdempotencyKey({ accountId, key, claimId, response }) {
      const entry = entries.get(id(accountId, key));
      if (!entry || entry.claimId !== claimId || entry.response !== null) return false;
      entries.set(id(accountId, key), {
        ...entry,
        response: { status: response.status, headers: { ...response.headers }, body: response.body },
      });
      return true;
    },
    async releaseIdempotencyKey({ accountId, key, claimId }) {
      const entry = entries.get(id(accountId, key));
      if (entry && entry.claimId === claimId && entry.response === null) entries.delete(id(accountId, key));
    },
    async findIdempotencyKey({ accountId, key }) {
      const entry = entries.get(id(accountId, key));
      return entry ? { ...entry, response: entry.response && { ...entry.response, headers: { ...entry.response.headers } } } : null;
    },
    async removeExpiredIdempotencyKeys({ before }) {
      assertEpochSeconds('before', before);
      let removed = 0;
      for (const [name, entry] of entries)
        if (entry.createdAt < before) {
          entries.delete(name);
          removed += 1;
        }
      return removed;
    },
  } satisfies Partial<FleetHoursStore>;
}
