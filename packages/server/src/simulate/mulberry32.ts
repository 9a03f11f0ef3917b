/**
 * A small, fast PRNG (mulberry32): the same seed gives the same stream everywhere. It makes the
 * demo fleet's year of shifts; the benchmarks draw their data from it too.
 *
 * @param seed Any 32-bit integer.
 * @returns A function giving the next number in [0, 1).
 * @example
 * ```ts
 * import { mulberry32 } from '@fleet-hours/server';
 * const random = mulberry32(42);
 * random(); // the same number on every run
 * ```
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
