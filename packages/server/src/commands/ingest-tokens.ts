import { generateIngestToken } from '@fleet-hours/core';
import {
  _createCredentialCommand,
  _listCredentialsCommand,
  _revokeCredentialCommand,
  type _CredentialKind,
} from './_credential-commands.js';
import type { CommandContext, CommandResult } from './command-context.js';

/** Ingest tokens (D24) as the credential commands manage them: not gated by plan. */
const INGEST_TOKENS: _CredentialKind = {
  command: 'ingest-tokens',
  noun: 'ingest token',
  short: 'token',
  plural: 'ingest tokens',
  revokedCode: 'revoked_ingest_token',
  generate: generateIngestToken,
  usage: [
    'Send it as "Authorization: Bearer <token>" to POST /ingest/v1/telemetry and /ingest/traccar,',
    'or as the last path segment of /ingest/osmand/<token>. It writes telemetry and reads nothing.',
  ],
  accountNotes: () => [],
  create: (store, input) => store.createIngestToken(input),
  list: (store, accountId) => store.listIngestTokens({ accountId }),
  revoke: (store, tokenId, now) => store.revokeIngestToken({ tokenId, now }),
};

/**
 * `ingest-tokens create --account ID [--label TEXT] [--expires-at ISO-INSTANT]` →
 * `{ id, token, fingerprint, label, expires_at }`. The token (`fhi_…`) is printed this once; only
 * its SHA-256 fingerprint is stored (D24). It writes telemetry of the account's devices and reads
 * nothing; ingestion is not gated by plan.
 */
export function createIngestTokenCommand(context: CommandContext): Promise<CommandResult> {
  return _createCredentialCommand(INGEST_TOKENS, context);
}

/** `ingest-tokens list --account ID`: fingerprints and states, never a token. */
export function listIngestTokensCommand(context: CommandContext): Promise<CommandResult> {
  return _listCredentialsCommand(INGEST_TOKENS, context);
}

/** `ingest-tokens revoke TOKEN-ID`: the token answers 401 `revoked_ingest_token` from the next request on (D24). */
export function revokeIngestTokenCommand(context: CommandContext): Promise<CommandResult> {
  return _revokeCredentialCommand(INGEST_TOKENS, context, 'TOKEN-ID');
}
