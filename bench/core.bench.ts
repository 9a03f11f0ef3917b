/**
 * The core's hot path on one device-year: 100,000 segments in America/New_York.
 *
 *   (a) daily bucketing of a 365-day window: parseWindowQuery + resolveWindow + dayBuckets +
 *       sumSegmentsByBucket
 *   (b) the window total: parseWindowQuery + resolveWindow + sumSegmentsByBucket with 2 boundaries
 *   (c) a plain loop that only sums the same segments' durations (the floor nothing can beat)
 *
 * Prints medians (and the fastest run) in ms and the ratios of medians (a)/(c), (b)/(c), plus
 * dayBuckets alone (with and without resolving the window) and how many Temporal calls one daily
 * run makes: a constant, neither per segment nor per day, once the zone's offsets for the years of
 * the window are cached (the first request in a zone reads them, which is counted too).
 * Figures only: nothing is asserted about time. Run with `npm run bench -- core` (imports the
 * built dist of @fleet-hours/core).
 */
import { performance } from 'node:perf_hooks';
import { Temporal } from 'temporal-polyfill';
import { dayBuckets, parseWindowQuery, resolveWindow, type EngineSegment } from '@fleet-hours/core';
import { sumSegmentsByBucket } from '@fleet-hours/core/adapter';
import { mulberry32 as random } from '@fleet-hours/server';

const TIME_ZONE = 'America/New_York';
const SEGMENT_COUNT = 100_000;
const FROM = '2025-03-01';
const TO = '2026-02-28'; // 365 local days, DST changes on 2025-03-09 and 2025-11-02 included
// Warm-up runs until the optimizing compiler has surely finished (it compiles on a background
// thread, which is slow to get a turn on a busy machine): at least this many runs and this long.
const WARM_UP = 50;
const WARM_UP_MS = 1500;
const RUNS = 201;

const now = Date.UTC(2026, 2, 15) / 1000; // after the window: every segment is in the past
const window = resolveWindow({ ...parseWindowQuery({ from: FROM, to: TO }), now, timeZone: TIME_ZONE });

// One segment per equal slot of the window, at a random offset and length inside it: never
// overlapping, mixed states, every one inside the window.
const next = random(20_260_308);
const slot = Math.floor((window.end - window.start) / SEGMENT_COUNT);
const segments: EngineSegment[] = [];
for (let index = 0; index < SEGMENT_COUNT; index += 1) {
  const slotStart = window.start + index * slot;
  const offset = Math.floor(next() * (slot / 3));
  const length = 1 + Math.floor(next() * (slot - offset - 1));
  segments.push({
    deviceId: 1,
    startedAt: slotStart + offset,
    endedAt: slotStart + offset + length,
    state: next() < 0.6 ? 'moving' : 'idle',
  });
}

function daily(): number {
  const resolved = resolveWindow({ ...parseWindowQuery({ from: FROM, to: TO }), now, timeZone: TIME_ZONE });
  const { boundaries } = dayBuckets(resolved);
  const buckets = sumSegmentsByBucket(segments, boundaries, now);
  let total = 0;
  for (const bucket of buckets) total += bucket.movingSeconds + bucket.idleSeconds;
  return total;
}

function windowTotal(): number {
  const resolved = resolveWindow({ ...parseWindowQuery({ from: FROM, to: TO }), now, timeZone: TIME_ZONE });
  const [bucket] = sumSegmentsByBucket(segments, [resolved.start, resolved.end], now);
  return bucket!.movingSeconds + bucket!.idleSeconds;
}

// An indexed loop: V8 compiles `for…of` over 100,000 objects into code whose speed varies about
// fivefold from one process to the next, which would make the ratios noise.
function plainLoop(): number {
  let total = 0;
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index]!;
    total += (segment.endedAt ?? now) - segment.startedAt;
  }
  return total;
}

function bucketsResolved(): number {
  return dayBuckets(resolveWindow({ ...parseWindowQuery({ from: FROM, to: TO }), now, timeZone: TIME_ZONE })).boundaries.length;
}

function bucketsOnly(): number {
  return dayBuckets(window).boundaries.length;
}

/** Median and fastest of `RUNS` timed calls after the warm-up, in ms. */
function timeMs(run: () => number): { median: number; min: number } {
  let sink = 0;
  const warmUpStarted = performance.now();
  for (let index = 0; index < WARM_UP || performance.now() - warmUpStarted < WARM_UP_MS; index += 1) sink += run();
  const samples: number[] = [];
  for (let index = 0; index < RUNS; index += 1) {
    const started = performance.now();
    sink += run();
    samples.push(performance.now() - started);
  }
  if (sink === -1) console.log(sink); // keeps the results alive
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)]!, min: samples[0]! };
}

