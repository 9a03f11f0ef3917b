/**
 * D27 in the storage contract: whatever a store keeps to make reads cheap (per-day figures,
 * lifetime totals), what it answers is exactly the raw computation, second for second. Random
 * devices in zones with every kind of DST rule are written in several batches (open segments
 * closed by a later import, segments across local midnight, segments stamped after now), may have
 * their zone changed, and are then read:
 *
 * - through `createFleetHours` (`/hours`, `/hours/daily`, `/meter`: the store's fast path when it
 *   has one, the core's fallback when not), against the raw path (`listSegments` with the core's
 *   `sumSegmentsByBucket` / `summarizeSegments`, P1 applied by capping at now) and against the
 *   Intl oracle (`oracleWindow`, `oracleDailySeconds`), which shares no code with the core;
 * - through `sumSegmentSeconds` / `summarizeDeviceSegments` directly, with arbitrary boundaries
 *   and `now`, against the raw path.
 */
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { expect, it } from 'vitest';
import { createFleetHours } from '../application/create-fleet-hours.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import { summarizeSegments } from '../engine/summarize-segments.js';
import type { SegmentInput } from '../types.js';
import { intlStartOfDay, oracleDailySeconds, oracleWindow } from './oracle.js';

const HOUR = 3600;
const DAY = 86_400;

/** Zones and a day in each where the local day is not 24 hours or does not start at 00:00. */
const DST_DAYS = [
  { timeZone: 'America/Sao_Paulo', instant: 1_541_300_400 }, // 2018-11-04 starts at 01:00 (midnight skipped)
  { timeZone: 'Asia/Beirut', instant: 1_711_839_600 }, // 2024-03-31 starts at 01:00 (midnight skipped)
  { timeZone: 'America/New_York', instant: 1_772_946_000 }, // 2026-03-08, 23 hours
  { timeZone: 'America/New_York', instant: 1_793_509_200 }, // 2026-11-01, 25 hours
  { timeZone: 'Australia/Lord_Howe', instant: 1_775_307_600 }, // 2026-04-05, a 30-minute shift
  { timeZone: 'Pacific/Apia', instant: 1_325_239_200 }, // 2011-12-30 does not exist (P2)
  { timeZone: 'Europe/London', instant: 1_774_746_000 }, // 2026-03-29, 23 hours
  { timeZone: 'Asia/Kathmandu', instant: 1_781_000_000 }, // +05:45, no DST
] as const;
const ZONES = [...new Set(DST_DAYS.map((day) => day.timeZone))];

/** What the D27 block needs from the contract suite around it. */
export interface DailyFiguresContractContext {
  /** The store of the running test (made fresh before each). */
  readonly store: () => FleetHoursStore;
  /** Whether the store offers the aggregation capabilities (their direct checks are skipped otherwise). */
  readonly offers: (capability: 'sumSegmentSeconds' | 'summarizeDeviceSegments') => boolean;
}

/** One random device history and the reads asked of it. */
const scenarioArbitrary = fc
  .record({
    day: fc.constantFrom(...DST_DAYS),
    lead: fc.integer({ min: 0, max: 3 * DAY }),
    pieces: fc.array(
      fc.record({
        gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10 * HOUR })),
        length: fc.oneof(fc.integer({ min: 1, max: 3 * HOUR }), fc.integer({ min: 1, max: 30 * HOUR })),
        moving: fc.boolean(),
      }),
      { minLength: 1, maxLength: 12 },
    ),
    lastOpen: fc.boolean(),
    closeLater: fc.boolean(),
    batches: fc.integer({ min: 1, max: 3 }),
    newZone: fc.option(fc.constantFrom(...ZONES), { nil: undefined }),
    nowFraction: fc.double({ min: 0.3, max: 1.3, noNaN: true }),
    fromDays: fc.integer({ min: -2, max: 4 }),
    spanDays: fc.integer({ min: 0, max: 6 }),
    toGiven: fc.boolean(),
    writeAfterZoneChange: fc.boolean(),
  })
  .map((input) => {
    let cursor = input.day.instant - input.lead;
    const segments = input.pieces.map(({ gap, length, moving }): SegmentInput => {
      const startedAt = cursor + gap;
      cursor = startedAt + length;
      return { startedAt, endedAt: cursor, state: moving ? 'moving' : 'idle' };
    });
    const first = segments[0]!.startedAt;
    const last = segments[segments.length - 1]!;
    // Now somewhere in the history or after it: closed segments may be stamped after now (P1).
    const now = first + Math.max(1, Math.floor((cursor - first) * input.nowFraction));
    return { ...input, segments, first, last, now };
  });

/** Registers the D27 tests inside `describeStorageContract`. */
export function describeDailyFiguresContract(context: DailyFiguresContractContext): void {
  describeFiguresAgree(context);
  describeFiguresEdges(context);
}

