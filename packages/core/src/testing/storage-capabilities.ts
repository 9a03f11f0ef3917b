/** The optional capabilities of the storage port a store may offer. */
export type StorageCapability =
  | 'sumSegmentSeconds'
  | 'summarizeDeviceSegments'
  | 'sumSegmentSecondsMany'
  | 'summarizeDeviceSegmentsMany'
  | 'engineSecondsBeforeMany'
  /** P53: the write leaves a request to check the device's events, and the checks are listed and cleared. */
  | 'listEventChecks'
  | 'findDeviceWithSums'
  | 'findDeviceWithSummary'
  /** D59 (P147): a device with its window's segments and its calendar, in one snapshot. */
  | 'findDeviceWithDays'
  /** Of a store that also keeps the rate-limit counters (`RateLimitStore`): the key and the count in one round trip. */
  | 'findApiKeyAndConsume'
  /** The same for ingest tokens (D24): the token and the count in one round trip. */
  | 'findIngestTokenAndConsume'
  /** P58: a service page in one round trip, with what it remembered (and `rememberServiceMemos`). */
  | 'listServicePage'
  /** D49, D59 (P129): the segments of many devices, each over its range, in one round trip. */
  | 'listSegmentsMany'
  /** D49, P152: a numbered page of an account's devices with their count, in one round trip. */
  | 'listDevicePage'
  /** D49, D59 (P129): the account's default calendar and its devices' own in one round trip. */
  | 'findWorkCalendarsMany'
  /** P102: writes kept together or not at all (a change of `manage` with its change-log entry). */
  | 'atomically'
  /** D65 (P132): AEMP sources, their claims and poll records (every method `aempSourcesOf` asks for). */
  | 'claimAempSource';

/** Every optional capability of the storage port: what a store that offers them all (the Kysely store does) passes as `capabilities`. */
export const STORAGE_CAPABILITIES: readonly StorageCapability[] = [
  'sumSegmentSeconds',
  'summarizeDeviceSegments',
  'sumSegmentSecondsMany',
  'summarizeDeviceSegmentsMany',
  'engineSecondsBeforeMany',
  'listEventChecks',
  'findDeviceWithSums',
  'findDeviceWithSummary',
  'findDeviceWithDays',
  'findApiKeyAndConsume',
  'findIngestTokenAndConsume',
  'listServicePage',
  'listSegmentsMany',
  'listDevicePage',
  'findWorkCalendarsMany',
  'atomically',
  'claimAempSource',
];
