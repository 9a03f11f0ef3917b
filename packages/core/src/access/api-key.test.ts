import { describe, expect, it, vi } from 'vitest';
import { API_KEY_PREFIX, fingerprintApiKey, generateApiKey, generateIngestToken, INGEST_TOKEN_PREFIX } from './api-key.js';

describe('generateApiKey() (D10)', () => {
  it('starts with the readable prefix fh_', () => {
    expect(API_KEY_PREFIX).toBe('fh_');
    expect(generateApiKey().startsWith('fh_')).toBe(true);
  });

  it('carries at least 128 bits: 43 base-62 characters after the prefix', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^fh_[0-9A-Za-z]{43}$/);
    expect(43 * Math.log2(62)).toBeGreaterThanOrEqual(128);
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey()));
    expect(keys.size).toBe(2000);
  });

  it('draws from the injected randomBytes', () => {
    const randomBytes = vi.fn((length: number) => new Uint8Array(length).map((_, index) => index));
    expect(generateApiKey(randomBytes)).toBe('fh_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg');
    expect(randomBytes).toHaveBeenCalledWith(48);
  });

  it('rejects bytes 248 and above so every character stays uniform, drawing again as needed', () => {
    let call = 0;
    const randomBytes = vi.fn((length: number) => {
      call += 1;
      // First draw: nothing usable but one byte 247 (the last accepted value, 247 % 62 = 61: "z"); then 36s ("a").
      if (call === 1) return new Uint8Array(length).map((_, index) => (index === 0 ? 247 : 248 + (index % 8)));
      return new Uint8Array(length).fill(36);
    });
    expect(generateApiKey(randomBytes)).toBe(`fh_z${'a'.repeat(42)}`);
    expect(randomBytes).toHaveBeenCalledTimes(2);
  });
});

describe('fingerprintApiKey() (D10)', () => {
  it('is the lower-case hex SHA-256 of the key (known vectors)', async () => {
    expect(await fingerprintApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(await fingerprintApiKey('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('hashes the UTF-8 bytes of the key', async () => {
    expect(await fingerprintApiKey('\u00e9')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });

  it('gives 64 hex characters, different for different keys, and never contains the key', async () => {
    const key = generateApiKey();
    const fingerprint = await fingerprintApiKey(key);
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint).not.toContain(key.slice(3));
    expect(await fingerprintApiKey(key)).toBe(fingerprint);
    expect(await fingerprintApiKey(`${key}x`)).not.toBe(fingerprint);
  });
});

describe('generateIngestToken() (D24)', () => {
  it('is made like an API key, with the prefix fhi_, and is read as an ingest token by its prefix', async () => {
    const { credentialKindOf } = await import('./access-policy.js');
    const token = generateIngestToken();
    expect(INGEST_TOKEN_PREFIX).toBe('fhi_');
    expect(token).toMatch(/^fhi_[0-9A-Za-z]{43}$/);
    expect(credentialKindOf(token)).toBe('ingest_token');
    const randomBytes = (length: number) => new Uint8Array(length).map((_, index) => index);
    expect(generateIngestToken(randomBytes).slice('fhi_'.length)).toBe(generateApiKey(randomBytes).slice('fh_'.length));
  });
});
