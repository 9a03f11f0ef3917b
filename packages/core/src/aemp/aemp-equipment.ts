import type { DevicePosition } from '../telemetry/newest-position.js';
import type { Device, EpochSeconds } from '../types.js';

/** D64: which cumulative value a time series serves. */
export type AempSeriesKind = 'CumulativeOperatingHours' | 'CumulativeIdleHours';

/** The kinds of {@link AempSeriesKind}, as the paths name them. */
export const AEMP_SERIES_KINDS: readonly AempSeriesKind[] = ['CumulativeOperatingHours', 'CumulativeIdleHours'];

/** D63, D64: an equipment's header, from its device's identity (`EquipmentID` is the device's name). */
export interface AempEquipmentHeader {
  readonly deviceId: number;
  readonly oemName: string | null;
  readonly model: string | null;
  readonly equipmentId: string;
  readonly serialNumber: string | null;
  readonly pin: string | null;
}

/** D64: one equipment of a snapshot at `snapshotTime`; a value the device has none of is `null` (the element is absent). */
export interface AempEquipment extends AempEquipmentHeader {
  /** The newest position its points carried (issue 34). */
  readonly location: DevicePosition | null;
  /** The hour meter at the snapshot time (D38), whole seconds. */
  readonly operatingSeconds: number;
  /** The idle seconds counted up to the snapshot time. */
  readonly idleSeconds: number;
  /** Whether a segment covers the snapshot time (the engine runs, D22's live tail included); `null` for a device that never reported. */
  readonly running: boolean | null;
}

/** D64: a page of the snapshot feed. */
export interface AempFleetPage {
  readonly snapshotTime: EpochSeconds;
  readonly page: number;
  readonly lastPage: number;
  readonly equipment: readonly AempEquipment[];
}

/** D64: one value of a time series: the cumulative seconds at `at`. */
export interface AempSeriesValue {
  readonly at: EpochSeconds;
  readonly seconds: number;
}

/** D64: a page of one equipment's time series. */
export interface AempSeriesPage {
  readonly snapshotTime: EpochSeconds;
  readonly kind: AempSeriesKind;
  readonly page: number;
  readonly lastPage: number;
  readonly header: AempEquipmentHeader;
  readonly values: readonly AempSeriesValue[];
}

/** The header of a device's equipment (D63). */
export function aempHeader(device: Device): AempEquipmentHeader {
  return {
    deviceId: device.id,
    oemName: device.oemName,
    model: device.equipmentModel,
    equipmentId: device.name,
    serialNumber: device.serialNumber,
    pin: device.pin,
  };
}
