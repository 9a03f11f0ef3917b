import { expect } from 'vitest';

/** An error class, as `instanceof` reads it. */
type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

const named = (type: ErrorClass<Error>) => `${/^[AEIOU]/.test(type.name) ? 'an' : 'a'} ${type.name}`;

/** The rejection of a call that must be refused: fails the test if it resolves. */
export async function refusalOf(call: Promise<unknown>): Promise<Error> {
  const outcome = await call.then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ error }),
  );
  if ('resolved' in outcome) throw new Error(`Expected a refusal, got ${JSON.stringify(outcome.resolved)}`);
  expect(outcome.error).toBeInstanceOf(Error);
  return outcome.error as Error;
}

/** The error of class `type` that `run` throws: fails the test when it throws anything else, or nothing. */
export function thrownBy<E extends Error>(type: ErrorClass<E>, run: () => unknown): E {
  try {
    run();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected ${named(type)}`);
}

/** The error of class `type` that `promise` rejects with: fails the test when it resolves or rejects with anything else. */
export async function rejectionBy<E extends Error>(type: ErrorClass<E>, promise: Promise<unknown>): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (error instanceof type) return error;
  throw new Error(`expected ${named(type)}, got ${String(error)}`);
}
