/**
 * A record with changes applied: a field given a value (`null` included) takes it, a field left
 * out or `undefined` keeps its own. The one meaning of "changes" of the port's update methods.
 *
 * @param record The record as it is.
 * @param changes Some of its fields.
 * @returns A new record.
 */
export function applyChanges<Record extends object>(record: Record, changes: { readonly [Field in keyof Record]?: Record[Field] }): Record {
  const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  return { ...record, ...defined };
}
