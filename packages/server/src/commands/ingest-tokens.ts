import { generateIngestToken, ingestTokenWrites } from '@fleet-hours/core';
import { CLI_ORIGIN, cliChangeLog } from './_cli-change-log.js';
import { _credentialCommands } from './_credential-commands.js';
import { formatUtc } from './present-records.js';

/**
 * Ingest tokens (D24), not gated by plan:
 * - `ingest-tokens create --account ID [--label TEXT] [--expires-at ISO-INSTANT]` →
 *   `{ id, token, fingerprint, label, expires_at }`. The token (`fhi_…`) is printed this once; only
 *   its SHA-256 fingerprint is stored (D24). It writes telemetry of the account's devices and reads
 *   nothing.
 * - `ingest-tokens list --account ID`: fingerprints and states, never a token.
 * - `ingest-tokens revoke TOKEN-ID`: the token answers 401 `revoked_ingest_token` from the next request on (D24).
 */
export const INGEST_TOKEN_COMMANDS = _credentialCommands({
  command: 'ingest-tokens',
  noun: 'ingest token',
  short: 'token',
  plural: 'ingest tokens',
  revokedCode: 'revoked_ingest_token',
  idName: 'TOKEN-ID',
  generate: generateIngestToken,
  usage: [
    'Send it as "Authorization: Bearer <token>" to POST /ingest/v1/telemetry and /ingest/traccar,',
    'or as the last path segment of /ingest/osmand/<token>. It writes telemetry and reads nothing.',
  ],
  accountNotes: () => [],
  create: (store, input) => store.createIngestToken(input),
  // The core's management of tokens (P80), the one the API uses: the options are checked by the CLI first.
  issue: async (store, { accountId, label, expiresAt, now }) => {
    const created = await ingestTokenWrites({ store, nowSeconds: () => now, changeLog: cliChangeLog(store, { now }) }).createIngestToken({
      accountId,
      fields: { label, expires_at: formatUtc(expiresAt) },
      origin: CLI_ORIGIN,
    });
    return created ? { record: created.record, secret: created.token } : null;
  },
  list: (store, accountId) => ingestTokenWrites({ store, nowSeconds: () => 0 }).listIngestTokens({ accountId }),
  revoke: (store, tokenId, now) =>
    ingestTokenWrites({ store, nowSeconds: () => now, changeLog: cliChangeLog(store, { now }) }).revokeIngestToken({
      accountId: null,
      tokenId,
      origin: CLI_ORIGIN,
    }),
});
