import { DEFAULT_API_PLANS, fingerprintApiKey, generateApiKey } from '@fleet-hours/core';
import { CommandError } from '../cli/cli-errors.js';
import { formatTable } from '../cli/format-table.js';
import { readId, readInstant } from '../cli/option-values.js';
import { requireAccount } from './accounts.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';
import { formatUtc, presentApiKey } from './present-records.js';

/**
 * `keys create --account ID [--label TEXT] [--expires-at ISO-INSTANT]` →
 * `{ id, key, fingerprint, label, expires_at }`. The key is printed this once; only its
 * SHA-256 fingerprint is stored (D10).
 */
export async function createKeyCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const labelText = optionalOption(context, 'label');
  const label = labelText === undefined || labelText.trim() === '' ? null : labelText.trim();
  const expiresText = optionalOption(context, 'expires-at');
  const expiresAt = expiresText === undefined ? null : readInstant(expiresText, '--expires-at');
  const store = await context.store();
  const account = await requireAccount(store, accountId);

  const key = generateApiKey();
  const record = await store.createApiKey({ accountId, fingerprint: await fingerprintApiKey(key), label, expiresAt, now: context.now });
  if (!record) throw new CommandError(`No account with id ${accountId}`);

  const json = { id: record.id, key, fingerprint: record.fingerprint, label: record.label, expires_at: formatUtc(record.expiresAt) };
  const notes: string[] = [];
  if (expiresAt !== null && expiresAt <= context.now) notes.push(`Note: --expires-at is in the past, so the key is already expired.`);
  if (!DEFAULT_API_PLANS.includes(account.plan)) notes.push(`Note: account ${account.id} is on plan ${account.plan}; its keys answer 403 until it moves to business.`);
  const text = [
    `Created API key ${record.id} for account ${account.id} "${account.name}"${label ? ` (${label})` : ''}.`,
    '',
    `  ${key}`,
    '',
    'This is the only time the key is shown: store it now. Only its fingerprint is kept, so a lost key',
    'cannot be recovered (create a new one and revoke the old).',
    `Fingerprint: ${record.fingerprint}`,
    `Expires:     ${json.expires_at ?? 'never'}`,
    ...notes,
    '',
  ].join('\n');
  return { json, text };
}

/** `keys list --account ID`: fingerprints and states, never a key. */
export async function listKeysCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const store = await context.store();
  await requireAccount(store, accountId);
  const keys = (await store.listApiKeys({ accountId })).map((apiKey) => presentApiKey(apiKey, context.now));
  const text =
    keys.length === 0
      ? `Account ${accountId} has no keys. Create one with: fleet-hours keys create --account ${accountId}\n`
      : formatTable(
          [{ header: 'ID', align: 'right' }, { header: 'STATE' }, { header: 'LABEL' }, { header: 'FINGERPRINT' }, { header: 'CREATED' }, { header: 'EXPIRES' }, { header: 'REVOKED' }],
          keys.map((key) => [key.id, key.state, key.label, `${key.fingerprint.slice(0, 16)}…`, key.created_at, key.expires_at, key.revoked_at]),
        );
  return { json: { data: keys }, text };
}

/** `keys revoke KEY-ID`: the key answers 401 `revoked_api_key` from the next request on (D10). */
export async function revokeKeyCommand(context: CommandContext): Promise<CommandResult> {
  const keyId = readId(context.positionals[0]!, 'KEY-ID');
  const revoked = await (await context.store()).revokeApiKey({ keyId, now: context.now });
  if (!revoked) throw new CommandError(`No API key with id ${keyId}`);
  const json = presentApiKey(revoked, context.now);
  const earlier = revoked.revokedAt !== null && revoked.revokedAt < context.now;
  const text = earlier
    ? `API key ${keyId} was already revoked at ${json.revoked_at}.\n`
    : `Revoked API key ${keyId}; requests with it now answer 401 revoked_api_key.\n`;
  return { json, text };
}
