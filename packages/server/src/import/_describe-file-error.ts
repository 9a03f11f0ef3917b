/**
 * Why a file cannot be read, by the error's code (`ENOENT` → `no such file`), for
 * `Cannot read FILE: …`; an error without a known code gives its own message.
 */
export function _describeFileError(error: unknown): string {
  const reason = _FILE_ERRORS.get((error as { code?: unknown } | null)?.code);
  return reason ?? (error instanceof Error ? error.message : String(error));
}

const _FILE_ERRORS: ReadonlyMap<unknown, string> = new Map([
  ['ENOENT', 'no such file'],
  ['EISDIR', 'it is a directory'],
  ['EACCES', 'permission denied'],
]);
