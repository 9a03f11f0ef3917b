import fc from 'fast-check';

/**
 * Batches, with the same batches as a sender delivers them: some resent, all in a random order
 * (the input of the commutative, associative and idempotent properties of telemetry writes).
 */
export function deliveriesArbitrary<T>(batchesArbitrary: fc.Arbitrary<T[][]>): fc.Arbitrary<[T[][], T[][]]> {
  return batchesArbitrary.chain((batches) =>
    fc.tuple(
      fc.constant(batches),
      fc.array(fc.nat(), { maxLength: 4 }).chain((resends) => {
        const all = [...batches, ...(batches.length === 0 ? [] : resends.map((index) => batches[index % batches.length]!))];
        return fc.shuffledSubarray(all, { minLength: all.length });
      }),
    ),
  );
}
