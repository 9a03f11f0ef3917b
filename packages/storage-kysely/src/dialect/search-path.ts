/** Splits a `search_path` setting into schema names, unquoting `"quoted"` ones. */
export function parseSearchPath(searchPath: string): string[] {
  const names: string[] = [];
  const entry = /\s*(?:"((?:[^"]|"")*)"|([^,\s]+))\s*(?:,|$)/gy;
  let match: RegExpExecArray | null;
  while (entry.lastIndex < searchPath.length && (match = entry.exec(searchPath)) !== null) {
    names.push(match[1] !== undefined ? match[1].replace(/""/g, '"') : match[2]!);
  }
  return names;
}
