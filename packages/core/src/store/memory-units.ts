import type { FleetHoursStore } from './storage-port.js';

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
 * A memory store with `atomically` (D55, P102): a unit runs alone — every call of the store waits
 * while one runs (its methods await nothing inside, so a call that started has ended) — over the
 * store itself, and a unit that fails has every container of the store put back as it was when the
 * unit began. A unit inside a unit joins it. The idempotency keys are not containers of the undo:
 * a unit never writes them, and a claim made meanwhile waits for the unit anyway.
 *
 * @param store The store's methods, which touch only containers registered with `undo`.
 * @param undo The undo of those containers.
 * @returns The store with `atomically`.
 */
export function withMemoryUnits(store: FleetHoursStore, undo: ReturnType<typeof memoryUndo>): FleetHoursStore {
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
      (...args: unknown[]) => (running ? afterUnits(method, args) : method(...args)),
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
