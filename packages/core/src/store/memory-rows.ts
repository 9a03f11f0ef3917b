/**
 * What the memory store's tables share: a row is handed out as a copy, so a caller that changes
 * what it got never changes the store.
 */

/** Copies of the rows of some devices, by device, then by `order`: what the port's `list…({ deviceIds })` methods return. */
export function rowsOfDevices<Row extends { readonly deviceId: number }>(
  rows: ReadonlyMap<number, Row>,
  deviceIds: readonly number[],
  order: (a: Row, b: Row) => number,
): Row[] {
  const wanted = new Set(deviceIds);
  return [...rows.values()]
    .filter((row) => wanted.has(row.deviceId))
    .sort((a, b) => a.deviceId - b.deviceId || order(a, b))
    .map((row) => ({ ...row }));
}

/** Removes the row with this id and returns a copy of it; `null` when there is none. */
export function takeRow<Row extends object>(rows: Map<number, Row>, id: number): Row | null {
  const row = rows.get(id);
  if (!row) return null;
  rows.delete(id);
  return { ...row };
}
