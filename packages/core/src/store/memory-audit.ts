import { assertEpochSeconds } from '../time/assert-epoch-seconds.js';
import type { Account } from '../types.js';
import type { AuditEntry, AuditLogStore } from './audit-port.js';
import type { MemoryUndo } from './memory-units.js';

/** The change log of a memory store (D55, P87): entries in the order they were appended. */
export function memoryAudit(accounts: ReadonlyMap<number, Account>, undo: MemoryUndo): AuditLogStore {
  const entries: AuditEntry[] = [];
  const ids = { last: 0 };
  undo.keep([entries, ids]);
  const copy = (entry: AuditEntry): AuditEntry => structuredClone(entry);
  return {
    async appendAuditEntry(input) {
      assertEpochSeconds('at', input.at);
      if (!accounts.has(input.accountId)) return null;
      const entry = copy({ ...input, id: ++ids.last });
      entries.push(entry);
      return copy(entry);
    },
    async listAuditEntries({ accountId, beforeId, limit }) {
      if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive safe integer, got ${String(limit)}`);
      if (beforeId !== undefined && !Number.isSafeInteger(beforeId))
        throw new RangeError(`beforeId must be a safe integer, got ${String(beforeId)}`);
      const page: AuditEntry[] = [];
      for (let index = entries.length - 1; index >= 0 && page.length < limit; index -= 1) {
        const entry = entries[index]!;
        if (entry.accountId === accountId && (beforeId === undefined || entry.id < beforeId)) page.push(copy(entry));
      }
      return page;
    },
    async removeAuditEntriesBefore({ before }) {
      assertEpochSeconds('before', before);
      const kept = entries.filter((entry) => entry.at >= before);
      const removed = entries.length - kept.length;
      entries.splice(0, entries.length, ...kept);
      return removed;
    },
  };
}
