/**
 * D65, D66 and P132–P135 in the storage contract: AEMP sources kept with their secrets, read
 * without them, written only over the version expected, never another account's; polls claimed
 * by one poller at a time; records listed newest first.
 */
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import type { AempSourceFields } from '../aemp/aemp-source.js';
import type { AempPollRecord } from '../aemp/poll-record.js';
import { aempSourcesOf, type AempSourceStore } from '../store/aemp-source-port.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { StorageCapability } from './storage-capabilities.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z

const FIELDS: AempSourceFields = {
  name: 'Cat fleet',
  url: 'https://oem.example/aemp/Fleet/1',
  auth: {
    kind: 'oauth2_client_credentials',
    tokenUrl: 'https://oem.example/token',
    clientId: 'fleet',
    clientSecret: 'S3CRET',
    scope: 'aemp',
  },
  pollEverySeconds: 3600,
  minIntervalPerUrlSeconds: 300,
  enabled: true,
};

/** A poll's record at `at`. */
export function aempPollRecordAt(sourceId: number, at: number, pages = 1): AempPollRecord {
  return {
    sourceId,
    startedAt: at,
    finishedAt: at + 2,
    pages,
    equipmentSeen: 2,
    matched: 1,
    unmatched: [{ pin: null, oemName: 'CAT', serialNumber: 'X1' }],
    readingsStored: 1,
    readingsRefused: [{ deviceId: 7, readAt: at - 60, reason: 'lower than the newest reading of this source' }],
    error: null,
    stop: 'no_next',
  };
}

/**
 * Registers the AEMP sources' storage tests inside `describeStorageContract`; skipped for a store
 * without the capability.
 *
 * @param subject The store of the running test, and `itWith` of `describeStorageContract`.
 */
export function describeAempSourceContract(subject: {
  readonly store: () => FleetHoursStore;
  readonly itWith: (capability: StorageCapability, title: string, test: () => Promise<void>) => void;
}): void {
  const { store } = subject;
  const it = (title: string, test: () => Promise<void>) => subject.itWith('claimAempSource', title, test);
  describe('AEMP sources (D65, D66, P132, P134, P135)', () => {
    const sources = (): AempSourceStore => aempSourcesOf(store())!;
    const seed = async () => {
      const a = await store().createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const b = await store().createAccount({ name: 'Other', plan: 'business', now: T0 });
      return { a: a.id, b: b.id };
    };

    it('P132: a source is kept at version 1, due at once, read without its secret; another account misses it', async () => {
      const { a, b } = await seed();
      const source = (await sources().createAempSource({ accountId: a, fields: FIELDS, now: T0 }))!;
      expect(source).toMatchObject({ accountId: a, name: 'Cat fleet', version: 1, createdAt: T0, updatedAt: T0, nextPollAt: T0 });
      expect(source.auth).toEqual({
        kind: 'oauth2_client_credentials',
        tokenUrl: 'https://oem.example/token',
        clientId: 'fleet',
        scope: 'aemp',
      });
      expect(JSON.stringify(await sources().findAempSource({ accountId: a, sourceId: source.id }))).not.toContain('S3CRET');
      expect(JSON.stringify(await sources().listAempSources({ accountId: a }))).not.toContain('S3CRET');
      expect(await sources().findAempSource({ accountId: b, sourceId: source.id })).toBeNull();
      expect(await sources().listAempSources({ accountId: b })).toEqual([]);
      expect(await sources().createAempSource({ accountId: 999_999, fields: FIELDS, now: T0 })).toBeNull();
    });

    it('D54 (P132): a change applies over the version expected only; a removal too, with the polls', async () => {
      const { a, b } = await seed();
      const { id } = (await sources().createAempSource({ accountId: a, fields: FIELDS, now: T0 }))!;
      const change = { changes: { name: 'Renamed', enabled: false }, now: T0 + 5 };
      expect(await sources().updateAempSource({ accountId: b, sourceId: id, ...change })).toBeNull();
      expect(await sources().updateAempSource({ accountId: a, sourceId: id, ...change, expectedVersion: 2 })).toBeNull();
      const updated = await sources().updateAempSource({ accountId: a, sourceId: id, ...change, expectedVersion: 1 });
      expect(updated).toMatchObject({ name: 'Renamed', enabled: false, version: 2, updatedAt: T0 + 5, url: FIELDS.url });
      await sources().finishAempPoll({ sourceId: id, claimant: 'x', record: aempPollRecordAt(id, T0), nextPollAt: T0 });
      expect(await sources().removeAempSource({ accountId: a, sourceId: id, expectedVersion: 1 })).toBeNull();
      expect(await sources().removeAempSource({ accountId: a, sourceId: id, expectedVersion: 2 })).toMatchObject({ id });
      expect(await sources().findAempSource({ accountId: a, sourceId: id })).toBeNull();
      expect(await sources().listAempPolls({ accountId: a, sourceId: id, limit: 10 })).toEqual([]);
    });

    it('P134: a claim returns a due, enabled source with its secret, held until its lease ends or the poll finishes', async () => {
      const { a } = await seed();
      const due = (await sources().createAempSource({ accountId: a, fields: FIELDS, now: T0 }))!;
      const off = (await sources().createAempSource({ accountId: a, fields: { ...FIELDS, enabled: false }, now: T0 }))!;
      const claim = (claimant: string, now: number) => sources().claimAempSource({ claimant, now, leaseSeconds: 600 });
      const claimed = await claim('one', T0);
      expect(claimed).toMatchObject({ id: due.id, auth: FIELDS.auth });
      expect(await claim('two', T0 + 10)).toBeNull();
      // The disabled one is claimed only when asked by its id (a poll now), and only by its account.
      expect(
        await sources().claimAempSource({ claimant: 'cli', now: T0, leaseSeconds: 60, sourceId: off.id, accountId: a + 1 }),
      ).toBeNull();
      expect(await sources().claimAempSource({ claimant: 'cli', now: T0, leaseSeconds: 60, sourceId: off.id, accountId: a })).toMatchObject(
        {
          id: off.id,
        },
      );
      // The lease ended (the poller died): claimed again.
      expect(await claim('two', T0 + 600)).toMatchObject({ id: due.id });
      // The first poller's late finish stores its record but leaves the new claim and its due time.
      await sources().finishAempPoll({ sourceId: due.id, claimant: 'one', record: aempPollRecordAt(due.id, T0), nextPollAt: T0 + 3600 });
      expect(await claim('three', T0 + 601)).toBeNull();
      const stored = await sources().finishAempPoll({
        sourceId: due.id,
        claimant: 'two',
        record: aempPollRecordAt(due.id, T0 + 600),
        nextPollAt: T0 + 4200,
      });
      expect(stored).toMatchObject({ sourceId: due.id, startedAt: T0 + 600, pages: 1 });
      expect(await sources().findAempSource({ accountId: a, sourceId: due.id })).toMatchObject({ nextPollAt: T0 + 4200, version: 1 });
      expect(await claim('three', T0 + 4199)).toBeNull();
      expect(await claim('three', T0 + 4200)).toMatchObject({ id: due.id });
    });

    it('P135: polls are listed newest first, a page at a time, kept as given', async () => {
      const { a, b } = await seed();
      const { id } = (await sources().createAempSource({ accountId: a, fields: FIELDS, now: T0 }))!;
      for (let i = 0; i < 5; i += 1)
        await sources().finishAempPoll({ sourceId: id, claimant: 'x', record: aempPollRecordAt(id, T0 + i * 100, i), nextPollAt: T0 });
      const first = await sources().listAempPolls({ accountId: a, sourceId: id, limit: 3 });
      expect(first.map((poll) => poll.pages)).toEqual([4, 3, 2]);
      expect(first[0]).toEqual({ ...aempPollRecordAt(id, T0 + 400, 4), id: first[0]!.id });
      const rest = await sources().listAempPolls({ accountId: a, sourceId: id, limit: 3, beforeId: first[2]!.id });
      expect(rest.map((poll) => poll.pages)).toEqual([1, 0]);
      expect(await sources().listAempPolls({ accountId: b, sourceId: id, limit: 3 })).toEqual([]);
      expect(
        await sources().finishAempPoll({ sourceId: 999_999, claimant: 'x', record: aempPollRecordAt(1, T0), nextPollAt: T0 }),
      ).toBeNull();
    });

    _describeConcurrentClaims(it, sources, seed);
  });
}

