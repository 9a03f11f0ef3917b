import type { FleetHoursStore } from '@fleet-hours/core';
import type { Kysely } from 'kysely';
import { credentialQueries } from './credential-store.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/** The methods of the storage port on ingest tokens (D24). */
export type IngestTokenStore = Pick<FleetHoursStore, 'findIngestToken' | 'createIngestToken' | 'listIngestTokens' | 'revokeIngestToken'>;

/**
 * Ingest tokens on Kysely (D24), kept like API keys: by SHA-256 fingerprint only, nothing cached, so
 * a revoked or expired token fails on its next lookup on every server instance.
 */
export function ingestTokenStore(db: Kysely<FleetHoursDatabase>): IngestTokenStore {
  const tokens = credentialQueries(db, 'ingest_tokens', 'ingestToken');
  return {
    findIngestToken: ({ fingerprint }) => tokens.find(fingerprint),
    createIngestToken: (input) => tokens.create(input),
    listIngestTokens: ({ accountId }) => tokens.list(accountId),
    revokeIngestToken: ({ tokenId, now }) => tokens.revoke(tokenId, now),
  };
}
