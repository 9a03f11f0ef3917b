import { describeRateLimitContract } from '../testing/index.js';
import { createMemoryRateLimitStore } from './rate-limit.js';

describeRateLimitContract('memory', { makeStore: createMemoryRateLimitStore });