/** P134: concurrent claims against the serial oracle. */
function _describeConcurrentClaims(
  it: (title: string, test: () => Promise<void>) => void,
  sources: () => AempSourceStore,
  seed: () => Promise<{ readonly a: number }>,
): void {
  it('P134: concurrent claims never give one source twice, and claim as many as one claimant after another would', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ enabled: fc.boolean(), dueIn: fc.integer({ min: -100, max: 100 }) }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 8 }),
        async (given, claimants) => {
          const { a } = await seed();
          const now = T0 + 1000;
          const made = [];
          for (const each of given) {
            const source = (await sources().createAempSource({ accountId: a, fields: { ...FIELDS, enabled: each.enabled }, now: T0 }))!;
            // Due at its instant: set by a poll that claimed it.
            await sources().claimAempSource({ claimant: 'setup', now: T0, leaseSeconds: 1, sourceId: source.id });
            const record = aempPollRecordAt(source.id, T0);
            await sources().finishAempPoll({ sourceId: source.id, claimant: 'setup', record, nextPollAt: now + each.dueIn });
            made.push({ ...each, id: source.id });
          }
          const claimed = await Promise.all(
            Array.from({ length: claimants }, (_, i) => sources().claimAempSource({ claimant: `c${i}`, now, leaseSeconds: 60 })),
          );
          const ids = claimed.filter((source) => source !== null && source.accountId === a).map((source) => source!.id);
          // The serial oracle: one claimant after another takes the due, enabled ones, earliest first, until none is left.
          const due = made.filter((each) => each.enabled && each.dueIn <= 0);
          expect(new Set(ids).size).toBe(ids.length);
          expect(ids.length).toBe(Math.min(claimants, due.length));
          for (const id of ids) expect(due.map((each) => each.id)).toContain(id);
          // Disabled, this run's sources are never due in the next runs.
          for (const each of made) await sources().updateAempSource({ accountId: a, sourceId: each.id, changes: { enabled: false }, now });
        },
      ),
      { numRuns: 10 },
    );
  });
}
