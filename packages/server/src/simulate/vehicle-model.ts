import { localDateAt } from '@fleet-hours/core';
import { mulberry32 } from './mulberry32.js';

type PlainDate = ReturnType<typeof localDateAt>;

/**
 * One report of a simulated tracker: what a real box sends (time, ignition, speed, position, a few
 * counters), before it is put into one of the ingestion protocols.
 */
export interface VehicleReport {
  /** The vehicle's index in the simulation, from 0. */
  readonly vehicle: number;
  /** The report's (device) time, whole epoch seconds. */
  readonly time: number;
  readonly ignition: boolean;
  /** Speed in km/h, ≥ 0, one decimal; never within 0.5 km/h of the default moving threshold (5 km/h, D2). */
  readonly speedKmh: number;
  readonly latitude: number;
  readonly longitude: number;
  /** Heading in degrees, 0 to 359. */
  readonly course: number;
  /** Metres above sea level. */
  readonly altitude: number;
  /** Whether the report has a GPS fix; without one, position and `fixTime` are those of the last fix. */
  readonly valid: boolean;
  /** Epoch seconds of the GPS fix the position comes from (`time`, or earlier without a fix). */
  readonly fixTime: number;
  readonly satellites: number;
  /** Engine-on seconds the tracker has counted since the simulation began. */
  readonly engineSeconds: number;
  /** Distance driven since the simulation began, metres. */
  readonly odometerMeters: number;
  /** Supply voltage: higher while the engine (alternator) runs. */
  readonly powerVolts: number;
}

/** Options of {@link simulateVehicle}. */
export interface VehicleModelOptions {
  /** The run's seed: the same seed and vehicle give the same reports. */
  readonly seed: number;
  /** The vehicle's index, from 0; varies the stream between vehicles of one run. */
  readonly vehicle: number;
  /** Epoch seconds of the first report. */
  readonly from: number;
  /** Epoch seconds: no report at or after it. Default: endless. */
  readonly until?: number;
  /** Seconds between reports while the engine runs, a whole number ≥ 1. */
  readonly intervalSeconds: number;
  /** Seconds between heartbeats while parked, a whole number ≥ 1. Default 10 × `intervalSeconds`, at most 1800. */
  readonly parkedIntervalSeconds?: number;
  /** IANA zone whose wall clock the shifts follow. Default `UTC`. */
  readonly timeZone?: string;
  /**
   * `'now'`: the first shift starts at `from` (engine on at once, for a live run that shows
   * activity whatever the hour); `'schedule'` (the default): the engine starts with the first
   * scheduled shift, so nights and Sundays are parked.
   */
  readonly shiftStart?: 'now' | 'schedule';
  /** Chance, per report while the engine runs, that the tracker falls silent for 1 to 15 minutes. Default 0.01. */
  readonly gapProbability?: number;
}

/** The default moving threshold (D2) and the band around it that generated speeds keep clear of. */
const _MOVING_KMH = 5;
const _THRESHOLD_BAND = 0.5;
const _DEPOTS: readonly (readonly [number, number])[] = [
  [40.7128, -74.006],
  [52.52, 13.405],
  [-23.5505, -46.6333],
  [27.7172, 85.324],
  [-31.5554, 159.0821],
  [51.5074, -0.1278],
];

/**
 * The reports of one simulated vehicle, in time order: a pure, seeded model of a working day.
 * Shifts follow the local wall clock of `timeZone` (weekdays, a short Saturday now and then,
 * Sundays off); in a shift the engine warms up idling, then drives legs at varying speed with
 * idle stops (lights, loading) and engine-off stops (deliveries, lunch), and goes off when the
 * shift is over. The tracker reports every `intervalSeconds` while the engine runs, every
 * `parkedIntervalSeconds` while parked, and at once when the ignition changes; now and then it
 * falls silent for minutes (no coverage), and those reports are lost. Two reports never share a
 * second (D21 would merge them).
 *
 * @param options Seed, vehicle, time span, report intervals, zone and shift start.
 * @returns A generator of reports; endless without `until`.
 * @throws {RangeError} For an interval that is not a whole number ≥ 1 or a non-integer `from`.
 */