/** D27 on random histories: the figures agree with the raw path and the oracle. */
function describeFiguresAgree(context: DailyFiguresContractContext): void {
  it('D27: /hours, /hours/daily and /meter equal the raw path and the oracle, after imports in batches, closes and zone changes', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async (scenario) => {
        const store = context.store();
        round += 1;
        const account = await store.createAccount({ name: `D27 ${round}`, plan: 'business', now: scenario.first });
        const device = (await store.createDevice({
          accountId: account.id,
          name: `D27 ${round}`,
          imei: `d27-${round}-${scenario.first}`,
          model: 'm',
          timeZone: scenario.day.timeZone,
        }))!;
        // Batches in time order; the last segment open first when it is to be closed by a later import.
        const segments = scenario.segments;
        const openFirst = scenario.lastOpen || scenario.closeLater;
        const written = segments.map((segment, index) =>
          openFirst && index === segments.length - 1 ? { ...segment, endedAt: null } : segment,
        );
        const size = Math.ceil(written.length / scenario.batches);
        for (let offset = 0; offset < written.length; offset += size) {
          await store.importSegments({ deviceId: device.id, segments: written.slice(offset, offset + size) });
        }
        if (scenario.closeLater && !scenario.lastOpen) {
          expect(await store.importSegments({ deviceId: device.id, segments: [scenario.last] })).toMatchObject({ closed: 1 });
        }
        const timeZone = scenario.newZone ?? scenario.day.timeZone;
        if (scenario.newZone !== undefined) await store.updateDevice({ deviceId: device.id, changes: { timeZone } });
        if (scenario.writeAfterZoneChange && !scenario.lastOpen) {
          // A write after the zone change: its days are cut in the new zone.
          const after = scenario.last.endedAt! + 60;
          await store.importSegments({ deviceId: device.id, segments: [{ startedAt: after, endedAt: after + 5 * HOUR, state: 'moving' }] });
        }

        const stored = await store.listSegments({ deviceId: device.id });
        const { now } = scenario;
        const fleetHours = createFleetHours({ store, now: () => now * 1000 + 999 });
        const nowDate = Temporal.Instant.fromEpochMilliseconds(now * 1000)
          .toZonedDateTimeISO(timeZone)
          .toPlainDate();
        const from = nowDate.subtract({ days: scenario.fromDays + scenario.spanDays });
        const to = scenario.toGiven ? nowDate.subtract({ days: scenario.fromDays }) : undefined;
        const query = { accountId: account.id, deviceId: device.id, from, ...(to ? { to } : {}) };
        const window = oracleWindow({ from: from.toString(), to: to?.toString(), now, timeZone });
        if (window.refused) return;

        const daily = (await fleetHours.daily(query))!;
        const hours = (await fleetHours.hours(query))!;
        const meter = (await fleetHours.meter({ accountId: account.id, deviceId: device.id }))!;

        // The raw path: every segment over the oracle's day boundaries, capped at now (P1: nothing after now counts).
        const boundaries = [
          window.start,
          ...window.dates.slice(1).map((date) => Math.min(intlStartOfDay(date, timeZone), window.end)),
          window.end,
        ].map((boundary) => Math.min(boundary, now));
        const raw = sumSegmentsByBucket(stored, boundaries, now);
        expect(daily.days.map((day) => ({ movingSeconds: day.movingSeconds, idleSeconds: day.idleSeconds }))).toEqual(raw);
        const rawTotal = sumSegmentsByBucket(stored, [boundaries[0]!, boundaries[boundaries.length - 1]!], now)[0]!;
        expect({ movingSeconds: hours.movingSeconds, idleSeconds: hours.idleSeconds }).toEqual(rawTotal);
        const rawMeter = summarizeSegments(stored, now);
        expect({ movingSeconds: meter.movingSeconds, idleSeconds: meter.idleSeconds }).toEqual({
          movingSeconds: rawMeter.movingSeconds,
          idleSeconds: rawMeter.idleSeconds,
        });

        // The oracle: minute by minute in Intl's calendar, segments cut at now.
        const cut = stored.map((segment) => ({ ...segment, endedAt: Math.min(segment.endedAt ?? now, now) }));
        const oracle = oracleDailySeconds(
          cut,
          { dates: window.dates, start: window.start, end: Math.max(window.start, Math.min(window.end, now)) },
          now,
          timeZone,
        );
        expect(daily.days.map((day) => ({ date: day.date, movingSeconds: day.movingSeconds, idleSeconds: day.idleSeconds }))).toEqual(
          window.dates.map((date) => ({ date, ...oracle.get(date)! })),
        );
      }),
      { numRuns: 40 },
    );
  });
}

