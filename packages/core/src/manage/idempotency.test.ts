import { describe, expect, it } from 'vitest';
import { FleetHoursError } from '../errors/errors.js';
import { createMemoryStore } from '../store/memory-store.js';
import {
  decideIdempotency,
  IDEMPOTENCY_KEY_WINDOW_SECONDS,
  IDEMPOTENCY_LEASE_SECONDS,
  idempotentRequests,
  keepsIdempotentResponse,
  readIdempotencyKey,
} from './idempotency.js';

const T0 = 1_767_225_600;
const ANSWER = { status: 201, headers: { Location: '/api/v1/devices/1' }, body: '{"id":1}' };

describe('readIdempotencyKey (D53)', () => {
  it('takes 1 to 255 visible ASCII characters, and no header is no key', () => {
    expect(readIdempotencyKey(undefined)).toBeNull();
    expect(readIdempotencyKey(null)).toBeNull();
    expect(readIdempotencyKey('a')).toBe('a');
    expect(readIdempotencyKey(`!${'~'.repeat(254)}`)).toHaveLength(255);
  });

  it.each(['', ' ', 'a b', 'k'.repeat(256), 'ä', 'a\u0000', 'a\u007f'])('refuses %j with 400 invalid_header naming the header', (value) => {
    const refusal = (() => {
      try {
        readIdempotencyKey(value);
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(refusal).toBeInstanceOf(FleetHoursError);
    expect([(refusal as FleetHoursError).code, (refusal as FleetHoursError).status, (refusal as FleetHoursError).details]).toEqual([
      'invalid_header',
      400,
      { header: 'Idempotency-Key' },
    ]);
  });
});

describe('decideIdempotency (D53)', () => {
  it('runs a claimed key, replays a completed one, refuses the same request running (409) and another request (422)', () => {
    expect(decideIdempotency({ state: 'claimed' }, 'f')).toEqual({ action: 'run' });
    expect(decideIdempotency({ state: 'completed', fingerprint: 'f', response: ANSWER }, 'f')).toEqual({
      action: 'replay',
      response: ANSWER,
    });
    const running = decideIdempotency({ state: 'running', fingerprint: 'f' }, 'f');
    expect(running.action === 'refuse' && [running.error.code, running.error.status]).toEqual(['idempotency_key_in_use', 409]);
    for (const claim of [
      { state: 'running', fingerprint: 'g' },
      { state: 'completed', fingerprint: 'g', response: ANSWER },
    ] as const) {
      const other = decideIdempotency(claim, 'f');
      expect(other.action === 'refuse' && [other.error.code, other.error.status]).toEqual(['idempotency_key_reused', 422]);
    }
  });

  it('keeps every answer below 500', () => {
    expect([200, 201, 400, 409, 422, 499].every(keepsIdempotentResponse)).toBe(true);
    expect([500, 502, 503].some(keepsIdempotentResponse)).toBe(false);
  });
});

describe('idempotentRequests (D53, P84)', () => {
  it('claims with the window and the lease at now, keeps an answer, gives a key up on a 5xx, and removes the expired', async () => {
    const store = createMemoryStore();
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    let now = T0;
    const requests = idempotentRequests(store, () => now);
    const begin = (claimId: string, fingerprint = 'f') => requests.begin({ accountId: account.id, key: 'k', fingerprint, claimId });
    expect(await begin('a')).toEqual({ action: 'run' });
    now += IDEMPOTENCY_LEASE_SECONDS;
    expect((await begin('b')).action).toBe('refuse');
    now += 1;
    expect(await begin('b')).toEqual({ action: 'run' });
    expect(await requests.finish({ accountId: account.id, key: 'k', claimId: 'a', response: ANSWER })).toBe(false);
    expect(await requests.finish({ accountId: account.id, key: 'k', claimId: 'b', response: { ...ANSWER, status: 503 } })).toBe(true);
    expect(await store.findIdempotencyKey({ accountId: account.id, key: 'k' })).toBeNull();
    expect(await begin('c')).toEqual({ action: 'run' });
    expect(await requests.finish({ accountId: account.id, key: 'k', claimId: 'c', response: ANSWER })).toBe(true);
    expect(await begin('d')).toEqual({ action: 'replay', response: ANSWER });
    now += IDEMPOTENCY_KEY_WINDOW_SECONDS;
    expect(await requests.removeExpired()).toBe(0);
    now += 1;
    expect(await requests.removeExpired()).toBe(1);
  });
});
