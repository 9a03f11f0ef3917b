import { describe, expect, it } from 'vitest';
import type { Device } from '../types.js';
import type { AempPolledEquipment } from './poll-page.js';
import { aempDeviceMatcher, aempReadingSource, decideAempReading } from './poll-readings.js';

function device(id: number, identity: Partial<Pick<Device, 'pin' | 'oemName' | 'serialNumber'>>): Device {
  return {
    id,
    accountId: 1,
    name: `d${id}`,
    imei: String(id),
    registration: null,
    model: 'm',
    status: 'active',
    timeZone: 'UTC',
    lastReportedAt: null,
    tags: [],
    oemName: null,
    equipmentModel: null,
    serialNumber: null,
    pin: null,
    ...identity,
  } as Device;
}

function equipment(identity: Partial<AempPolledEquipment>): AempPolledEquipment {
  return { pin: null, oemName: null, serialNumber: null, equipmentId: null, hours: null, idleSeconds: null, ...identity };
}

describe('aempDeviceMatcher (D65)', () => {
  const match = aempDeviceMatcher([
    device(3, { pin: 'PIN-A', oemName: 'Caterpillar', serialNumber: 'S1' }),
    device(1, { oemName: 'Komatsu', serialNumber: 'K-77' }),
    device(2, { pin: ' pin-b ' }),
    device(4, { pin: 'pin-b' }),
  ]);

  it('D65, P125: by PIN, case-insensitive and trimmed; a PIN two devices share matches the lower id', () => {
    expect(match(equipment({ pin: 'pin-a' }))?.id).toBe(3);
    expect(match(equipment({ pin: 'PIN-B' }))?.id).toBe(2);
  });

  it('D65: else by OEM name and serial number, both case-insensitive and trimmed', () => {
    expect(match(equipment({ oemName: ' KOMATSU', serialNumber: 'k-77 ' }))?.id).toBe(1);
    expect(match(equipment({ pin: 'unknown', oemName: 'komatsu', serialNumber: 'K-77' }))?.id).toBe(1);
    expect(match(equipment({ oemName: 'Komatsu', serialNumber: 'K-78' }))).toBeNull();
    expect(match(equipment({ serialNumber: 'K-77' }))).toBeNull();
    expect(match(equipment({}))).toBeNull();
  });

  it('D65: a PIN match wins over make and serial', () => {
    expect(match(equipment({ pin: 'pin-a', oemName: 'Komatsu', serialNumber: 'K-77' }))?.id).toBe(3);
  });
});

describe('decideAempReading (D65)', () => {
  const H = 3600;
  const stored = [
    { readAt: 1000, readingSeconds: 10 * H },
    { readAt: 2000, readingSeconds: 20 * H },
  ];
  const decide = (readAt: number, hours: number) => decideAempReading({ deviceId: 1, readAt, readingSeconds: hours * H }, stored);

  it('D65: a first value, or a later larger one, is stored', () => {
    expect(decideAempReading({ deviceId: 1, readAt: 5, readingSeconds: 0 }, [])).toEqual({ kind: 'store' });
    expect(decide(3000, 21)).toEqual({ kind: 'store' });
  });

  it('D65: the same value twice is stored once, at whichever instant the feed repeats it', () => {
    expect(decide(2000, 20)).toEqual({ kind: 'known' });
    expect(decide(9000, 20)).toEqual({ kind: 'known' });
  });

  it('D65: a value before a later, larger stored one is already known', () => {
    expect(decide(500, 5)).toEqual({ kind: 'known' });
    expect(decide(1500, 15)).toEqual({ kind: 'known' });
  });

  it('D65: a value lower than the newest stored reading before it is refused with a reason, never taken as a reset', () => {
    expect(decide(3000, 1)).toEqual({ kind: 'refuse', reason: "lower than this source's newest reading before it (20.000000 h)" });
    expect(decide(1500, 9)).toMatchObject({ kind: 'refuse' });
  });

  it('D65, P126: a value higher than a reading after it, or a second value at an instant, is refused', () => {
    expect(decide(500, 11)).toEqual({ kind: 'refuse', reason: "higher than this source's reading after it (10.000000 h)" });
    expect(decide(2000, 25)).toEqual({ kind: 'refuse', reason: 'this source gave 20.000000 h at this instant already' });
    // The same value is known whatever the order of the stored readings, even at another stored instant.
    expect(decideAempReading({ deviceId: 1, readAt: 1000, readingSeconds: 20 * H }, stored)).toEqual({ kind: 'known' });
    expect(decideAempReading({ deviceId: 1, readAt: 1000, readingSeconds: 20 * H }, [...stored].reverse())).toEqual({ kind: 'known' });
  });

  it('D65: readings are marked aemp:{id}', () => {
    expect(aempReadingSource(7)).toBe('aemp:7');
  });
});
