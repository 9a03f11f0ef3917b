import { fingerprintApiKey, generateApiKey, generateIngestToken } from '@fleet-hours/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { _nodeFingerprint } from './_node-fingerprint.js';

describe('_nodeFingerprint (the reference server\u2019s fingerprint, D10, D24)', () => {
  it('is fingerprintApiKey for generated keys and tokens', async () => {
    for (const secret of [generateApiKey(), generateIngestToken(), '', 'fh_example'])
      expect(_nodeFingerprint(secret)).toBe(await fingerprintApiKey(secret));
  });

  it('is fingerprintApiKey for any text, lone surrogates included (both encode them as U+FFFD)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.string({ unit: 'grapheme' }),
          fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) }),
        ),
        async (text) => {
          expect(_nodeFingerprint(text)).toBe(await fingerprintApiKey(text));
        },
      ),
      { numRuns: 500 },
    );
  });
});
