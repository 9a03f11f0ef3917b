import { DEFAULT_API_PLANS, type Account, type FleetHoursStore } from '@fleet-hours/core';
import { CommandError } from '../cli/cli-errors.js';
import { formatTable } from '../cli/format-table.js';
import { readId, readPlan, readText } from '../cli/option-values.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';
import { presentAccount } from './present-records.js';
import { CLI_ORIGIN, cliChangeLog, inCliUnit } from './_cli-change-log.js';

/** `accounts create --name NAME [--plan business|starter]` → `{ id, name, plan }`. */
export async function createAccountCommand(context: CommandContext): Promise<CommandResult> {
  const name = readText(requiredOption(context, 'name'), '--name');
  const planText = optionalOption(context, 'plan');
  const plan = planText === undefined ? 'business' : readPlan(planText);
  const store = await context.store();
  const account = presentAccount(await store.createAccount({ name, plan, now: context.now }));
  const access = DEFAULT_API_PLANS.includes(plan)
    ? 'with API access'
    : 'without API access: its keys answer 403 until it moves to business';
  return { json: account, text: `Created account ${account.id} "${account.name}" on plan ${account.plan} (${access}).\n` };
}

/** `accounts set-plan ID PLAN`. */
export async function setAccountPlanCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(context.positionals[0]!, 'ID');
  const plan = readPlan(context.positionals[1]!);
  // P102: the change and its entry in one unit.
  const account = await inCliUnit(await context.store(), async (store) => {
    const before = await store.findAccount({ accountId });
    const updated = before && (await store.setAccountPlan({ accountId, plan }));
    if (!before || !updated) throw new CommandError(`No account with id ${accountId}`);
    const account = presentAccount(updated);
    // D55: a change of the account, in its own change log (P89).
    await cliChangeLog(store, context).record({
      accountId,
      origin: CLI_ORIGIN,
      action: 'account.update',
      resource: { type: 'account', id: String(accountId) },
      before: { ...presentAccount(before) },
      after: { ...account },
    });
    return account;
  });
  return { json: account, text: `Account ${account.id} "${account.name}" is now on plan ${account.plan}.\n` };
}

/** `accounts list` → `{ data: [{ id, name, plan }] }`. */
export async function listAccountsCommand(context: CommandContext): Promise<CommandResult> {
  const accounts = (await (await context.store()).listAccounts()).map(presentAccount);
  const text =
    accounts.length === 0
      ? 'No accounts yet. Create one with: fleet-hours accounts create --name NAME\n'
      : formatTable(
          [{ header: 'ID', align: 'right' }, { header: 'NAME' }, { header: 'PLAN' }],
          accounts.map((account) => [account.id, account.name, account.plan]),
        );
  return { json: { data: accounts }, text };
}

/** Finds an account or fails with a clear message. */
export async function requireAccount(store: FleetHoursStore, accountId: number): Promise<Account> {
  const account = await store.findAccount({ accountId });
  if (!account) throw new CommandError(`No account with id ${accountId}`);
  return account;
}