export function* simulateVehicle(options: VehicleModelOptions): Generator<VehicleReport, void, undefined> {
  const interval = options.intervalSeconds;
  const parkedInterval = options.parkedIntervalSeconds ?? Math.min(1800, interval * 10);
  if (!Number.isSafeInteger(interval) || interval < 1)
    throw new RangeError(`Option intervalSeconds must be a whole number ≥ 1, got ${interval}`);
  if (!Number.isSafeInteger(parkedInterval) || parkedInterval < 1) {
    throw new RangeError(`Option parkedIntervalSeconds must be a whole number ≥ 1, got ${parkedInterval}`);
  }
  if (!Number.isSafeInteger(options.from)) throw new RangeError(`Option from must be whole epoch seconds, got ${options.from}`);
  const until = options.until ?? Infinity;
  const timeZone = options.timeZone ?? 'UTC';
  const gapProbability = options.gapProbability ?? 0.01;
  const random = mulberry32(_mix(options.seed, options.vehicle, 0));
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  // The vehicle's habits: when its shifts usually start.
  const habitualStart = between(330, 510);
  const schedule = (after: number) => _nextShift(after, { seed: options.seed, vehicle: options.vehicle, timeZone, habitualStart });

  const [depotLatitude, depotLongitude] = _DEPOTS[options.vehicle % _DEPOTS.length]!;
  let latitude = depotLatitude + (random() - 0.5) * 0.05;
  let longitude = depotLongitude + (random() - 0.5) * 0.05;
  let course = between(0, 359);
  let altitude = between(10, 300);
  let fixTime = options.from;
  let engineSeconds = 0;
  let odometerMeters = 0;
  let silentUntil = -Infinity;

  const report = (time: number, ignition: boolean, speedKmh: number): VehicleReport | null => {
    const valid = random() >= 0.03;
    if (valid) fixTime = time;
    const satellites = valid ? between(6, 14) : between(0, 3);
    const powerVolts = Math.round((ignition ? 13.8 + random() * 0.6 : 12.2 + random() * 0.5) * 100) / 100;
    if (time < silentUntil) return null;
    return {
      vehicle: options.vehicle,
      time,
      ignition,
      speedKmh,
      latitude,
      longitude,
      course,
      altitude,
      valid,
      fixTime,
      satellites,
      engineSeconds,
      odometerMeters,
      powerVolts,
    };
  };
  const drive = (seconds: number, speedKmh: number) => {
    const kilometres = (speedKmh * seconds) / 3600;
    course = (course + between(-25, 25) + 360) % 360;
    const radians = (course * Math.PI) / 180;
    latitude = Math.max(-85, Math.min(85, latitude + (kilometres * Math.cos(radians)) / 111.32));
    longitude = ((longitude + (kilometres * Math.sin(radians)) / (111.32 * Math.cos((latitude * Math.PI) / 180)) + 540) % 360) - 180;
    altitude = Math.max(0, altitude + between(-3, 3));
    odometerMeters += Math.round(kilometres * 1000);
  };

  let shift =
    options.shiftStart === 'now'
      ? { start: options.from, end: options.from + between(6, 9) * 3600 + between(0, 3599) }
      : schedule(options.from);
  let nextStart = shift.start;
  let time = options.from;
  for (;;) {
    // Parked: heartbeats until the engine starts.
    while (time < nextStart) {
      if (time >= until) return;
      const parked = report(time, false, 0);
      if (parked) yield parked;
      time += parkedInterval;
    }
    time = nextStart;
    if (time >= until) return;

    // A run of the engine: warm-up idle, then legs of driving and idle stops.
    let driving = false;
    let speed = 0;
    let target = 0;
    let phaseEnd = time + between(60, 300);
    const started = report(time, true, 0);
    if (started) yield started;
    for (;;) {
      time += interval;
      engineSeconds += interval;
      if (driving) drive(interval, speed);
      if (time >= phaseEnd) {
        const offForStop = driving && random() < 0.25;
        if (time >= shift.end || offForStop) {
          nextStart = time >= shift.end ? 0 : time + between(300, 2400);
          break;
        }
        driving = !driving;
        if (driving) {
          target = random() < 0.3 ? between(70, 100) : between(25, 60);
          phaseEnd = time + between(180, 1500);
        } else {
          phaseEnd = time + between(15, 240);
        }
      }
      if (time >= until) return;
      if (driving) {
        speed = random() < 0.06 ? random() * 4 : Math.max(0, Math.min(130, speed + (target - speed) * 0.35 + (random() - 0.5) * 12));
        speed = _clearOfThreshold(Math.round(speed * 10) / 10);
      } else {
        speed = 0;
      }
      if (time >= silentUntil && random() < gapProbability) silentUntil = time + between(60, 900);
      const running = report(time, true, speed);
      if (running) yield running;
    }

    // Engine off: the tracker reports the change at once.
    if (time >= until) return;
    const stopped = report(time, false, 0);
    if (stopped) yield stopped;
    if (nextStart === 0) {
      shift = schedule(time + 900); // a driver's break at least, should the next shift already be running
      nextStart = shift.start;
    } else if (nextStart >= shift.end) {
      shift = schedule(nextStart);
      nextStart = shift.start;
    }
    time += parkedInterval;
    if (time > nextStart) time = nextStart;
  }
}

interface _Shift {
  readonly start: number;
  readonly end: number;
}

/** The first scheduled shift that ends after `after`; one already running starts at `after`. */
function _nextShift(after: number, habits: { seed: number; vehicle: number; timeZone: string; habitualStart: number }): _Shift {
  let date = localDateAt(after, habits.timeZone).subtract({ days: 1 });
  for (let day = 0; day < 15; day += 1, date = date.add({ days: 1 })) {
    const random = mulberry32(_mix(habits.seed, habits.vehicle, date.year * 400 + date.dayOfYear));
    const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
    let minutes: number;
    if (date.dayOfWeek <= 5) minutes = between(420, 600);
    else if (date.dayOfWeek === 6 && random() < 0.3) minutes = between(180, 300);
    else continue;
    const start = _wallClock(date, habits.habitualStart + between(-30, 30), habits.timeZone) + between(0, 59);
    const end = start + minutes * 60;
    if (end > after) return { start: Math.max(start, after), end };
  }
  // Unreachable: every week has weekdays.
  throw new RangeError('No shift within 15 days');
}

function _wallClock(date: PlainDate, minutes: number, timeZone: string): number {
  return date.toZonedDateTime({ timeZone, plainTime: { hour: Math.floor(minutes / 60), minute: minutes % 60 } }).epochMilliseconds / 1000;
}

/** Speeds near the moving threshold are moved clear of it, so a knots round trip cannot flip moving and idle. */
function _clearOfThreshold(speedKmh: number): number {
  if (Math.abs(speedKmh - _MOVING_KMH) >= _THRESHOLD_BAND) return speedKmh;
  return speedKmh < _MOVING_KMH ? _MOVING_KMH - _THRESHOLD_BAND - 0.1 : _MOVING_KMH + _THRESHOLD_BAND;
}

function _mix(seed: number, vehicle: number, salt: number): number {
  return (Math.imul(seed | 0, 0x2c1b3c6d) ^ Math.imul(vehicle + 1, 0x9e3779b1) ^ Math.imul(salt + 1, 0x85ebca6b)) >>> 0;
}
