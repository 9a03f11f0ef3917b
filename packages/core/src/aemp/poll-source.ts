import { InvalidParameterError } from '../errors/errors.js';
import { formatInstant } from '../time/format-instant.js';
import type { ChangeOrigin } from '../manage/change-log.js';
import type { MaintenanceWrites } from '../manage/maintenance-writes.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { EpochSeconds, HourMeterReading } from '../types.js';
import { aempNextPage, readAempPage, type AempNode, type AempStop } from './poll-page.js';
import type { AempPollError, AempPollRecord, AempUnmatched } from './poll-record.js';
import { aempDeviceMatcher, aempReadingSource, decideAempReading, type AempRefusal } from './poll-readings.js';

export type { AempPollError, AempPollRecord, AempUnmatched } from './poll-record.js';

/** A page could not be read: the poll ends, recording it (D66). The message MUST hold no secret. */
export class AempFetchError extends Error {
  override readonly name = 'AempFetchError';
  constructor(
    readonly status: number | null,
    message: string,
    /** Where the poll ended on a wait the source asked for (`Retry-After`) or its URL's interval: the seconds from now before it may be asked again. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

/** What a poll needs: the source, the account, the page reader and where readings go. */
export interface AempPollOptions {
  readonly sourceId: number | string;
  readonly accountId: number;
  /** The feed's first page (`/Fleet/1`, or `/Fleet/0` where the source starts there). */
  readonly url: string;
  /** Reads one page into the neutral tree; throws {@link AempFetchError} when it cannot. */
  readonly fetchPage: (url: string) => Promise<AempNode>;
  readonly store: Pick<FleetHoursStore, 'listDevices' | 'listHourMeterReadings'>;
  readonly writes: Pick<MaintenanceWrites, 'addSourceReading'>;
  readonly origin: ChangeOrigin;
  /** Epoch seconds now. */
  readonly nowSeconds: () => EpochSeconds;
}

/**
 * Polls one source (D65, D66): walks its snapshot feed page by page (`aempNextPage`'s guards),
 * matches each equipment to a device of the account, and stores each operating-hours value the
 * source has not stored (`decideAempReading`). An error ends the poll, recorded; readings stored
 * before it stay (the next poll starts afresh and passes over them).
 *
 * @returns The poll's record.
 */
export async function pollAempSource(options: AempPollOptions): Promise<AempPollRecord> {
  const { accountId } = options;
  const startedAt = options.nowSeconds();
  const source = aempReadingSource(options.sourceId);
  const match = aempDeviceMatcher(await options.store.listDevices({ accountId }));
  const counts = { pages: 0, equipmentSeen: 0, matched: 0, readingsStored: 0 };
  const unmatched: AempUnmatched[] = [];
  const readingsRefused: AempRefusal[] = [];
  const read = new Set<string>();
  let error: AempPollError | null = null;
  let stop: AempStop | null = null;
  let url = options.url;
  try {
    for (;;) {
      read.add(url);
      const page = readAempPage(await options.fetchPage(url), url);
      counts.pages += 1;
      counts.equipmentSeen += page.equipment.length;
      const offered: _Offered[] = [];
      for (const equipment of page.equipment) {
        const device = match(equipment);
        if (device === null) {
          unmatched.push({ pin: equipment.pin, oemName: equipment.oemName, serialNumber: equipment.serialNumber });
          continue;
        }
        counts.matched += 1;
        // P156: the idle the equipment gave goes with its operating hours, stored only with them.
        const idle = equipment.idleSeconds === null ? {} : { idleSeconds: equipment.idleSeconds };
        if (equipment.hours !== null) offered.push({ deviceId: device.id, ...equipment.hours, ...idle });
      }
      const stored = await _sourceReadings(options.store, offered, source);
      for (const candidate of offered) {
        const mine = stored.get(candidate.deviceId)!;
        const decision = decideAempReading(candidate, mine);
        if (decision.kind === 'refuse') readingsRefused.push({ ...candidate, reason: decision.reason });
        if (decision.kind !== 'store') continue;
        const added = await _add(options, source, candidate);
        if (typeof added === 'string') readingsRefused.push({ ...candidate, reason: added });
        if (added === null || typeof added === 'string') continue;
        mine.push(added);
        counts.readingsStored += 1;
      }
      const next = aempNextPage(page, url, read);
      if ('stop' in next) {
        stop = next.stop;
        break;
      }
      url = next.next;
    }
  } catch (thrown) {
    if (!(thrown instanceof AempFetchError)) throw thrown;
    error = { status: thrown.status, message: thrown.message };
  }
  return {
    sourceId: options.sourceId,
    startedAt,
    finishedAt: options.nowSeconds(),
    ...counts,
    unmatched,
    readingsRefused: readingsRefused.map(({ deviceId, readAt, reason }) => ({ deviceId, readAt, reason })),
    error,
    stop,
  };
}

/** Stores a reading; a value the reading checks refuse (D38: in the future, out of range) is refused with their reason. */
async function _add(options: AempPollOptions, source: string, candidate: _Offered): Promise<HourMeterReading | string | null> {
  try {
    return await options.writes.addSourceReading({ accountId: options.accountId, origin: options.origin, source, ...candidate });
  } catch (thrown) {
    if (thrown instanceof InvalidParameterError) return thrown.message;
    throw thrown;
  }
}

/** A value a page offers for a device: its operating hours and, where the equipment gave it, its idle (P156). */
interface _Offered {
  readonly deviceId: number;
  readonly readAt: EpochSeconds;
  readonly readingSeconds: number;
  readonly idleSeconds?: number;
}

/** A poll's record as the API and the CLI will show it, with the id its store gave it. */
export function aempPollRecordBody(id: number, record: AempPollRecord) {
  const instant = (seconds: EpochSeconds) => formatInstant(seconds, 'UTC');
  return {
    id,
    source_id: record.sourceId,
    started_at: instant(record.startedAt),
    finished_at: instant(record.finishedAt),
    pages: record.pages,
    equipment_seen: record.equipmentSeen,
    matched: record.matched,
    unmatched: record.unmatched.map((each) => ({ pin: each.pin, oem_name: each.oemName, serial_number: each.serialNumber })),
    readings_stored: record.readingsStored,
    readings_refused: record.readingsRefused.map((each) => ({
      device_id: each.deviceId,
      read_at: instant(each.readAt),
      reason: each.reason,
    })),
    error: record.error,
  };
}

/** The source's readings of the devices offered, by device (one read of the store a page). */
async function _sourceReadings(
  store: AempPollOptions['store'],
  offered: readonly { readonly deviceId: number }[],
  source: string,
): Promise<Map<number, HourMeterReading[]>> {
  const deviceIds = [...new Set(offered.map((candidate) => candidate.deviceId))];
  const byDevice = new Map<number, HourMeterReading[]>(deviceIds.map((id) => [id, []]));
  if (deviceIds.length === 0) return byDevice;
  for (const reading of await store.listHourMeterReadings({ deviceIds }))
    if (reading.source === source) byDevice.get(reading.deviceId)?.push(reading);
  return byDevice;
}
