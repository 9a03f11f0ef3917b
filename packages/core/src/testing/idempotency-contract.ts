/**
 * D53 in the storage contract: the idempotency keys of POST requests (P84, P85). A claim is atomic
 * (of concurrent claims of one key exactly one holds it, as when they run one after another), an
 * answer is kept only by the claim that holds the key, a 5xx gives the key up, keys past their
 * 24 h or abandoned past their lease are claimed again, and the upkeep removes the expired ones.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { IdempotencyClaim, IdempotentResponse } from '../store/idempotency-port.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { refusalOf } from './refusal.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const DAY = 86_400;
const LEASE = 60;

const ANSWER: IdempotentResponse = {
  status: 201,
  headers: { 'Content-Type': 'application/json', Location: '/api/v1/devices/7', ETag: '"d-0123456789abcdef"' },
  body: '{"id":7,"name":"Van ✓"}',
};

/**
 * Registers the D53 tests inside `describeStorageContract`.
 *
 * @param store The store of the running test.
 */
export function describeIdempotencyContract(store: () => FleetHoursStore): void {
  _describeClaims(store);
  _describeConcurrentClaims(store);
}

/** A key's life: claimed, answered, released, expired, abandoned (D53, P84). */
function _describeClaims(store: () => FleetHoursStore): void {
  describe('idempotency keys (D53, P84)', () => {
    let accountId: number;
    let otherAccountId: number;
    beforeEach(async () => {
      accountId = (await store().createAccount({ name: 'Acme', plan: 'business', now: T0 })).id;
      otherAccountId = (await store().createAccount({ name: 'Other', plan: 'business', now: T0 })).id;
    });
    const claim = (input: { key?: string; fingerprint?: string; claimId: string; now?: number; account?: number }) => {
      const now = input.now ?? T0;
      return store().claimIdempotencyKey({
        accountId: input.account ?? accountId,
        key: input.key ?? 'order-1',
        fingerprint: input.fingerprint ?? 'f1',
        claimId: input.claimId,
        now,
        expiredBefore: now - DAY,
        abandonedBefore: now - LEASE,
      });
    };

    it('D53: a new key is claimed; claimed again, it is running with its fingerprint, and nothing changes', async () => {
      expect(await store().findIdempotencyKey({ accountId, key: 'order-1' })).toBeNull();
      expect(await claim({ claimId: 'a' })).toEqual({ state: 'claimed' });
      expect(await claim({ claimId: 'b', now: T0 + 5 })).toEqual({ state: 'running', fingerprint: 'f1' });
      expect(await claim({ claimId: 'c', fingerprint: 'f2', now: T0 + 5 })).toEqual({ state: 'running', fingerprint: 'f1' });
      expect(await store().findIdempotencyKey({ accountId, key: 'order-1' })).toEqual({
        accountId,
        key: 'order-1',
        fingerprint: 'f1',
        claimId: 'a',
        createdAt: T0,
        response: null,
      });
    });

    it('D53: the answer is kept by the claim that holds the key, once, and found by every later claim', async () => {
      await claim({ claimId: 'a' });
      expect(await store().completeIdempotencyKey({ accountId, key: 'order-1', claimId: 'b', response: ANSWER })).toBe(false);
      expect(await store().completeIdempotencyKey({ accountId, key: 'order-1', claimId: 'a', response: ANSWER })).toBe(true);
      expect(await store().completeIdempotencyKey({ accountId, key: 'order-1', claimId: 'a', response: { ...ANSWER, status: 200 } })).toBe(
        false,
      );
      expect(await claim({ claimId: 'b', now: T0 + DAY - 1 })).toEqual({ state: 'completed', fingerprint: 'f1', response: ANSWER });
      expect(await claim({ claimId: 'c', fingerprint: 'f2', now: T0 + 10 })).toEqual({
        state: 'completed',
        fingerprint: 'f1',
        response: ANSWER,
      });
      expect((await store().findIdempotencyKey({ accountId, key: 'order-1' }))?.response).toEqual(ANSWER);
    });

    it('D53: a completed key of another account, or another key, is not this one', async () => {
      await claim({ claimId: 'a' });
      await store().completeIdempotencyKey({ accountId, key: 'order-1', claimId: 'a', response: ANSWER });
      expect(await claim({ claimId: 'b', account: otherAccountId })).toEqual({ state: 'claimed' });
      expect(await claim({ claimId: 'c', key: 'order-2' })).toEqual({ state: 'claimed' });
      expect(await claim({ claimId: 'd', key: 'ORDER-1' })).toEqual({ state: 'claimed' });
      expect((await store().findIdempotencyKey({ accountId: otherAccountId, key: 'order-1' }))?.claimId).toBe('b');
    });

    it('D53: a release (a 5xx) deletes the key only for the claim that holds it and has no answer', async () => {
      await claim({ claimId: 'a' });
      await store().releaseIdempotencyKey({ accountId, key: 'order-1', claimId: 'b' });
      expect((await store().findIdempotencyKey({ accountId, key: 'order-1' }))?.claimId).toBe('a');
      await store().releaseIdempotencyKey({ accountId, key: 'order-1', claimId: 'a' });
      expect(await store().findIdempotencyKey({ accountId, key: 'order-1' })).toBeNull();
      expect(await claim({ claimId: 'b', fingerprint: 'f2' })).toEqual({ state: 'claimed' });
      await store().completeIdempotencyKey({ accountId, key: 'order-1', claimId: 'b', response: ANSWER });
      await store().releaseIdempotencyKey({ accountId, key: 'order-1', claimId: 'b' });
      expect((await store().findIdempotencyKey({ accountId, key: 'order-1' }))?.response).toEqual(ANSWER);
    });

    it('D53: a key past its 24 h is claimed again, answered or not', async () => {
      await claim({ claimId: 'a' });
      await store().completeIdempotencyKey({ accountId, key: 'order-1', claimId: 'a', response: ANSWER });
      expect(await claim({ claimId: 'b', fingerprint: 'f2', now: T0 + DAY })).toEqual({
        state: 'completed',
        fingerprint: 'f1',
        response: ANSWER,
      });
      expect(await claim({ claimId: 'b', fingerprint: 'f2', now: T0 + DAY + 1 })).toEqual({ state: 'claimed' });
      expect(await store().findIdempotencyKey({ accountId, key: 'order-1' })).toEqual({
        accountId,
        key: 'order-1',
        fingerprint: 'f2',
        claimId: 'b',
        createdAt: T0 + DAY + 1,
        response: null,
      });
    });

    it('P84: a claim without an answer past its lease is abandoned: claimed again, and the first claim can no longer answer', async () => {
      await claim({ claimId: 'a' });
      expect(await claim({ claimId: 'b', now: T0 + LEASE })).toEqual({ state: 'running', fingerprint: 'f1' });
      expect(await claim({ claimId: 'b', now: T0 + LEASE + 1 })).toEqual({ state: 'claimed' });
      expect(await store().completeIdempotencyKey({ accountId, key: 'order-1', claimId: 'a', response: ANSWER })).toBe(false);
      await store().releaseIdempotencyKey({ accountId, key: 'order-1', claimId: 'a' });
      expect((await store().findIdempotencyKey({ accountId, key: 'order-1' }))?.claimId).toBe('b');
      expect(await store().completeIdempotencyKey({ accountId, key: 'order-1', claimId: 'b', response: ANSWER })).toBe(true);
      // An answered key has no lease: it is kept its 24 h.
      expect((await claim({ claimId: 'c', now: T0 + LEASE + 1 + 3600 })).state).toBe('completed');
    });
  });
}

