import { describe, expect, it } from 'vitest';
import * as core from './index.js';

describe('@fleet-hours/core public surface', () => {
  it('exports every function, class and constant other packages build against', () => {
    expect(Object.keys(core).sort()).toEqual(
      [
        'API_KEY_PREFIX',
        'DEFAULT_API_PLANS',
        'DEFAULT_RATE_LIMITS',
        'InvalidParameterError',
        'SEGMENT_STATES',
        'SegmentOverlapError',
        'StorageUnavailableError',
        'addBuckets',
        'consumeRateLimit',
        'createFleetHours',
        'createMemoryRateLimitStore',
        'createMemoryStore',
        'dayBuckets',
        'evaluateAccess',
        'fingerprintApiKey',
        'formatInstant',
        'generateApiKey',
        'localDateAt',
        'normalizeTimeZone',
        'parseInstant',
        'parseLocalDate',
        'parseSegmentRecord',
        'parseTelemetryRecord',
        'planSegmentImport',
        'readBearerToken',
        'resolveWindow',
        'segmentSpan',
        'startOfLocalDay',
        'sumSegmentsByBucket',
        'summarizeSegments',
        'telemetryToSegments',
        'toEngineSeconds',
      ].sort(),
    );
  });
});
