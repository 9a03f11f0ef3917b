import { fingerprintApiKey, generateIngestToken } from '@fleet-hours/core';
import { CommandError } from '../cli/cli-errors.js';
import { formatTable } from '../cli/format-table.js';
import { readId, readInstant } from '../cli/option-values.js';
import { requireAccount } from './accounts.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';
import { formatUtc, presentApiKey } from './present-records.js';

/**
 * `ingest-tokens create --account ID [--label TEXT] [--expires-at ISO-INSTANT]` →
 * `{ id, token, fingerprint, label, expires_at }`. The token (`fhi_…`) is printed this once; only
 * its SHA-256 fingerprint is stored (D24). It writes telemetry of the account's devices and reads
 * nothing; ingestion is not gated by plan.
 */
export async function createIngestTokenCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const labelText = optionalOption(context, 'label');
  const label = labelText === undefined || labelText.trim() === '' ? null : labelText.trim();
  const expiresText = optionalOption(context, 'expires-at');
  const expiresAt = expiresText === undefined ? null : readInstant(expiresText, '--expires-at');
  const store = await context.store();
  const account = await requireAccount(store, accountId);

  const token = generateIngestToken();
  const record = await store.createIngestToken({ accountId, fingerprint: await fingerprintApiKey(token), label, expiresAt, now: context.now });
  if (!record) throw new CommandError(`No account with id ${accountId}`);

  const json = { id: record.id, token, fingerprint: record.fingerprint, label: record.label, expires_at: formatUtc(record.expiresAt) };
  const notes: string[] = [];
  if (expiresAt !== null && expiresAt <= context.now) notes.push('Note: --expires-at is in the past, so the token is already expired.');
  const text = [
    `Created ingest token ${record.id} for account ${account.id} "${account.name}"${label ? ` (${label})` : ''}.`,
    '',
    `  ${token}`,
    '',
    'This is the only time the token is shown: store it now. Only its fingerprint is kept, so a lost',
    'token cannot be recovered (create a new one and revoke the old).',
    'Send it as "Authorization: Bearer <token>" to POST /ingest/v1/telemetry and /ingest/traccar,',
    'or as the last path segment of /ingest/osmand/<token>. It writes telemetry and reads nothing.',
    `Fingerprint: ${record.fingerprint}`,
    `Expires:     ${json.expires_at ?? 'never'}`,
    ...notes,
    '',
  ].join('\n');
  return { json, text };
}

/** `ingest-tokens list --account ID`: fingerprints and states, never a token. */
export async function listIngestTokensCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const store = await context.store();
  await requireAccount(store, accountId);
  const tokens = (await store.listIngestTokens({ accountId })).map((token) => presentApiKey(token, context.now));
  const text =
    tokens.length === 0
      ? `Account ${accountId} has no ingest tokens. Create one with: fleet-hours ingest-tokens create --account ${accountId}\n`
      : formatTable(
          [{ header: 'ID', align: 'right' }, { header: 'STATE' }, { header: 'LABEL' }, { header: 'FINGERPRINT' }, { header: 'CREATED' }, { header: 'EXPIRES' }, { header: 'REVOKED' }],
          tokens.map((token) => [token.id, token.state, token.label, `${token.fingerprint.slice(0, 16)}…`, token.created_at, token.expires_at, token.revoked_at]),
        );
  return { json: { data: tokens }, text };
}

/** `ingest-tokens revoke TOKEN-ID`: the token answers 401 `revoked_ingest_token` from the next request on (D24). */
export async function revokeIngestTokenCommand(context: CommandContext): Promise<CommandResult> {
  const tokenId = readId(context.positionals[0]!, 'TOKEN-ID');
  const revoked = await (await context.store()).revokeIngestToken({ tokenId, now: context.now });
  if (!revoked) throw new CommandError(`No ingest token with id ${tokenId}`);
  const json = presentApiKey(revoked, context.now);
  const earlier = revoked.revokedAt !== null && revoked.revokedAt < context.now;
  const text = earlier
    ? `Ingest token ${tokenId} was already revoked at ${json.revoked_at}.\n`
    : `Revoked ingest token ${tokenId}; requests with it now answer 401 revoked_ingest_token.\n`;
  return { json, text };
}
