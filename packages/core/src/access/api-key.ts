/** The prefix that makes a Fleet Hours key recognisable in logs and secret scanners (D10). */
export const API_KEY_PREFIX = 'fh_';

/** The prefix of an ingest token (D24): made like an API key, told apart by this prefix alone. */
export const INGEST_TOKEN_PREFIX = 'fhi_';

/**
 * The scopes of an API key (D51): `read` reads (every key made before scopes, and the default);
 * `manage` reads and changes the account's fleet through the write routes. Ingest tokens have none.
 */
export const API_KEY_SCOPES = ['read', 'manage'] as const;

/** The scope of an API key (D51): `read` or `manage`. */
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Creates a new API key: `fh_` followed by 43 base-62 characters drawn from 32 random bytes
 * (≥ 256 bits of entropy, D10). Show it once; store only {@link fingerprintApiKey} of it.
 *
 * @param randomBytes Source of randomness; defaults to Web Crypto.
 * @returns The key text.
 * @example
 * ```ts
 * import { generateApiKey } from '@fleet-hours/core';
 * generateApiKey().startsWith('fh_'); // true
 * ```
 */
export function generateApiKey(randomBytes: (length: number) => Uint8Array = _webCryptoBytes): string {
  return _generateSecret(API_KEY_PREFIX, randomBytes);
}

/**
 * Creates a new ingest token (D24): made exactly like an API key (D10), with the prefix `fhi_`
 * followed by 43 base-62 characters from 32 random bytes. Show it once; store only
 * {@link fingerprintApiKey} of it.
 *
 * @param randomBytes Source of randomness; defaults to Web Crypto.
 * @returns The token text.
 * @example
 * ```ts
 * import { generateIngestToken } from '@fleet-hours/core';
 * generateIngestToken().startsWith('fhi_'); // true
 * ```
 */
export function generateIngestToken(randomBytes: (length: number) => Uint8Array = _webCryptoBytes): string {
  return _generateSecret(INGEST_TOKEN_PREFIX, randomBytes);
}

/** The one way a secret is made (D10, D24): the prefix, then 43 uniform base-62 characters. */
function _generateSecret(prefix: string, randomBytes: (length: number) => Uint8Array): string {
  // Rejection sampling keeps every character uniform: bytes ≥ 248 (= 4 × 62) are drawn again.
  let body = '';
  while (body.length < 43) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && body.length < 43) body += ALPHABET[byte % 62];
    }
  }
  return `${prefix}${body}`;
}

/**
 * The SHA-256 fingerprint of a key, lower-case hex: the only form in which a key is stored (D10).
 *
 * @param apiKey The full key text.
 * @returns 64 hex characters.
 * @example
 * ```ts
 * import { fingerprintApiKey } from '@fleet-hours/core';
 * await fingerprintApiKey('fh_example'); // '…64 hex characters…'
 * ```
 */
export async function fingerprintApiKey(apiKey: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(apiKey));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function _webCryptoBytes(length: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}
