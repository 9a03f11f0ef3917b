import { describeStorageContract } from '../testing/index.js';
import { createMemoryStore } from './memory-store.js';

// The memory store offers the batch capabilities of the fleet pages (D32), not the single-device ones.
describeStorageContract('memory', {
  makeStore: createMemoryStore,
  capabilities: ['sumSegmentSecondsMany', 'summarizeDeviceSegmentsMany', 'listSegmentsMany', 'findWorkCalendarsMany'],
});
