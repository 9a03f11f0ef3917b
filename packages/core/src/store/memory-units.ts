import type { FleetHoursStore } from './storage-port.js';

/** The methods of the port that only read, by their names. */
const _READ = /^(find|list|sum|summarize|engineSecondsBefore|ping)/;

/** A container of a memory store's state: a map, a set, an array, or an object of counters. */
type _Container = Map<unknown, unknown> | Set<unknown> | unknown[] | Record<string, unknown>;

/**
 * What a memory store puts back when a unit fails (P102): each part of the store registers the
 * containers of its state, and a unit saves them all before its work and restores them if it fails.
 */
export interface MemoryUndo {
  /**
   * Registers containers. A map's values are kept as they are (the store replaces a record, it
   * does not change it) unless `copyValues`: for a map whose records the store changes in place.
   */
  keep(containers: readonly _Container[], options?: { readonly copyValues?: boolean }): void;
}

/** The undo of a memory store, with `save()`: what restores every container registered as it is now. */
export function memoryUndo(): MemoryUndo & { save(): () => void } {
  const kept: { readonly container: _Container; readonly copyValues: boolean }[] = [];
  return {
    keep(containers, options) {
      for (const container of containers) kept.push({ container, copyValues: options?.copyValues === true });
    },
    save() {
      const restores = kept.map(({ container, copyValues }) => _save(container, copyValues));
      return () => {
        for (const restore of restores) restore();
      };
    },
  };
}

function _save(container: _Container, copyValues: boolean): () => void {
  const copy = <T>(value: T): T => (copyValues && typeof value === 'object' && value !== null ? { ...value } : value);
  if (container instanceof Map) {
    const entries = [...container].map(([key, value]) => [key, copy(value)] as const);
    return () => {
      container.clear();
      for (const [key, value] of entries) container.set(key, copy(value));
    };
  }
  if (container instanceof Set) {
    const values = [...container];
    return () => {
      container.clear();
      for (const value of values) container.add(value);
    };
  }
  if (Array.isArray(container)) {
    const values = [...container];
    return () => void container.splice(0, container.length, ...values);
  }
  const fields = { ...container };
  return () => {
    for (const key of Object.keys(container)) delete container[key];
    Object.assign(container, fields);
  };
}

/**
 * A memory store with `atomically` (D55, P102): a unit writes alone — every write of the store
 * waits while one runs (its methods await nothing inside, so a write that started has ended) —
 * over the store itself, and a unit that fails has every container of the store put back as it was
 * when the unit began, so no other write is undone with it. A unit inside a unit joins it. Reads
 * (`find…`, `list…` and the sums) never wait: they may see a unit's writes before it ends, which
 * a database would not show (a memory unit ends within a few turns of the event loop, and fails
 * only when its work throws). The methods named `apart` (the idempotency keys: a unit never writes
 * them, and a request's key is claimed and kept around its unit) touch nothing of the undo and
 * never wait either: a request sent again while the first one's unit runs is answered at once (D53).
 *
 * @param store The store's methods, which touch only containers registered with `undo`, but those `apart`.
 * @param undo The undo of those containers.
 * @param apart The names of the methods that never wait.
 * @returns The store with `atomically`.
 */
export function withMemoryUnits(store: FleetHoursStore, undo: ReturnType<typeof memoryUndo>, apart: readonly string[]): FleetHoursStore {
  let running: Promise<void> | null = null;
  // The check and the call in one turn: no unit can begin in between.
  const afterUnits = async (method: (...args: unknown[]) => unknown, args: unknown[]) => {
    while (running) await running;
    return method(...args);
  };
  const inside: FleetHoursStore = { ...store, atomically: (work) => work(inside) };
  const outside = Object.fromEntries(
    Object.entries(store).map(([name, method]) => [
      name,
      // No unit running (nearly always): the call as it is, without a turn of the event loop.
      (...args: unknown[]) => (running && !apart.includes(name) && !_READ.test(name) ? afterUnits(method, args) : method(...args)),
    ]),
  ) as unknown as FleetHoursStore;
  return {
    ...outside,
    async atomically(work) {
      while (running) await running;
      let done!: () => void;
      running = new Promise((resolve) => {
        done = resolve;
      });
      const restore = undo.save();
      try {
        return await work(inside);
      } catch (error) {
        restore();
        throw error;
      } finally {
        running = null;
        done();
      }
    },
  };
}
