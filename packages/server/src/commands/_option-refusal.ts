import { InvalidParameterError } from '@fleet-hours/core';
import { CommandError } from '../cli/cli-errors.js';

/**
 * Runs a check of the core and turns its refusal into the CLI's: the core names the fields of a
 * reading or schedule (`interval_seconds`), the operator typed options (`--every`). The message is
 * the core's with each field replaced by its option, and a value the core quotes in parentheses
 * given its unit (`due_soon_seconds (90000)` → `--due-soon (90000 s)`: the option may have been
 * typed in hours). A refusal of a well-formed value exits 1; a malformed one was refused earlier
 * (exit 2).
 *
 * @param options The options of the command by the core's field names, e.g. `{ interval_seconds: '--every' }`.
 * @param check The check; its value is returned.
 * @throws {CommandError} For an `InvalidParameterError`; anything else is rethrown.
 */
export function _withOptionNames<Value>(options: Readonly<Record<string, string>>, check: () => Value): Value {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof InvalidParameterError)) throw error;
    const fields = Object.keys(options).sort((a, b) => b.length - a.length);
    const mention = new RegExp(`\\b(${fields.join('|')})\\b(?: \\((-?\\d+)\\))?`, 'g');
    const named = error.message.replace(mention, (_, field: string, value: string | undefined) =>
      value === undefined ? options[field]! : `${options[field]} (${value}${_unitOf(field)})`,
    );
    throw new CommandError(named, { cause: error });
  }
}

function _unitOf(field: string): string {
  if (field.endsWith('_seconds')) return ' s';
  return field.endsWith('_days') ? ' days' : '';
}
