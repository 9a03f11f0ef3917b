import type { FleetHoursStore } from '@fleet-hours/core';
import type { Kysely } from 'kysely';
import { _credentialQueries } from './_credential-store.js';
import type { FleetHoursDatabase } from './database-schema.js';

/** The methods of the storage port on ingest tokens (D24). */
export type _IngestTokenStore = Pick<FleetHoursStore, 'findIngestToken' | 'createIngestToken' | 'listIngestTokens' | 'revokeIngestToken'>;

/**
 * Ingest tokens on Kysely (D24), kept like API keys: by SHA-256 fingerprint only, nothing cached, so
 * a revoked or expired token fails on its next lookup on every server instance.
 */
export function _ingestTokenStore(db: Kysely<FleetHoursDatabase>): _IngestTokenStore {
  const tokens = _credentialQueries(db, 'ingest_tokens', 'ingestToken');
  return {
    findIngestToken: ({ fingerprint }) => tokens.find(fingerprint),
    createIngestToken: (input) => tokens.create(input),
    listIngestTokens: ({ accountId }) => tokens.list(accountId),
    revokeIngestToken: ({ tokenId, now }) => tokens.revoke(tokenId, now),
  };
}
