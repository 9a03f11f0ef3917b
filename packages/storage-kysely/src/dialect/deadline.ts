/**
 * The `code` of a database call that missed its deadline (D28). `stores/storage-error.ts` maps it to
 * `StorageUnavailableError` like a connection failure: a database that does not answer in time is
 * one that cannot be reached (D18).
 */
export const DEADLINE_EXCEEDED_CODE = 'DEADLINE_EXCEEDED';

/** The default deadline of a database call, in seconds (D28). */
export const DEFAULT_QUERY_TIMEOUT_SECONDS = 5;

/**
 * The deadline of the calls of one database, shared by its dialect and driver, and lifted while
 * the schema migrates (a migration may rightly take longer than a request's deadline).
 */
export class DeadlineControl {
  readonly #timeoutMs: number;
  #lifted = 0;

  /** @param timeoutSeconds Seconds; `0` (or `Infinity`) means no deadline. */
  constructor(timeoutSeconds: number) {
    if (typeof timeoutSeconds !== 'number' || Number.isNaN(timeoutSeconds) || timeoutSeconds < 0) {
      throw new RangeError(`queryTimeout must be a number of seconds, 0 or more: got "${String(timeoutSeconds)}"`);
    }
    this.#timeoutMs = Number.isFinite(timeoutSeconds) ? Math.round(timeoutSeconds * 1000) : 0;
  }

  /** The deadline of a call starting now, in milliseconds; `0` for none. */
  get timeoutMs(): number {
    return this.#lifted > 0 ? 0 : this.#timeoutMs;
  }

  /** The configured deadline in milliseconds, lifted or not; `0` for none. */
  get configuredMs(): number {
    return this.#timeoutMs;
  }

  /** Whether the deadline is lifted right now (see {@link withoutDeadline}). */
  get lifted(): boolean {
    return this.#lifted > 0;
  }

  /** Runs `operation` with the deadline lifted for every call of this database until it settles. */
  async lift<T>(operation: () => Promise<T>): Promise<T> {
    this.#lifted += 1;
    try {
      return await operation();
    } finally {
      this.#lifted -= 1;
    }
  }
}

// The deadline of the databases (and dialects) this package created, by their Kysely instance.
const _controls = new WeakMap<object, DeadlineControl>();

/** Records the deadline of a database or dialect this package created, so that {@link withoutDeadline} finds it. */
export function registerDeadline<Owner extends object>(owner: Owner, control: DeadlineControl): Owner {
  _controls.set(owner, control);
  return owner;
}

/** The deadline recorded for a database or dialect, if this package created it. */
export function deadlineOf(owner: object): DeadlineControl | undefined {
  return _controls.get(owner);
}

/**
 * Runs `operation` with the deadline of `db` lifted, when `db` is one this package created (the
 * migrations: creating an index or filling a new table may take longer than a request may wait).
 * For any other database it just runs `operation`.
 */
export function withoutDeadline<T>(db: object, operation: () => Promise<T>): Promise<T> {
  const control = _controls.get(db);
  return control ? control.lift(operation) : operation();
}

/** The error a call that missed its deadline rejects with. */
export function deadlineError(timeoutMs: number): Error {
  return Object.assign(new Error(`The database did not answer within ${timeoutMs} ms`), { code: DEADLINE_EXCEEDED_CODE });
}

/** What happens around a call bounded by {@link withDeadline}. */
export interface DeadlineHooks<T> {
  /** The call missed its deadline; `operation` is still running. */
  readonly onMissed?: (operation: Promise<T>) => void;
  /** The call succeeded after it had missed its deadline, e.g. to give back what it acquired. */
  readonly onLate?: (value: T) => void;
}

/**
 * Settles like `operation`, or rejects with {@link deadlineError} once `timeoutMs` has passed
 * (a client-side deadline: a stalled link never answers, so no server-side timeout can fire).
 * A late outcome of `operation` is never unhandled. `timeoutMs` 0 means no deadline.
 */
export function withDeadline<T>(operation: PromiseLike<T>, timeoutMs: number, hooks: DeadlineHooks<T> = {}): Promise<T> {
  const running = Promise.resolve(operation);
  if (!(timeoutMs > 0)) return running;
  return new Promise<T>((resolve, reject) => {
    let missed = false;
    const timer = setTimeout(() => {
      missed = true;
      reject(deadlineError(timeoutMs));
      hooks.onMissed?.(running);
    }, timeoutMs);
    running.then(
      (value) => {
        clearTimeout(timer);
        if (missed) hooks.onLate?.(value);
        else resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (!missed) reject(error);
      },
    );
  });
}