/** Counts the Temporal conversions one call of `run` makes, by wrapping the methods the core uses. */
function countTemporalCalls(run: () => unknown): number {
  const targets: [object, string][] = [
    [Temporal.PlainDate.prototype, 'toZonedDateTime'],
    [Temporal.PlainDate.prototype, 'add'],
    [Temporal.PlainDate.prototype, 'subtract'],
    [Temporal.PlainDate.prototype, 'since'],
    [Temporal.PlainDate.prototype, 'toString'],
    [Temporal.PlainDate, 'from'],
    [Temporal.Instant, 'fromEpochMilliseconds'],
    [Temporal.Instant.prototype, 'toZonedDateTimeISO'],
    [Temporal.ZonedDateTime.prototype, 'getTimeZoneTransition'],
  ];
  let calls = 0;
  const originals = targets.map(([target, name]) => {
    const original = (target as Record<string, (...args: unknown[]) => unknown>)[name]!;
    (target as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
      calls += 1;
      return original.apply(this, args);
    };
    return original;
  });
  try {
    run();
  } finally {
    targets.forEach(([target, name], index) => ((target as Record<string, unknown>)[name] = originals[index]));
  }
  return calls;
}

// The three ways of counting must agree before their speed means anything.
const expected = plainLoop();
if (daily() !== expected || windowTotal() !== expected) {
  throw new Error(`Results differ: daily ${daily()}, window ${windowTotal()}, plain ${expected}`);
}

const dayCount = dayBuckets(window).dates.length;
const dailyMs = timeMs(daily);
const totalMs = timeMs(windowTotal);
const plainMs = timeMs(plainLoop);
const resolvedMs = timeMs(bucketsResolved);
const bucketsMs = timeMs(bucketsOnly);
const temporalCalls = countTemporalCalls(daily);
const temporalCallsBuckets = countTemporalCalls(bucketsOnly);
// A zone this process has not used yet: its offsets for the window's years are read on this call.
const temporalCallsNewZone = countTemporalCalls(() =>
  dayBuckets(resolveWindow({ ...parseWindowQuery({ from: FROM, to: TO }), now, timeZone: 'Europe/Berlin' })),
);
const temporalCallsTenth = (() => {
  const all = segments.splice(0, segments.length);
  segments.push(...all.slice(0, SEGMENT_COUNT / 10));
  const calls = countTemporalCalls(daily);
  segments.splice(0, segments.length, ...all);
  return calls;
})();

const ms = ({ median, min }: { median: number; min: number }) => `${median.toFixed(3)} ms median (${min.toFixed(3)} ms fastest)`;
console.log(
  `core: ${SEGMENT_COUNT.toLocaleString('en-US')} segments, ${TIME_ZONE}, window ${FROM}..${TO} (${dayCount} local days), ${Math.round(expected / 3600)} engine hours`,
);
console.log(`  ${RUNS} timed runs each, after at least ${WARM_UP} warm-up runs and ${WARM_UP_MS} ms (node ${process.version})`);
console.log(`  (a) daily bucketing, 365-day window (parse + resolveWindow + dayBuckets + sumSegmentsByBucket): ${ms(dailyMs)}`);
console.log(`  (b) window total (parse + resolveWindow + sumSegmentsByBucket, 2 boundaries):                  ${ms(totalMs)}`);
console.log(`  (c) plain loop summing the same segments' durations:                                            ${ms(plainMs)}`);
console.log(`  ratio (a)/(c): ${(dailyMs.median / plainMs.median).toFixed(2)} (medians)`);
console.log(`  ratio (b)/(c): ${(totalMs.median / plainMs.median).toFixed(2)} (medians)`);
console.log(`  parse + resolveWindow + dayBuckets, ${dayCount} days: ${ms(resolvedMs)}`);
console.log(
  `  dayBuckets alone on the resolved window, ${dayCount} days: ${ms(bucketsMs)} = ${((bucketsMs.median / dayCount) * 1000).toFixed(3)} µs per day`,
);
console.log(
  `  Temporal calls in one (a) run: ${temporalCalls} with ${SEGMENT_COUNT.toLocaleString('en-US')} segments, ${temporalCallsTenth} with ${(SEGMENT_COUNT / 10).toLocaleString('en-US')} (${(temporalCalls / dayCount).toFixed(2)} per day); ${temporalCallsBuckets} in dayBuckets alone`,
);
console.log(`  Temporal calls in the first (a) run in a zone not used before (Europe/Berlin, offsets read): ${temporalCallsNewZone}`);
