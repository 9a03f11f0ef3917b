import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SegmentOverlapError } from '../errors/errors.js';
import { planSegmentImport, segmentSpan } from './plan-segment-import.js';
import { thrownBy } from '../testing/refusal.js';
import type { SegmentInput, SegmentState } from '../types.js';

const idle = (startedAt: number, endedAt: number | null): SegmentInput => ({ startedAt, endedAt, state: 'idle' });
const moving = (startedAt: number, endedAt: number | null): SegmentInput => ({ startedAt, endedAt, state: 'moving' });

const overlapError = (run: () => unknown): SegmentOverlapError => thrownBy(SegmentOverlapError, run);

describe('segmentSpan()', () => {
  it('is null for an empty batch', () => {
    expect(segmentSpan([])).toBeNull();
  });

  it('runs from the earliest start to the latest end', () => {
    expect(segmentSpan([idle(30, 40), moving(10, 20), idle(50, 60)])).toEqual({ start: 10, end: 60 });
  });

  it('is open-ended when the batch holds an open segment', () => {
    expect(segmentSpan([idle(10, 20), moving(30, null)])).toEqual({ start: 10, end: null });
    expect(segmentSpan([moving(30, null), idle(10, 20)])).toEqual({ start: 10, end: null });
  });
});

describe('planSegmentImport() (D1)', () => {
  it('inserts new segments in time order', () => {
    expect(planSegmentImport({ incoming: [idle(100, 200), moving(0, 100), idle(300, null)], stored: [] })).toEqual({
      insert: [moving(0, 100), idle(100, 200), idle(300, null)],
      close: [],
      skipped: 0,
      lastReportedAt: 300,
    });
  });

  it('plans nothing for an empty batch', () => {
    expect(planSegmentImport({ incoming: [], stored: [idle(0, 10)] })).toEqual({ insert: [], close: [], skipped: 0, lastReportedAt: null });
  });

  it('skips a segment identical to a stored one, so re-importing a file is harmless', () => {
    const batch = [idle(0, 100), moving(100, 200), idle(300, null)];
    expect(planSegmentImport({ incoming: batch, stored: batch })).toEqual({ insert: [], close: [], skipped: 3, lastReportedAt: 300 });
  });

  it('skips a segment repeated inside the batch', () => {
    expect(planSegmentImport({ incoming: [idle(0, 100), idle(0, 100), moving(100, 150)], stored: [] })).toEqual({
      insert: [idle(0, 100), moving(100, 150)],
      close: [],
      skipped: 1,
      lastReportedAt: 150,
    });
  });

  it('closes a stored open segment imported again with its ended_at', () => {
    expect(planSegmentImport({ incoming: [idle(0, 60)], stored: [idle(0, null)] })).toEqual({
      insert: [],
      close: [{ startedAt: 0, endedAt: 60 }],
      skipped: 0,
      lastReportedAt: 60,
    });
  });

  it('closes a stored open segment and inserts what follows it in the same batch', () => {
    expect(planSegmentImport({ incoming: [idle(0, 60), moving(60, null)], stored: [idle(0, null)] })).toEqual({
      insert: [moving(60, null)],
      close: [{ startedAt: 0, endedAt: 60 }],
      skipped: 0,
      lastReportedAt: 60,
    });
  });

  it('skips an open segment re-imported after it was stored closed (P8)', () => {
    expect(planSegmentImport({ incoming: [idle(0, null)], stored: [idle(0, 60)] })).toEqual({
      insert: [],
      close: [],
      skipped: 1,
      lastReportedAt: 0,
    });
  });

  it('skips the open version of a segment the same batch closes', () => {
    expect(planSegmentImport({ incoming: [idle(0, 60), idle(0, null)], stored: [idle(0, null)] })).toEqual({
      insert: [],
      close: [{ startedAt: 0, endedAt: 60 }],
      skipped: 1,
      lastReportedAt: 60,
    });
  });

  it('does not treat touching segments (one ends where the next starts) as overlapping', () => {
    expect(planSegmentImport({ incoming: [moving(100, 200)], stored: [idle(0, 100), idle(200, 300)] }).insert).toEqual([moving(100, 200)]);
  });

  it('refuses an overlap with a stored segment, naming the row and the stored segment', () => {
    const error = overlapError(() => planSegmentImport({ incoming: [idle(1000, 1100), moving(50, 150)], stored: [idle(0, 100)] }));
    expect(error.conflicts).toEqual([{ row: 2, otherRow: null, stored: { startedAt: 0, endedAt: 100, state: 'idle' } }]);
    expect(error.message).toBe('Import refused, nothing written: row 2 overlaps a stored segment');
  });

  it('refuses an overlap inside the batch, naming both rows', () => {
    const error = overlapError(() => planSegmentImport({ incoming: [idle(0, 100), idle(200, 300), moving(50, 200)], stored: [] }));
    expect(error.conflicts).toEqual([{ row: 3, otherRow: 1, stored: null }]);
    expect(error.message).toBe('Import refused, nothing written: row 3 overlaps row 1');
  });

  it('refuses a segment with the same start as a stored one but another state or end', () => {
    expect(overlapError(() => planSegmentImport({ incoming: [moving(0, 100)], stored: [idle(0, 100)] })).conflicts[0]!.row).toBe(1);
    expect(overlapError(() => planSegmentImport({ incoming: [idle(0, 120)], stored: [idle(0, 100)] })).conflicts[0]!.row).toBe(1);
    expect(overlapError(() => planSegmentImport({ incoming: [idle(0, 80)], stored: [idle(0, 100)] })).conflicts[0]!.row).toBe(1);
  });

  it('refuses two different closings of one stored open segment', () => {
    const error = overlapError(() => planSegmentImport({ incoming: [idle(0, 60), idle(0, 90)], stored: [idle(0, null)] }));
    expect(error.conflicts).toEqual([{ row: 2, otherRow: null, stored: { startedAt: 0, endedAt: null, state: 'idle' } }]);
  });

  it('refuses a segment after a stored open one that the batch does not close: the open one runs to now', () => {
    const error = overlapError(() => planSegmentImport({ incoming: [moving(500, 600)], stored: [idle(0, null)] }));
    expect(error.conflicts).toEqual([{ row: 1, otherRow: null, stored: { startedAt: 0, endedAt: null, state: 'idle' } }]);
  });

  it('refuses an open incoming segment followed by another row', () => {
    const error = overlapError(() => planSegmentImport({ incoming: [idle(0, null), moving(100, 200)], stored: [] }));
    expect(error.conflicts).toEqual([{ row: 2, otherRow: 1, stored: null }]);
  });

  it('refuses an open segment and its closed version both new in one batch', () => {
    expect(overlapError(() => planSegmentImport({ incoming: [idle(0, null), idle(0, 60)], stored: [] })).conflicts).toEqual([
      { row: 2, otherRow: 1, stored: null },
    ]);
  });

  it('lists every conflicting row in row order', () => {
    const error = overlapError(() =>
      planSegmentImport({ incoming: [idle(500, 700), idle(0, 100), moving(650, 800), moving(50, 60)], stored: [] }),
    );
    expect(error.conflicts.map((conflict) => conflict.row)).toEqual([3, 4]);
    expect(error.message).toBe('Import refused, nothing written: row 3 overlaps row 1; row 4 overlaps row 2');
  });

  it('ignores overlaps among stored segments alone', () => {
    expect(planSegmentImport({ incoming: [moving(500, 600)], stored: [idle(0, 100), idle(50, 150)] }).insert).toEqual([moving(500, 600)]);
  });

  it('refuses a malformed row with a RangeError naming it, before looking for overlaps', () => {
    expect(() => planSegmentImport({ incoming: [idle(0, 10), idle(20.5, 30)], stored: [] })).toThrow(
      'Row 2: started_at must be whole epoch seconds, got "20.5"',
    );
    expect(() => planSegmentImport({ incoming: [idle(0, 10.5)], stored: [] })).toThrow(
      'Row 1: ended_at must be whole epoch seconds, got "10.5"',
    );
    expect(() => planSegmentImport({ incoming: [idle(0, 10), idle(10, 10)], stored: [] })).toThrow(
      'Row 2: ended_at must be after started_at',
    );
    expect(() => planSegmentImport({ incoming: [idle(10, 5)], stored: [] })).toThrow(RangeError);
    expect(() => planSegmentImport({ incoming: [{ startedAt: 0, endedAt: 5, state: 'parked' as SegmentState }], stored: [] })).toThrow(
      'Row 1: state must be "moving" or "idle", got "parked"',
    );
    expect(() => planSegmentImport({ incoming: [idle(Number.NaN, 5)], stored: [] })).toThrow(RangeError);
    expect(() => planSegmentImport({ incoming: [idle(0, 100), idle(50, 60), idle(70, 60)], stored: [] })).toThrow('Row 3');
  });

  it('refuses instants in milliseconds with a RangeError naming the row and the unit', () => {
    const ms = 1_767_225_600_000;
    expect(() => planSegmentImport({ incoming: [idle(0, 10), idle(ms, ms + 60_000)], stored: [] })).toThrow(
      'Row 2: started_at must be epoch seconds between the years 0001 and 9999, got "1767225600000": it looks like milliseconds ("1767225600" in seconds)',
    );
    expect(() => planSegmentImport({ incoming: [idle(1_767_225_600, ms)], stored: [] })).toThrow(
      /^Row 1: ended_at .* looks like milliseconds/,
    );
    expect(() => planSegmentImport({ incoming: [], stored: [], reportedAt: ms })).toThrow(/^reportedAt .* looks like milliseconds/);
    expect(() => segmentSpan([idle(0, 10), idle(ms, null)])).toThrow(/^Row 2: started_at .* looks like milliseconds/);
  });

  describe('lastReportedAt (P6): raised, never lowered, in one place for every store', () => {
    it('is the latest instant of the batch by default: the latest end, or the start of an open segment', () => {
      expect(planSegmentImport({ incoming: [idle(100, 200), moving(0, 100)], stored: [] }).lastReportedAt).toBe(200);
      expect(planSegmentImport({ incoming: [idle(100, 200), moving(300, null)], stored: [] }).lastReportedAt).toBe(300);
    });

    it('counts skipped rows too: re-importing reports the batch again', () => {
      expect(planSegmentImport({ incoming: [idle(0, 100)], stored: [idle(0, 100)], lastReportedAt: 50 }).lastReportedAt).toBe(100);
    });

    it("raises the device's value, never lowers it", () => {
      expect(planSegmentImport({ incoming: [idle(0, 100)], stored: [], lastReportedAt: 50 }).lastReportedAt).toBe(100);
      expect(planSegmentImport({ incoming: [idle(0, 100)], stored: [], lastReportedAt: 500 }).lastReportedAt).toBe(500);
      expect(planSegmentImport({ incoming: [], stored: [], reportedAt: 40, lastReportedAt: 50 }).lastReportedAt).toBe(50);
    });

    it("an explicit reportedAt replaces the batch's latest instant, even an earlier one", () => {
      expect(planSegmentImport({ incoming: [idle(0, 100)], stored: [], reportedAt: 70 }).lastReportedAt).toBe(70);
      expect(planSegmentImport({ incoming: [], stored: [], reportedAt: 70 }).lastReportedAt).toBe(70);
    });

    it('an empty batch without reportedAt leaves the value as it was, null included', () => {
      expect(planSegmentImport({ incoming: [], stored: [] }).lastReportedAt).toBeNull();
      expect(planSegmentImport({ incoming: [], stored: [], lastReportedAt: 50 }).lastReportedAt).toBe(50);
    });

    it('equals max(current, report) on random batches', () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 50 })), { maxLength: 5 }),
          fc.option(fc.integer({ min: 0, max: 1100 }), { nil: undefined }),
          fc.option(fc.integer({ min: 0, max: 1100 })),
          (pieces, reportedAt, current) => {
            // Consecutive, non-overlapping segments so the plan never refuses.
            let cursor = 0;
            const incoming = pieces.map(([gap, length]) => idle((cursor += gap), (cursor += length)));
            const report = reportedAt ?? (incoming.length === 0 ? null : Math.max(...incoming.map((segment) => segment.endedAt!)));
            const expected = [current, report].filter((value): value is number => value !== null);
            const plan = planSegmentImport({ incoming, stored: [], reportedAt, lastReportedAt: current });
            expect(plan.lastReportedAt).toBe(expected.length === 0 ? null : Math.max(...expected));
          },
        ),
      );
    });
  });

  describe('against a brute-force check on random batches', () => {
    const HORIZON = 400; // open segments are checked up to here; every start and end is below it
    const segmentArbitrary = fc
      .tuple(fc.integer({ min: 0, max: 380 }), fc.integer({ min: 1, max: 15 }), fc.boolean(), fc.integer({ min: 0, max: 14 }))
      .map(
        ([startedAt, length, isMoving, openChance]): SegmentInput => ({
          startedAt,
          endedAt: openChance === 0 ? null : startedAt + length,
          state: isMoving ? 'moving' : 'idle',
        }),
      );
    // Stored segments never overlap: cut a random sequence into consecutive pieces.
    const storedArbitrary = fc
      .array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 1, max: 20 }), fc.boolean()), { maxLength: 8 })
      .chain((pieces) =>
        fc.boolean().map((lastOpen) => {
          let cursor = 0;
          return pieces.map(([gap, length, isMoving], index): SegmentInput => {
            const startedAt = cursor + gap;
            cursor = startedAt + length;
            return { startedAt, endedAt: lastOpen && index === pieces.length - 1 ? null : cursor, state: isMoving ? 'moving' : 'idle' };
          });
        }),
      );
    const batchArbitrary = storedArbitrary.chain((stored) =>
      fc.record({
        stored: fc.constant(stored),
        // Copies and closings of stored segments make skips and closes likely, not only overlaps.
        incoming: fc.array(
          fc.oneof(
            { arbitrary: segmentArbitrary, weight: 2 },
            ...(stored.length > 0
              ? [
                  { arbitrary: fc.constantFrom(...stored), weight: 3 },
                  {
                    arbitrary: fc
                      .tuple(fc.constantFrom(...stored), fc.integer({ min: 1, max: 40 }))
                      .map(([segment, length]): SegmentInput => ({ ...segment, endedAt: segment.startedAt + length })),
                    weight: 1,
                  },
                ]
              : []),
          ),
          { maxLength: 6 },
        ),
      }),
    );

    it('refuses exactly the batches whose result would cover some second twice, and names real overlaps', () => {
      fc.assert(
        fc.property(batchArbitrary, ({ stored, incoming }) => {
          // The D1 reading of each row, independent of the sweep inside planSegmentImport.
          const seen = new Set<string>();
          const closes = new Map<number, number>();
          const fresh: { segment: SegmentInput; row: number }[] = [];
          let skipped = 0;
          incoming.forEach((segment, index) => {
            const identity = JSON.stringify(segment);
            if (seen.has(identity)) return void (skipped += 1);
            seen.add(identity);
            const twin = stored.find((candidate) => candidate.startedAt === segment.startedAt && candidate.state === segment.state);
            if (twin && (twin.endedAt === segment.endedAt || segment.endedAt === null)) return void (skipped += 1);
            if (twin && twin.endedAt === null && !closes.has(segment.startedAt))
              return void closes.set(segment.startedAt, segment.endedAt!);
            fresh.push({ segment, row: index + 1 });
          });
          // Who covers each second once the batch is applied.
          const covers = (segment: SegmentInput, end: number | null, second: number) =>
            segment.startedAt <= second && second < (end ?? Infinity);
          const owners = (second: number) => [
            ...stored.filter((segment) => covers(segment, closes.get(segment.startedAt) ?? segment.endedAt, second)).map(() => null),
            ...fresh.filter(({ segment }) => covers(segment, segment.endedAt, second)).map(({ row }) => row),
          ];
          const clashing = new Set<number>();
          const pairs = new Set<string>();
          for (let second = 0; second <= HORIZON; second += 1) {
            const here = owners(second);
            if (here.length < 2) continue;
            for (const row of here) if (row !== null) clashing.add(row);
            for (const a of here) for (const b of here) if (a !== null) pairs.add(`${a}|${b}`);
          }

          let plan: ReturnType<typeof planSegmentImport> | undefined;
          let refusal: SegmentOverlapError | undefined;
          try {
            plan = planSegmentImport({ incoming, stored });
          } catch (error) {
            if (!(error instanceof SegmentOverlapError)) throw error;
            refusal = error;
          }
          expect(refusal !== undefined).toBe(clashing.size > 0);
          if (refusal) {
            expect(refusal.conflicts.length).toBeGreaterThan(0);
            // Every row that overlaps something is named, as the row at fault or as the row it overlaps.
            const named = new Set(refusal.conflicts.flatMap((conflict) => [conflict.row, conflict.otherRow]));
            for (const row of clashing) expect(named.has(row)).toBe(true);
            for (const conflict of refusal.conflicts) {
              expect(clashing.has(conflict.row)).toBe(true);
              if (conflict.otherRow !== null) expect(pairs.has(`${conflict.row}|${conflict.otherRow}`)).toBe(true);
              else expect(conflict.stored).not.toBeNull();
            }
          } else {
            expect(plan!.skipped).toBe(skipped);
            expect(new Map(plan!.close.map((close) => [close.startedAt, close.endedAt]))).toEqual(closes);
            expect(plan!.insert).toEqual(fresh.map(({ segment }) => segment).sort((a, b) => a.startedAt - b.startedAt));
          }
        }),
        { numRuns: 400 },
      );
    });
  });
});
