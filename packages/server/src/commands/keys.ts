import { DEFAULT_API_PLANS, generateApiKey } from '@fleet-hours/core';
import { _credentialCommands } from './_credential-commands.js';

/**
 * API keys (D10):
 * - `keys create --account ID [--label TEXT] [--expires-at ISO-INSTANT] [--scope read|manage]` →
 *   `{ id, key, fingerprint, label, scope, expires_at }`; `manage` keys also change data (D51). The key is printed this once; only its SHA-256
 *   fingerprint is stored (D10).
 * - `keys list --account ID`: fingerprints and states, never a key.
 * - `keys revoke KEY-ID`: the key answers 401 `revoked_api_key` from the next request on (D10).
 */
export const KEY_COMMANDS = _credentialCommands({
  command: 'keys',
  noun: 'API key',
  short: 'key',
  plural: 'keys',
  revokedCode: 'revoked_api_key',
  idName: 'KEY-ID',
  scoped: true,
  // D55, P89: keys created and revoked by the CLI show in the account's change log.
  audited: 'api_key',
  generate: generateApiKey,
  usage: [],
  accountNotes: (account) =>
    DEFAULT_API_PLANS.includes(account.plan)
      ? []
      : [`Note: account ${account.id} is on plan ${account.plan}; its keys answer 403 until it moves to business.`],
  create: (store, input) => store.createApiKey(input),
  list: (store, accountId) => store.listApiKeys({ accountId }),
  revoke: (store, keyId, now) => store.revokeApiKey({ keyId, now }),
});
