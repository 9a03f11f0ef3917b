import { assertEpochSeconds } from '../time/assert-epoch-seconds.js';
import type { Account, ApiKeyRecord, IngestTokenRecord } from '../types.js';
import type { FleetHoursStore } from './storage-port.js';
import type { MemoryUndo } from './memory-units.js';

type _Credential = ApiKeyRecord & IngestTokenRecord;

/** A credential found by fingerprint, under its name in the storage port (`apiKey`, `ingestToken`), with its account. */
type _CredentialLookup<Name extends string> = { readonly [K in Name]: _Credential } & { readonly account: Account };

/**
 * The credentials of one kind (API keys, or ingest tokens) in memory, with their own ids; every
 * answer is a copy. `name` is the credential's field in a lookup (`apiKey`, `ingestToken`).
 */
export function memoryCredentials<Name extends string>(accounts: ReadonlyMap<number, Account>, name: Name, undo: MemoryUndo) {
  const credentials = new Map<number, _Credential>();
  const ids = { last: 0 };
  undo.keep([credentials, ids]);
  return {
    find(fingerprint: string): _CredentialLookup<Name> | null {
      for (const credential of credentials.values()) {
        if (credential.fingerprint === fingerprint) {
          const account = accounts.get(credential.accountId);
          return account ? ({ [name]: { ...credential }, account: { ...account } } as _CredentialLookup<Name>) : null;
        }
      }
      return null;
    },
    create({
      accountId,
      fingerprint,
      label,
      expiresAt,
      now,
      scope = 'read',
    }: Parameters<FleetHoursStore['createApiKey']>[0]): _Credential | null {
      if (expiresAt !== null) assertEpochSeconds('expiresAt', expiresAt);
      assertEpochSeconds('now', now);
      if (!accounts.has(accountId)) return null;
      // Only an API key has a scope (D51).
      const credential = {
        id: ++ids.last,
        accountId,
        fingerprint,
        label,
        ...(name === 'apiKey' ? { scope } : {}),
        createdAt: now,
        expiresAt,
        revokedAt: null,
      } as _Credential;
      credentials.set(credential.id, credential);
      return { ...credential };
    },
    list(accountId: number): _Credential[] {
      return [...credentials.values()]
        .filter((credential) => credential.accountId === accountId)
        .sort((a, b) => a.id - b.id)
        .map((credential) => ({ ...credential }));
    },
    revoke(id: number, now: number): _Credential | null {
      assertEpochSeconds('now', now);
      const credential = credentials.get(id);
      if (!credential) return null;
      const revoked = { ...credential, revokedAt: credential.revokedAt ?? now };
      credentials.set(id, revoked);
      return { ...revoked };
    },
  };
}
