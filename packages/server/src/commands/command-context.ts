import type { FleetHoursStore } from '@fleet-hours/core';
import type { CliIo } from '../cli/cli-io.js';
import type { DatabaseOpener } from '../database/open-database.js';

/** What a store-backed command receives. */
export interface CommandContext {
  /**
   * Opens the database (once; later calls share it). Commands check their arguments first, so a
   * wrong command line fails fast without starting a database.
   */
  readonly store: () => Promise<FleetHoursStore>;
  /** The command's own options, by name, as typed. */
  readonly options: Readonly<Record<string, string | boolean | undefined>>;
  /** Every value of each option that may be repeated (`--tag a --tag b`), in order; none when not given. */
  readonly repeated?: Readonly<Record<string, readonly string[]>>;
  readonly positionals: readonly string[];
  /** Epoch seconds, read once per command. */
  readonly now: number;
  readonly io: CliIo;
  /** Whether `--json` was given: progress and notes must then stay off stdout. */
  readonly json: boolean;
}

/** What a command that runs until it is stopped (`serve`, `demo`) receives: it opens its own database and returns its exit code. */
export interface ServingCommandInput {
  readonly io: CliIo;
  readonly options: CommandContext['options'];
  readonly openDatabase: DatabaseOpener;
}

/** What a command prints: `json` with `--json`, `text` without. */
export interface CommandResult {
  readonly json: unknown;
  readonly text: string;
  /** The exit code after printing (default 0), e.g. 1 for a check that found problems (`figures verify`). */
  readonly exitCode?: number;
}

/** Reads an option the parser already checked to be present. */
export function requiredOption(context: CommandContext, name: string): string {
  const value = context.options[name];
  if (typeof value !== 'string') throw new TypeError(`Option --${name} was not parsed`);
  return value;
}

/** Reads an optional string option. */
export function optionalOption(context: CommandContext, name: string): string | undefined {
  const value = context.options[name];
  return typeof value === 'string' ? value : undefined;
}
