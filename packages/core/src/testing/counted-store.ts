import type { FleetHoursStore } from '../store/storage-port.js';

/** A store that counts the calls of each of its methods, for the tests of how many store calls a read makes (D32). */
export function countedStore(store: FleetHoursStore): { store: FleetHoursStore; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(String(property), (calls.get(String(property)) ?? 0) + 1);
        return (value as (...callArgs: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: wrapped, calls };
}
