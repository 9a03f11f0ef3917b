import { localDateAt, type SegmentInput, type SegmentState } from '@fleet-hours/core';
import { mulberry32 } from '../simulate/mulberry32.js';

type PlainDate = ReturnType<typeof localDateAt>;

/** How a demo vehicle works: when its shifts are and what they look like. */
export type WorkPattern = 'day' | 'night' | 'split' | 'seasonal' | 'route';

/** A vehicle of the demo fleet. */
export interface DemoVehicle {
  readonly name: string;
  readonly imei: string;
  readonly registration: string | null;
  readonly model: string;
  readonly timeZone: string;
  readonly pattern: WorkPattern;
  /** What the machine's own hour meter showed when its tracker was fitted, in hours (D38); none: never read, so uncalibrated. */
  readonly hourMeterHours?: number;
  /** Its service schedules (D39). */
  readonly service?: readonly DemoSchedule[];
}

/**
 * A service schedule of a demo vehicle (D39) and where it stands when the demo starts: so many
 * engine hours left (negative: overdue by so many), or so many calendar days. The last service is
 * placed from the vehicle's own generated year (`seedDemoService`), so the demo shows the same
 * statuses whatever day it is run.
 */
export interface DemoSchedule {
  readonly name: string;
  readonly everyHours: number;
  readonly everyDays: number | null;
  readonly left: { readonly hours: number } | { readonly days: number };
}

/**
 * A row of a table of demo vehicles: name, IMEI, registration (`null`: none), tracker model, zone,
 * work pattern and, for a calibrated one, its hour meter when the tracker was fitted (hours).
 */
type VehicleRow = readonly [
  name: string,
  imei: string,
  registration: string | null,
  model: string,
  timeZone: string,
  pattern: WorkPattern,
  hourMeterHours?: number,
];

/**
 * A demo vehicle from its row and its service schedules: the one shape of every list of the demo
 * (the fleet with its history, the live vehicles, the starter account's vehicle).
 *
 * @param row The vehicle's row.
 * @param service Its schedules, if it has any.
 * @returns The vehicle.
 */
export function demoVehicle(row: VehicleRow, service?: readonly DemoSchedule[]): DemoVehicle {
  const [name, imei, registration, model, timeZone, pattern, hourMeterHours] = row;
  return {
    name,
    imei,
    registration,
    model,
    timeZone,
    pattern,
    ...(hourMeterHours === undefined ? {} : { hourMeterHours }),
    ...(service === undefined ? {} : { service }),
  };
}

/** A schedule of a demo vehicle: what is serviced, every so many engine hours or days, and where it stands. */
const schedule = (name: string, everyHours: number, everyDays: number | null, left: DemoSchedule['left']): DemoSchedule => ({
  name,
  everyHours,
  everyDays,
  left,
});

/**
 * The demo fleet: one vehicle in each of six zones whose local days are not all 24 hours long or
 * whose offsets are not whole hours — New York and Berlin (1-hour DST), Lord Howe Island (a
 * 30-minute DST shift), Kathmandu (+05:45), São Paulo (DST until 2019: its old days are 23 and 25
 * hours long) and the Chatham Islands (+12:45 / +13:45).
 */
export const DEMO_VEHICLES: readonly DemoVehicle[] = [
  demoVehicle(
    ['Truck 14', '356307042441013', 'NY 4821-KT', 'Teltonika FMB920', 'America/New_York', 'day', 11_872],
    [schedule('Engine oil and filter', 250, 180, { hours: 9.5 }), schedule('Air filter', 500, 365, { hours: 180 })],
  ),
  demoVehicle(
    ['Bakery van B-7', '356307042441021', 'B-FH 2207', 'Teltonika FMC130', 'Europe/Berlin', 'night', 6_215],
    [schedule('Engine oil', 250, 180, { hours: -14 }), schedule('Brake inspection', 600, 365, { hours: 210 })],
  ),
  demoVehicle(
    ['Island tug Kentia', '861585040812376', null, 'Queclink GV350', 'Australia/Lord_Howe', 'split', 23_530],
    [schedule('Engine oil', 250, 180, { hours: 120 }), schedule('Annual hull survey', 4000, 365, { days: 12 })],
  ),
  demoVehicle(
    ['Valley tractor 3', '356307042441039', 'BA 1 KHA 5521', 'Teltonika FMB140', 'Asia/Kathmandu', 'seasonal', 3_104],
    [schedule('Engine oil', 250, 365, { hours: 150 })],
  ),
  demoVehicle(
    ['City bus 22', '867060031245589', 'SPX-2B22', 'Ruptela FM-Eco4', 'America/Sao_Paulo', 'route', 41_960],
    [schedule('Engine oil', 500, 180, { hours: 260 }), schedule('Transmission fluid', 2000, 730, { hours: 900 })],
  ),
  demoVehicle(
    ['Harbour crane truck', '861585040812384', 'CHT 51', 'Queclink GV300', 'Pacific/Chatham', 'split'],
    [schedule('Hydraulic filters', 1000, 365, { hours: 600 })],
  ),
];

