import { InvalidFieldError, InvalidParameterError } from '@fleet-hours/core';
import { CommandError } from '../cli/cli-errors.js';
import { type DurationUnit, formatDuration } from '../cli/option-values.js';

/**
 * Runs a check of the core and turns its refusal into the CLI's: the core names the fields of a
 * reading or schedule (`interval_seconds`), the operator typed options (`--every`). The message is
 * the core's with each field replaced by its option, and the seconds it quotes said in the unit the
 * operator typed (`due_soon_seconds (1080000)` → `--due-soon (300h)` for `--due-soon 300h`): in the
 * unit of that option, else in the unit of the option the refusal is about, else in that of any
 * duration typed. A refusal of a well-formed value exits 1; a malformed one was refused earlier (exit 2).
 *
 * @param options The options of the command by the core's field names, e.g. `{ interval_seconds: '--every' }`.
 * @param check The check; its value is returned.
 * @param units The unit each duration was typed in, by field (`durationUnit(text)`); seconds when not given.
 * @throws {CommandError} For an `InvalidParameterError` or `InvalidFieldError`; anything else is rethrown.
 */
export function _withOptionNames<Value>(
  options: Readonly<Record<string, string>>,
  check: () => Value,
  units: Readonly<Record<string, DurationUnit | undefined>> = {},
): Value {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof InvalidParameterError) && !(error instanceof InvalidFieldError)) throw error;
    // The core's writes name the fields of the API's body (P76); its checks name them as parameters.
    const parameter = error instanceof InvalidFieldError ? error.field : error.parameter;
    const about = units[parameter] ?? Object.values(units).find((unit) => unit !== undefined);
    const unitOf = (field: string): DurationUnit => units[field] ?? about ?? 's';
    const fields = Object.keys(options).sort((a, b) => b.length - a.length);
    const mention = new RegExp(`\\b(${fields.join('|')})\\b(?: \\((-?\\d+)\\))?`, 'g');
    let named = error.message.replace(mention, (_, field: string, value: string | undefined) => {
      if (value === undefined) return options[field]!;
      if (field.endsWith('_seconds')) return `${options[field]} (${formatDuration(Number(value), unitOf(field))})`;
      return `${options[field]} (${value}${field.endsWith('_days') ? ' days' : ''})`;
    });
    // The bounds of a duration, said in its unit too: "a whole number of seconds from 0 to 36000000000".
    if (parameter.endsWith('_seconds')) {
      named = named.replace(
        /a whole number of seconds (above 0 and at most|from 0 to) (\d+)/,
        (_, bounds: string, limit: string) => `a duration ${bounds} ${formatDuration(Number(limit), unitOf(parameter))}`,
      );
    }
    throw new CommandError(named, { cause: error });
  }
}

/** {@link _withOptionNames} of a write of the core (P76): its refusal, once the promise settles, named by the options. */
export async function _writeWithOptionNames<Value>(
  options: Readonly<Record<string, string>>,
  write: () => Promise<Value>,
  units: Readonly<Record<string, DurationUnit | undefined>> = {},
): Promise<Value> {
  try {
    return await write();
  } catch (error) {
    return _withOptionNames(
      options,
      () => {
        throw error;
      },
      units,
    );
  }
}
