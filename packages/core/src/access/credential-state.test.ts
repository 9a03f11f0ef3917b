import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { credentialState } from './credential-state.js';

describe('credentialState() (D10, D24)', () => {
  it('is active without expiry or revocation', () => {
    expect(credentialState({ expiresAt: null, revokedAt: null }, 1_800_000_000)).toBe('active');
  });

  it('is expired from the expiry instant on, active the second before', () => {
    expect(credentialState({ expiresAt: 100, revokedAt: null }, 99)).toBe('active');
    expect(credentialState({ expiresAt: 100, revokedAt: null }, 100)).toBe('expired');
    expect(credentialState({ expiresAt: 100, revokedAt: null }, 100.5)).toBe('expired');
  });

  it('is revoked once revoked, whatever its expiry and the instant (D11 checks revoked before expired)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.option(fc.integer(), { nil: null }), fc.integer(), (revokedAt, expiresAt, now) => {
        expect(credentialState({ expiresAt, revokedAt }, now)).toBe('revoked');
      }),
    );
  });

  it('reads a stored key as it is: an ApiKeyRecord has what it needs', () => {
    const apiKey = { id: 1, accountId: 2, fingerprint: 'f'.repeat(64), label: null, createdAt: 0, expiresAt: 10, revokedAt: null };
    expect(credentialState(apiKey, 10)).toBe('expired');
  });
});