/** Options of {@link generateDemoSegments}. */
export interface DemoSegmentOptions {
  readonly vehicle: DemoVehicle;
  /** Varies the random stream between vehicles of the same pattern. */
  readonly seed: number;
  /** Epoch seconds: nothing is generated after it; a segment running at `now` is left open. */
  readonly now: number;
  /** How many local days back from today. Default 365. */
  readonly days?: number;
}

/**
 * A realistic, deterministic year of engine segments for a demo vehicle: shifts at local wall-clock
 * times of its zone (so they move with DST like real ones), each a run of idle and moving
 * stretches with engine-off stops. Each day's shifts come from a PRNG seeded with the vehicle seed
 * and the local date, so a given day looks the same on every run.
 *
 * @param options The vehicle, seed, *now* and number of days.
 * @returns Non-overlapping segments in time order; the one running at `now`, if any, is open.
 */
export function generateDemoSegments(options: DemoSegmentOptions): SegmentInput[] {
  const { vehicle, now } = options;
  const days = options.days ?? 365;
  const today = localDateAt(now, vehicle.timeZone);
  const segments: SegmentInput[] = [];
  for (let offset = days; offset >= 0; offset -= 1) {
    const date = today.subtract({ days: offset });
    const random = mulberry32(hashText(`${options.seed}|${date.toString()}`));
    const clockChange = date.toZonedDateTime({ timeZone: vehicle.timeZone }).hoursInDay !== 24;
    for (const shift of shiftsOf(vehicle.pattern, date, clockChange, random)) {
      const start = wallClock(date, shift.startMinutes, vehicle.timeZone) + Math.floor(random() * 60);
      fillShift(segments, start, start + shift.minutes * 60, vehicle.pattern, random);
    }
  }
  const result: SegmentInput[] = [];
  for (const segment of segments) {
    if (segment.startedAt >= now) break;
    result.push(segment.endedAt !== null && segment.endedAt > now ? { ...segment, endedAt: null } : segment);
  }
  return result;
}

interface Shift {
  /** Local wall-clock start, minutes after midnight. */
  readonly startMinutes: number;
  readonly minutes: number;
}

/**
 * The shifts of one local day. `clockChange` marks a day of 23 or 25 hours: day vehicles then run a
 * night haul across the change (which falls on a Sunday, their day off, in the US and the EU), so
 * the days the demo shows off carry engine time on both sides of the skipped or repeated hour.
 */
function shiftsOf(pattern: WorkPattern, date: PlainDate, clockChange: boolean, random: () => number): Shift[] {
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const weekday = date.dayOfWeek; // 1 = Monday … 7 = Sunday
  switch (pattern) {
    case 'day':
      // From before midnight's first hour to after 05:00: across 02:00, the hour that is skipped or repeated.
      if (clockChange) return [{ startMinutes: between(0, 45), minutes: between(300, 360) }];
      if (weekday <= 5) return [{ startMinutes: between(390, 480), minutes: between(480, 570) }];
      if (weekday === 6 && random() < 0.4) return [{ startMinutes: between(420, 540), minutes: between(210, 300) }];
      return [];
    case 'night':
      // Bakery rounds: start late in the evening and run past midnight into the next local day.
      return weekday === 6 ? [] : [{ startMinutes: between(1260, 1350), minutes: between(390, 480) }];
    case 'split':
      if (random() < 0.1) return [];
      return [
        { startMinutes: between(360, 405), minutes: between(180, 240) },
        { startMinutes: between(780, 840), minutes: between(150, 240) },
      ];
    case 'seasonal': {
      if (weekday === 7) return [];
      const busySeason = [6, 7, 10, 11].includes(date.month);
      if (busySeason) return [{ startMinutes: between(330, 420), minutes: between(540, 660) }];
      return random() < 0.3 ? [{ startMinutes: between(420, 540), minutes: between(150, 300) }] : [];
    }
    case 'route':
      return random() < 1 / 7 ? [] : [{ startMinutes: between(300, 330), minutes: between(660, 780) }];
  }
}

/** Moving and idle stretches from `start` to `end`, with engine-off stops; the engine warms up idling. */
function fillShift(segments: SegmentInput[], start: number, end: number, pattern: WorkPattern, random: () => number): void {
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const moving: [number, number] = pattern === 'route' ? [300, 1200] : pattern === 'seasonal' ? [900, 3600] : [240, 2400];
  const idle: [number, number] = pattern === 'route' ? [45, 240] : pattern === 'seasonal' ? [120, 900] : [60, 720];
  let at = start;
  let state: SegmentState = 'idle';
  let length = between(120, 360);
  while (at < end) {
    const until = Math.min(end, at + length);
    segments.push({ startedAt: at, endedAt: until, state });
    at = until;
    if (state === 'moving' && random() < 0.18) {
      at += between(300, 2400); // engine off at a stop
      state = 'idle';
      length = between(60, 240);
      continue;
    }
    state = state === 'moving' ? 'idle' : 'moving';
    length = state === 'moving' ? between(...moving) : between(...idle);
  }
}

function wallClock(date: PlainDate, minutes: number, timeZone: string): number {
  const plainTime = { hour: Math.floor(minutes / 60) % 24, minute: minutes % 60 };
  const day = minutes >= 1440 ? date.add({ days: 1 }) : date;
  return day.toZonedDateTime({ timeZone, plainTime }).epochMilliseconds / 1000;
}

function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