/** D27 through the aggregation capabilities: any boundaries and now, and the day that holds now. */
function describeFiguresEdges(context: DailyFiguresContractContext): void {
  const offered = context.offers('sumSegmentSeconds') && context.offers('summarizeDeviceSegments');
  const title =
    'D27: sumSegmentSeconds() and summarizeDeviceSegments() equal the raw path for any boundaries and now, before and after a zone change';
  it.skipIf(!offered)(
    offered ? title : `${title} (skipped: the store offers no aggregation; the core's fallback is the raw path itself)`,
    async () => {
      let round = 0;
      await fc.assert(
        fc.asyncProperty(
          scenarioArbitrary,
          fc.array(fc.integer({ min: -2 * DAY, max: 6 * DAY }), { minLength: 2, maxLength: 12 }),
          fc.integer({ min: -DAY, max: 5 * DAY }),
          async (scenario, offsets, nowOffset) => {
            const store = context.store();
            round += 1;
            const account = await store.createAccount({ name: `D27 direct ${round}`, plan: 'business', now: scenario.first });
            const device = (await store.createDevice({
              accountId: account.id,
              name: 'd',
              imei: `d27-direct-${round}-${scenario.first}`,
              model: 'm',
              timeZone: scenario.day.timeZone,
            }))!;
            const written = scenario.segments.map((segment, index) =>
              scenario.lastOpen && index === scenario.segments.length - 1 ? { ...segment, endedAt: null } : segment,
            );
            await store.importSegments({ deviceId: device.id, segments: written });
            const boundaries = offsets.map((offset) => scenario.first + offset).sort((a, b) => a - b);
            // Day boundaries of the device's zone too, so that whole stored days are asked for.
            const dayStarts = Array.from({ length: 7 }, (_, index) =>
              startOfDayNear(scenario.first + (index - 1) * DAY, scenario.day.timeZone),
            );
            const now = scenario.first + nowOffset;
            for (const zoneChange of [undefined, scenario.newZone]) {
              if (zoneChange !== undefined) await store.updateDevice({ deviceId: device.id, changes: { timeZone: zoneChange } });
              const stored = await store.listSegments({ deviceId: device.id });
              for (const asked of [boundaries, [...new Set(dayStarts)].sort((a, b) => a - b)]) {
                expect(await store.sumSegmentSeconds!({ deviceId: device.id, boundaries: asked, now })).toEqual(
                  sumSegmentsByBucket(stored, asked, now),
                );
              }
              expect(await store.summarizeDeviceSegments!({ deviceId: device.id, now })).toEqual(summarizeSegments(stored, now));
            }
          },
        ),
        { numRuns: 40 },
      );
    },
  );

  const namedTitle =
    'D27: the day that holds now is its row less what comes after now (a live tail, a segment ahead), and only when the window ends at now';
  it.skipIf(!offered)(offered ? namedTitle : `${namedTitle} (skipped: the store offers no aggregation)`, async () => {
    const store = context.store();
    const account = await store.createAccount({ name: 'D27 named', plan: 'business', now: 0 });
    const device = (await store.createDevice({ accountId: account.id, name: 'd', imei: 'd27-named', model: 'm', timeZone: 'UTC' }))!;
    const day = 1_767_225_600; // 2026-01-01T00:00:00Z
    const HOUR = 3_600;
    // Yesterday's and today's rows; today: a trip, a tail running past now (+12 h), a segment stamped ahead.
    await store.importSegments({
      deviceId: device.id,
      segments: [
        { startedAt: day - 5 * HOUR, endedAt: day - 2 * HOUR, state: 'idle' },
        { startedAt: day + 1 * HOUR, endedAt: day + 10 * HOUR, state: 'moving' },
        { startedAt: day + 11 * HOUR, endedAt: day + 13 * HOUR, state: 'idle' },
        { startedAt: day + 14 * HOUR, endedAt: day + 15 * HOUR, state: 'moving' },
      ],
    });
    const stored = await store.listSegments({ deviceId: device.id });
    const now = day + 12 * HOUR;
    for (const boundaries of [
      [day - DAY, day, now], // /hours/daily up to now
      [day - DAY, now], // /hours up to now: today's row lies in the last bucket
      [day - DAY, day + 6 * HOUR], // ends before now inside today's row: counted to its end
      [day + 2 * HOUR, now], // starts inside today's row
    ]) {
      expect(await store.sumSegmentSeconds!({ deviceId: device.id, boundaries, now }), JSON.stringify(boundaries)).toEqual(
        sumSegmentsByBucket(stored, boundaries, now),
      );
    }
    expect(sumSegmentsByBucket(stored, [day - DAY, day + 6 * HOUR], now)).toEqual([{ movingSeconds: 5 * HOUR, idleSeconds: 3 * HOUR }]);
    expect(sumSegmentsByBucket(stored, [day - DAY, now], now)).toEqual([{ movingSeconds: 9 * HOUR, idleSeconds: 4 * HOUR }]);
  });
}

/** The start of the local day at an instant, from Temporal (a different path from the core's cached offsets). */
function startOfDayNear(instant: number, timeZone: string): number {
  return (
    Temporal.Instant.fromEpochMilliseconds(instant * 1000)
      .toZonedDateTimeISO(timeZone)
      .startOfDay().epochMilliseconds / 1000
  );
}
