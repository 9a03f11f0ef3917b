import { createHash } from 'node:crypto';

/**
 * The SHA-256 fingerprint of a presented credential (D10, D24), as core's `fingerprintApiKey`
 * computes it through WebCrypto, but synchronously with `node:crypto`: a request then spends no
 * promise and no thread-pool job on it, a visible share of a small request's CPU. Core stays free
 * of Node: this is the composition root's choice for Node.
 */
export function _nodeFingerprint(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
