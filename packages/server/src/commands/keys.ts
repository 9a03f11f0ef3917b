import { DEFAULT_API_PLANS, generateApiKey } from '@fleet-hours/core';
import {
  _createCredentialCommand,
  _listCredentialsCommand,
  _revokeCredentialCommand,
  type _CredentialKind,
} from './_credential-commands.js';
import type { CommandContext, CommandResult } from './command-context.js';

/** API keys (D10) as the credential commands manage them. */
const API_KEYS: _CredentialKind = {
  command: 'keys',
  noun: 'API key',
  short: 'key',
  plural: 'keys',
  revokedCode: 'revoked_api_key',
  generate: generateApiKey,
  usage: [],
  accountNotes: (account) =>
    DEFAULT_API_PLANS.includes(account.plan)
      ? []
      : [`Note: account ${account.id} is on plan ${account.plan}; its keys answer 403 until it moves to business.`],
  create: (store, input) => store.createApiKey(input),
  list: (store, accountId) => store.listApiKeys({ accountId }),
  revoke: (store, keyId, now) => store.revokeApiKey({ keyId, now }),
};

/**
 * `keys create --account ID [--label TEXT] [--expires-at ISO-INSTANT]` →
 * `{ id, key, fingerprint, label, expires_at }`. The key is printed this once; only its
 * SHA-256 fingerprint is stored (D10).
 */
export function createKeyCommand(context: CommandContext): Promise<CommandResult> {
  return _createCredentialCommand(API_KEYS, context);
}

/** `keys list --account ID`: fingerprints and states, never a key. */
export function listKeysCommand(context: CommandContext): Promise<CommandResult> {
  return _listCredentialsCommand(API_KEYS, context);
}

/** `keys revoke KEY-ID`: the key answers 401 `revoked_api_key` from the next request on (D10). */
export function revokeKeyCommand(context: CommandContext): Promise<CommandResult> {
  return _revokeCredentialCommand(API_KEYS, context, 'KEY-ID');
}