/** The claims made at once (P85) and the upkeep and units of the keys. */
function _describeConcurrentClaims(store: () => FleetHoursStore): void {
  describe('idempotency keys at once, their upkeep and units (D53, P85)', () => {
    let accountId: number;
    let otherAccountId: number;
    beforeEach(async () => {
      accountId = (await store().createAccount({ name: 'Acme', plan: 'business', now: T0 })).id;
      otherAccountId = (await store().createAccount({ name: 'Other', plan: 'business', now: T0 })).id;
    });
    const claim = (input: { key?: string; fingerprint?: string; claimId: string; now?: number; account?: number }) => {
      const now = input.now ?? T0;
      return store().claimIdempotencyKey({
        accountId: input.account ?? accountId,
        key: input.key ?? 'order-1',
        fingerprint: input.fingerprint ?? 'f1',
        claimId: input.claimId,
        now,
        expiredBefore: now - DAY,
        abandonedBefore: now - LEASE,
      });
    };

    it('P85: of concurrent claims of one key exactly one holds it, as when they run one after another (a serial oracle)', async () => {
      const claims = 12;
      const serialStates = async (key: string): Promise<string[]> => {
        const states: string[] = [];
        for (let index = 0; index < claims; index += 1) states.push((await claim({ key, claimId: `s${index}` })).state);
        return states.sort();
      };
      const oracle = await serialStates('serial');
      expect(oracle.filter((state) => state === 'claimed')).toHaveLength(1);
      for (const round of [0, 1, 2]) {
        const key = `concurrent-${round}`;
        const results: IdempotencyClaim[] = await Promise.all(
          Array.from({ length: claims }, (_, index) => claim({ key, claimId: `c${round}-${index}` })),
        );
        expect(results.map((result) => result.state).sort()).toEqual(oracle);
        const holder = (await store().findIdempotencyKey({ accountId, key }))!.claimId;
        const winner = results.findIndex((result) => result.state === 'claimed');
        expect(holder).toBe(`c${round}-${winner}`);
      }
    });

    it('P85: of concurrent claims of an abandoned or expired key exactly one takes it over', async () => {
      await claim({ key: 'stale', claimId: 'old' });
      await claim({ key: 'old-answer', claimId: 'old' });
      await store().completeIdempotencyKey({ accountId, key: 'old-answer', claimId: 'old', response: ANSWER });
      for (const [key, now] of [
        ['stale', T0 + LEASE + 1],
        ['old-answer', T0 + DAY + 1],
      ] as const) {
        const results = await Promise.all(Array.from({ length: 8 }, (_, index) => claim({ key, claimId: `n${index}`, now })));
        expect(results.filter((result) => result.state === 'claimed')).toHaveLength(1);
        expect(results.filter((result) => result.state === 'running')).toHaveLength(7);
      }
    });

    it('D53: the upkeep removes the entries created before the instant, of every account, and counts them', async () => {
      await claim({ key: 'old', claimId: 'a', now: T0 });
      await claim({ key: 'old', claimId: 'a', now: T0, account: otherAccountId });
      await claim({ key: 'new', claimId: 'b', now: T0 + 10 });
      await store().completeIdempotencyKey({ accountId, key: 'new', claimId: 'b', response: ANSWER });
      expect(await store().removeExpiredIdempotencyKeys({ before: T0 + 10 })).toBe(2);
      expect(await store().findIdempotencyKey({ accountId, key: 'old' })).toBeNull();
      expect(await store().findIdempotencyKey({ accountId: otherAccountId, key: 'old' })).toBeNull();
      expect((await store().findIdempotencyKey({ accountId, key: 'new' }))?.response).toEqual(ANSWER);
      expect(await store().removeExpiredIdempotencyKeys({ before: T0 + 10 })).toBe(0);
    });

    it('D53: instants in milliseconds are refused, and nothing is claimed', async () => {
      const refusal = await refusalOf(
        store().claimIdempotencyKey({
          accountId,
          key: 'ms',
          fingerprint: 'f',
          claimId: 'a',
          now: T0 * 1000,
          expiredBefore: T0 - DAY,
          abandonedBefore: T0 - LEASE,
        }),
      );
      expect(refusal).toBeInstanceOf(RangeError);
      expect(String((refusal as Error).message)).toMatch(/milliseconds/);
      expect(await store().findIdempotencyKey({ accountId, key: 'ms' })).toBeNull();
      expect(await refusalOf(store().removeExpiredIdempotencyKeys({ before: T0 * 1000 }))).toBeInstanceOf(RangeError);
    });
  });
}
