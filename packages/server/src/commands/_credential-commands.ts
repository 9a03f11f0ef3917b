import type { Account, ApiKeyScope, FleetHoursStore, IngestTokenRecord } from '@fleet-hours/core';
import { fingerprintApiKey } from '@fleet-hours/core';
import { FINGERPRINT_PREFIX_LENGTH } from '@fleet-hours/http';
import { CommandError } from '../cli/cli-errors.js';
import { formatTable } from '../cli/format-table.js';
import { readCleanText, readId, readInstant, readScope } from '../cli/option-values.js';
import { requireAccount } from './accounts.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';
import { formatUtc, presentApiKey } from './present-records.js';
import { CLI_ORIGIN, cliChangeLog, inCliUnit } from './_cli-change-log.js';

/** A kind of credential the CLI manages: API keys (D10) or ingest tokens (D24), which share one lifecycle. */
export interface _CredentialKind {
  /** The CLI command: `keys`, `ingest-tokens`. */
  readonly command: string;
  /** The name of the credential in sentences: `API key`, `ingest token`. */
  readonly noun: string;
  /** The short name in sentences: `key`, `token`; also the JSON field of the secret. */
  readonly short: 'key' | 'token';
  /** The plural in `Account 1 has no …`: `keys`, `ingest tokens`. */
  readonly plural: string;
  /** The error code a revoked credential answers with. */
  readonly revokedCode: string;
  /** The argument of `<command> revoke`: `KEY-ID`, `TOKEN-ID`. */
  readonly idName: string;
  /** Whether it has a scope (D51: API keys): `create --scope`, and the scope in what is shown. */
  readonly scoped?: boolean;
  /**
   * The resource type its creation and revocation are recorded as in the account's change log
   * (D55, P89: `api_key`); absent, they are not recorded here.
   */
  readonly audited?: string;
  /** A new secret. */
  generate(): string;
  /** Lines printed under a new credential on how to use it. */
  readonly usage: readonly string[];
  /** Notes printed under a new credential about its account. */
  accountNotes(account: Account): string[];
  create(store: FleetHoursStore, input: Parameters<FleetHoursStore['createApiKey']>[0]): Promise<_CredentialRecord | null>;
  /**
   * Makes and stores a new credential in one step, as the API does (ingest tokens: core's
   * `ingestTokenWrites`, P80); without it, `generate`, the fingerprint and `create`.
   */
  issue?(
    store: FleetHoursStore,
    input: { readonly accountId: number; readonly label: string | null; readonly expiresAt: number | null; readonly now: number },
  ): Promise<{ readonly record: _CredentialRecord; readonly secret: string } | null>;
  list(store: FleetHoursStore, accountId: number): Promise<readonly _CredentialRecord[]>;
  revoke(store: FleetHoursStore, id: number, now: number): Promise<_CredentialRecord | null>;
}

/** A stored API key or ingest token: only an API key has a scope (D51). */
type _CredentialRecord = IngestTokenRecord & { readonly scope?: ApiKeyScope };

/** The three commands of a kind of credential, `<command> create`, `list` and `revoke`, as `runCli` runs them. */
export function _credentialCommands(kind: _CredentialKind): Readonly<Record<'create' | 'list' | 'revoke', Command>> {
  return {
    create: (context) => _createCredential(kind, context),
    list: (context) => _listCredentials(kind, context),
    revoke: (context) => _revokeCredential(kind, context),
  };
}

type Command = (context: CommandContext) => Promise<CommandResult>;

/** `<command> create --account ID [--label TEXT] [--expires-at ISO-INSTANT]`: the secret is printed this once. */
async function _createCredential(kind: _CredentialKind, context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const labelText = optionalOption(context, 'label');
  const label = labelText === undefined || labelText.trim() === '' ? null : readCleanText(labelText, '--label');
  const expiresText = optionalOption(context, 'expires-at');
  const expiresAt = expiresText === undefined ? null : readInstant(expiresText, '--expires-at');
  const scopeText = kind.scoped ? optionalOption(context, 'scope') : undefined;
  const scope = scopeText === undefined ? undefined : readScope(scopeText);
  const store = await context.store();
  const account = await requireAccount(store, accountId);

  // P102: the credential and its entry in one unit.
  const issued = await inCliUnit(store, async (store) => {
    const issued = kind.issue
      ? await kind.issue(store, { accountId, label, expiresAt, now: context.now })
      : await _issue(kind, store, { accountId, label, expiresAt, now: context.now, ...(scope ? { scope } : {}) });
    if (issued) await _recordChange(kind, store, context, 'create', null, issued.record);
    return issued;
  });
  if (!issued) throw new CommandError(`No account with id ${accountId}`);
  const { record, secret } = issued;

  const json = {
    id: record.id,
    [kind.short]: secret,
    fingerprint: record.fingerprint,
    label: record.label,
    ...(kind.scoped ? { scope: record.scope } : {}),
    expires_at: formatUtc(record.expiresAt),
  };
  const notes: string[] = [];
  if (expiresAt !== null && expiresAt <= context.now)
    notes.push(`Note: --expires-at is in the past, so the ${kind.short} is already expired.`);
  notes.push(...kind.accountNotes(account));
  const text = [
    `Created ${kind.noun} ${record.id} for account ${account.id} "${account.name}"${label ? ` (${label})` : ''}.`,
    '',
    `  ${secret}`,
    '',
    `This is the only time the ${kind.short} is shown: store it now. Only its fingerprint is kept, so a lost ${kind.short}`,
    'cannot be recovered (create a new one and revoke the old).',
    ...kind.usage,
    `Fingerprint: ${record.fingerprint}`,
    ...(kind.scoped ? [`Scope:       ${record.scope}${record.scope === 'read' ? ' (reads only)' : ' (reads and changes)'}`] : []),
    `Expires:     ${json.expires_at ?? 'never'}`,
    ...notes,
    '',
  ].join('\n');
  return { json, text };
}

