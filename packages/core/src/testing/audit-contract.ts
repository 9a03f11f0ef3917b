/**
 * D55 and P87 in the storage contract: the change log of each account, appended in order, listed
 * newest first a page at a time, never another account's, and removed past a horizon.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEntry, NewAuditEntry } from '../store/audit-port.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { refusalOf } from './refusal.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const DAY = 86_400;

const entry = (accountId: number, at: number, fields: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  accountId,
  at,
  actor: { kind: 'api_key', label: 'ops', fingerprintPrefix: '0123abcd' },
  requestId: 'req-1',
  action: 'device.update',
  resource: { type: 'device', id: '7' },
  changes: { name: ['Truck 1', 'Truck 2'] },
  ...fields,
});

/**
 * Registers the D55 tests inside `describeStorageContract`.
 *
 * @param store The store of the running test.
 */
export function describeAuditContract(store: () => FleetHoursStore): void {
  describe('change log (D55, P87)', () => {
    const accounts = async () => {
      const a = await store().createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const b = await store().createAccount({ name: 'Other', plan: 'business', now: T0 });
      return { a: a.id, b: b.id };
    };

    it('D55: an entry comes back as appended, every JSON value of its changes and its actor kept', async () => {
      const { a } = await accounts();
      const changes = {
        name: [null, 'Truck 1'],
        registration: ['B-1', null],
        tags: [[], ['crane', 'north']],
        nested: [{ a: 1 }, { a: 1.5, b: [true, false] }],
        secret: [null, '[redacted]'],
      } as const;
      const appended = await store().appendAuditEntry(entry(a, T0, { changes, action: 'device.create' }));
      expect(appended).toEqual({ ...entry(a, T0, { changes, action: 'device.create' }), id: expect.any(Number) });
      expect(appended!.id).toBeGreaterThan(0);
      const cli = await store().appendAuditEntry(entry(a, T0 + 1, { actor: { kind: 'cli' }, requestId: null }));
      expect(await store().listAuditEntries({ accountId: a, limit: 10 })).toEqual([cli, appended]);
    });

    it('D55: an entry of an account that does not exist is refused with null, and appends nothing', async () => {
      const { a } = await accounts();
      expect(await store().appendAuditEntry(entry(a + 1000, T0))).toBeNull();
      expect(await store().listAuditEntries({ accountId: a + 1000, limit: 10 })).toEqual([]);
    });

    it('P87: newest first, by order of appending (not by `at`), one account at a time', async () => {
      const { a, b } = await accounts();
      const appended: AuditEntry[] = [];
      // `at` going backwards (two servers' clocks): the order is still the order of appending.
      for (const [index, at] of [T0 + 5, T0 + 3, T0 + 9, T0 + 1].entries()) {
        appended.push((await store().appendAuditEntry(entry(a, at, { resource: { type: 'device', id: String(index) } })))!);
        await store().appendAuditEntry(entry(b, at));
      }
      const ids = appended.map((each) => each.id);
      expect([...ids].sort((x, y) => x - y)).toEqual(ids);
      expect(await store().listAuditEntries({ accountId: a, limit: 10 })).toEqual([...appended].reverse());
      const ofB = await store().listAuditEntries({ accountId: b, limit: 10 });
      expect(ofB).toHaveLength(4);
      expect(ofB.every((each) => each.accountId === b)).toBe(true);
    });

    it('P87: pages by `beforeId` and `limit` walk every entry once, newest first', async () => {
      const { a, b } = await accounts();
      const appended: AuditEntry[] = [];
      for (let index = 0; index < 7; index += 1) {
        appended.push((await store().appendAuditEntry(entry(a, T0 + index)))!);
        await store().appendAuditEntry(entry(b, T0 + index));
      }
      const walked: AuditEntry[] = [];
      let beforeId: number | undefined;
      for (;;) {
        const page = await store().listAuditEntries({ accountId: a, limit: 3, ...(beforeId === undefined ? {} : { beforeId }) });
        walked.push(...page);
        if (page.length < 3) break;
        beforeId = page.at(-1)!.id;
      }
      expect(walked).toEqual([...appended].reverse());
      expect(await store().listAuditEntries({ accountId: a, limit: 10, beforeId: appended[0]!.id })).toEqual([]);
    });

    it('P87: entries appended at once all get their own id, and the pages list each once, as appended one after another would', async () => {
      const { a, b } = await accounts();
      const appended = await Promise.all(
        Array.from({ length: 24 }, (_, index) =>
          store().appendAuditEntry(entry(index % 3 === 0 ? b : a, T0 + index, { resource: { type: 'device', id: String(index) } })),
        ),
      );
      // The serial oracle: the same entries, newest (largest id) first, one account at a time.
      const oracle = (accountId: number) => appended.filter((each) => each!.accountId === accountId).sort((x, y) => y!.id - x!.id);
      expect(new Set(appended.map((each) => each!.id)).size).toBe(24);
      for (const accountId of [a, b]) {
        const walked: AuditEntry[] = [];
        let beforeId: number | undefined;
        for (;;) {
          const page = await store().listAuditEntries({ accountId, limit: 5, ...(beforeId === undefined ? {} : { beforeId }) });
          walked.push(...page);
          if (page.length < 5) break;
          beforeId = page.at(-1)!.id;
        }
        expect(walked).toEqual(oracle(accountId));
      }
    });

    it('P87: a limit that is not a positive safe integer is refused with a RangeError naming it', async () => {
      const { a } = await accounts();
      for (const limit of [0, -1, 1.5]) {
        const error = await refusalOf(store().listAuditEntries({ accountId: a, limit }));
        expect(error).toBeInstanceOf(RangeError);
        expect(error.message).toMatch(/limit/);
      }
    });

    it('D55: removing before a horizon deletes the older entries of every account, and says how many', async () => {
      const { a, b } = await accounts();
      const old = await store().appendAuditEntry(entry(a, T0 - 400 * DAY));
      await store().appendAuditEntry(entry(b, T0 - 366 * DAY));
      const edge = await store().appendAuditEntry(entry(a, T0 - 365 * DAY));
      const recent = await store().appendAuditEntry(entry(b, T0));
      expect(old).not.toBeNull();
      expect(await store().removeAuditEntriesBefore({ before: T0 - 365 * DAY })).toBe(2);
      expect(await store().listAuditEntries({ accountId: a, limit: 10 })).toEqual([edge]);
      expect(await store().listAuditEntries({ accountId: b, limit: 10 })).toEqual([recent]);
      expect(await store().removeAuditEntriesBefore({ before: T0 - 365 * DAY })).toBe(0);
    });

    it('D55: an instant in milliseconds is refused, and nothing is written or removed', async () => {
      const { a } = await accounts();
      const kept = await store().appendAuditEntry(entry(a, T0));
      expect((await refusalOf(store().appendAuditEntry(entry(a, T0 * 1000)))).message).toMatch(/milliseconds/);
      expect((await refusalOf(store().removeAuditEntriesBefore({ before: T0 * 1000 }))).message).toMatch(/milliseconds/);
      expect(await store().listAuditEntries({ accountId: a, limit: 10 })).toEqual([kept]);
    });
  });
}
