/**
 * A command line that cannot be run as written (unknown option, missing argument, bad value).
 * The CLI prints the message and a pointer to `--help`, and exits with code 2.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command whose help to point to, e.g. `keys create`; empty for the top level. */
  readonly command: string;

  constructor(message: string, command = '') {
    super(message);
    this.command = command;
  }
}

/**
 * A command that ran but could not do its work (no such account, a bad import file, a database
 * that cannot be reached). The CLI prints the message and exits with code 1. The error behind it,
 * if any, is its `cause` (e.g. the socket error of a port in use, with its `code`).
 */
export class CommandError extends Error {
  override readonly name: string = 'CommandError';
}

/** Exit codes of `fleet-hours`. */
export const EXIT_CODES = {
  ok: 0,
  /** The command failed: bad input file, missing record, database error. */
  failure: 1,
  /** The command line is wrong. */
  usage: 2,
} as const;