/** A new secret, stored by its fingerprint only (D10, D24). */
async function _issue(
  kind: _CredentialKind,
  store: FleetHoursStore,
  input: Omit<Parameters<FleetHoursStore['createApiKey']>[0], 'fingerprint'>,
): Promise<{ readonly record: _CredentialRecord; readonly secret: string } | null> {
  const secret = kind.generate();
  const record = await kind.create(store, { ...input, fingerprint: await fingerprintApiKey(secret) });
  return record ? { record, secret } : null;
}

/** `<command> list --account ID`: fingerprints and states, never a secret. */
async function _listCredentials(kind: _CredentialKind, context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const store = await context.store();
  await requireAccount(store, accountId);
  const records = (await kind.list(store, accountId)).map((record) => ({
    ...presentApiKey(record, context.now),
    ...(kind.scoped ? { scope: record.scope } : {}),
  }));
  const text =
    records.length === 0
      ? `Account ${accountId} has no ${kind.plural}. Create one with: fleet-hours ${kind.command} create --account ${accountId}\n`
      : formatTable(
          [
            { header: 'ID', align: 'right' },
            { header: 'STATE' },
            { header: 'LABEL' },
            ...(kind.scoped ? [{ header: 'SCOPE' }] : []),
            { header: 'FINGERPRINT' },
            { header: 'CREATED' },
            { header: 'EXPIRES' },
            { header: 'REVOKED' },
          ],
          records.map((record) => [
            record.id,
            record.state,
            record.label,
            ...(kind.scoped ? [record.scope ?? 'read'] : []),
            `${record.fingerprint.slice(0, 16)}…`,
            record.created_at,
            record.expires_at,
            record.revoked_at,
          ]),
        );
  return { json: { data: records }, text };
}

/** `<command> revoke ID`: the credential answers 401 with `kind.revokedCode` from the next request on. */
async function _revokeCredential(kind: _CredentialKind, context: CommandContext): Promise<CommandResult> {
  const id = readId(context.positionals[0]!, kind.idName);
  const store = await context.store();
  // P102: the revocation and its entry in one unit.
  const revoked = await inCliUnit(store, async (store) => {
    const revoked = await kind.revoke(store, id, context.now);
    const earlier = revoked !== null && revoked.revokedAt !== null && revoked.revokedAt < context.now;
    if (revoked && !earlier) await _recordChange(kind, store, context, 'revoke', { ...revoked, revokedAt: null }, revoked);
    return revoked;
  });
  if (!revoked) throw new CommandError(`No ${kind.noun} with id ${id}`);
  const json = presentApiKey(revoked, context.now);
  const earlier = revoked.revokedAt !== null && revoked.revokedAt < context.now;
  const Noun = kind.noun.charAt(0).toUpperCase() + kind.noun.slice(1);
  const text = earlier
    ? `${Noun} ${id} was already revoked at ${json.revoked_at}.\n`
    : `Revoked ${kind.noun} ${id}; requests with it now answer 401 ${kind.revokedCode}.\n`;
  return { json, text };
}

/**
 * D55, P89: a credential created or revoked, in its account's change log with the CLI as actor:
 * by id, label, scope, the first characters of its fingerprint and its instants — never the
 * secret, which is not stored anywhere.
 */
async function _recordChange(
  kind: _CredentialKind,
  store: FleetHoursStore,
  context: CommandContext,
  verb: 'create' | 'revoke',
  before: _CredentialRecord | null,
  after: _CredentialRecord,
): Promise<void> {
  if (kind.audited === undefined) return;
  const shown = (record: _CredentialRecord) => ({
    id: record.id,
    label: record.label,
    ...(kind.scoped ? { scope: record.scope ?? 'read' } : {}),
    fingerprint_prefix: record.fingerprint.slice(0, FINGERPRINT_PREFIX_LENGTH),
    expires_at: formatUtc(record.expiresAt),
    revoked_at: formatUtc(record.revokedAt),
  });
  await cliChangeLog(store, context).record({
    accountId: after.accountId,
    origin: CLI_ORIGIN,
    action: `${kind.audited}.${verb}`,
    resource: { type: kind.audited, id: String(after.id) },
    before: before === null ? null : shown(before),
    after: shown(after),
  });
}
