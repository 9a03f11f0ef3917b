import { describeStorageContract } from './testing/index.js';
import { createMemoryStore } from './memory-store.js';

describeStorageContract('memory', { makeStore: createMemoryStore });
