import { auditReads, InvalidParameterError } from '@fleet-hours/core';
import { auditEntryBody, type AuditEntryBody } from '@fleet-hours/http';
import { UsageError } from '../cli/cli-errors.js';
import { formatTable } from '../cli/format-table.js';
import { readId, readNumber } from '../cli/option-values.js';
import { requireAccount } from './accounts.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';

/**
 * `audit list --account ID [--limit N] [--cursor CURSOR]` → `{ data: [entry…], next_cursor }`: the
 * account's change log, newest first, a page at a time (D55, P87), each entry exactly as
 * `GET /api/v1/audit` shows it.
 */
export async function listAuditCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const limitText = optionalOption(context, 'limit');
  const limit = limitText === undefined ? undefined : readNumber(limitText, '--limit', { positive: true, integer: true });
  const cursor = optionalOption(context, 'cursor');
  const store = await context.store();
  await requireAccount(store, accountId);
  const page = await auditReads(store)
    .list({ accountId, limit, cursor })
    .catch((error: unknown) => {
      // A limit out of range or a cursor of another account or command: the option at fault, exit 2.
      if (error instanceof InvalidParameterError)
        throw new UsageError(`--${error.parameter} ${error.message.replace(/^Parameter \w+ /, '')}`, 'audit list');
      throw error;
    });
  const entries = page.entries.map(auditEntryBody);
  const more =
    page.nextCursor === null
      ? ''
      : `More: fleet-hours audit list --account ${accountId}${limitText === undefined ? '' : ` --limit ${limit}`} --cursor ${page.nextCursor}\n`;
  const text = entries.length === 0 ? `Account ${accountId} has no changes recorded.\n` : `${_auditTable(entries)}${more}`;
  return { json: { data: entries, next_cursor: page.nextCursor }, text };
}

function _auditTable(entries: readonly AuditEntryBody[]): string {
  return formatTable(
    [
      { header: 'ID', align: 'right' },
      { header: 'AT' },
      { header: 'BY' },
      { header: 'REQUEST' },
      { header: 'ACTION' },
      { header: 'RESOURCE' },
      { header: 'CHANGES' },
    ],
    entries.map((entry) => [
      entry.id,
      entry.at,
      entry.actor.kind === 'cli'
        ? 'cli'
        : entry.actor.kind === 'aemp_poller'
          ? `poller ${entry.actor.label}`
          : `key ${entry.actor.label === '' ? '' : `"${entry.actor.label}" `}${entry.actor.fingerprint_prefix}…`,
      entry.request_id,
      entry.action,
      `${entry.resource.type} ${entry.resource.id}`,
      Object.entries(entry.changes)
        .map(([field, [before, after]]) => `${field}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`)
        .join('; '),
    ]),
  );
}
