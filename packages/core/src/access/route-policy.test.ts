import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS, resolveRateLimits } from './rate-limit.js';
import { ROUTE_POLICIES, routeLimit, type RoutePolicy } from './route-policy.js';

describe('ROUTE_POLICIES', () => {
  it('asks an API key on every data route and on unmatched paths under /api/v1, each with its own budget (D11, D13, D33, D39, P12)', () => {
    expect(
      Object.fromEntries(
        Object.entries(ROUTE_POLICIES).map(([name, policy]) => [name, [policy.template, policy.credential, policy.limit]]),
      ),
    ).toEqual({
      devices: ['/api/v1/devices', 'api_key', 'devices'],
      hours: ['/api/v1/devices/{id}/hours', 'api_key', 'hours'],
      daily: ['/api/v1/devices/{id}/hours/daily', 'api_key', 'daily'],
      meter: ['/api/v1/devices/{id}/meter', 'api_key', 'meter'],
      fleetHours: ['/api/v1/hours', 'api_key', 'fleetHours'],
      fleetDaily: ['/api/v1/hours/daily', 'api_key', 'fleetDaily'],
      fleetMeter: ['/api/v1/meter', 'api_key', 'fleetMeter'],
      service: ['/api/v1/devices/{id}/service', 'api_key', 'service'],
      fleetService: ['/api/v1/service', 'api_key', 'fleetService'],
      key: ['/api/v1/key', 'api_key', 'key'],
      aempFleet: ['/aemp/v2/Fleet/{page}', 'api_key', 'aempFleet'],
      aempEquipment: ['/aemp/v2/Fleet/Equipment/ID/{id}', 'api_key', 'aempEquipment'],
      aempSeries: ['/aemp/v2/Fleet/Equipment/ID/{id}/{kind}/{startUTC}/{endUTC}/{page}', 'api_key', 'aempSeries'],
      utilization: ['/api/v1/devices/{id}/utilization', 'api_key', 'utilization'],
      fleetUtilization: ['/api/v1/utilization', 'api_key', 'fleetUtilization'],
      createDevice: ['/api/v1/devices', 'api_key', 'writes'],
      updateDevice: ['/api/v1/devices/{id}', 'api_key', 'writes'],
      listAudit: ['/api/v1/audit', 'api_key', 'manageReads'],
      listHourMeterReadings: ['/api/v1/devices/{id}/hour-meter/readings', 'api_key', 'manageReads'],
      addHourMeterReading: ['/api/v1/devices/{id}/hour-meter/readings', 'api_key', 'writes'],
      removeHourMeterReading: ['/api/v1/devices/{id}/hour-meter/readings/{reading_id}', 'api_key', 'writes'],
      createServiceSchedule: ['/api/v1/devices/{id}/service/schedules', 'api_key', 'writes'],
      updateServiceSchedule: ['/api/v1/devices/{id}/service/schedules/{schedule_id}', 'api_key', 'writes'],
      removeServiceSchedule: ['/api/v1/devices/{id}/service/schedules/{schedule_id}', 'api_key', 'writes'],
      recordServiceDone: ['/api/v1/devices/{id}/service/schedules/{schedule_id}/done', 'api_key', 'writes'],
      // Webhook endpoints and ingest tokens (P80).
      listWebhooks: ['/api/v1/webhooks', 'api_key', 'manageReads'],
      createWebhook: ['/api/v1/webhooks', 'api_key', 'writes'],
      getWebhook: ['/api/v1/webhooks/{id}', 'api_key', 'manageReads'],
      updateWebhook: ['/api/v1/webhooks/{id}', 'api_key', 'writes'],
      deleteWebhook: ['/api/v1/webhooks/{id}', 'api_key', 'writes'],
      rotateWebhookSecret: ['/api/v1/webhooks/{id}/rotate', 'api_key', 'writes'],
      testWebhook: ['/api/v1/webhooks/{id}/test', 'api_key', 'writes'],
      listWebhookDeliveries: ['/api/v1/webhooks/{id}/deliveries', 'api_key', 'manageReads'],
      replayEvent: ['/api/v1/events/{event_id}/replay', 'api_key', 'writes'],
      listIngestTokens: ['/api/v1/ingest-tokens', 'api_key', 'manageReads'],
      createIngestToken: ['/api/v1/ingest-tokens', 'api_key', 'writes'],
      revokeIngestToken: ['/api/v1/ingest-tokens/{id}', 'api_key', 'writes'],
      // Work calendars (D58, P113).
      getDeviceCalendar: ['/api/v1/devices/{id}/calendar', 'api_key', 'manageReads'],
      putDeviceCalendar: ['/api/v1/devices/{id}/calendar', 'api_key', 'writes'],
      getAccountCalendar: ['/api/v1/calendar', 'api_key', 'manageReads'],
      putAccountCalendar: ['/api/v1/calendar', 'api_key', 'writes'],
      // AEMP sources (D65, P132).
      listAempSources: ['/api/v1/aemp/sources', 'api_key', 'manageReads'],
      createAempSource: ['/api/v1/aemp/sources', 'api_key', 'writes'],
      getAempSource: ['/api/v1/aemp/sources/{id}', 'api_key', 'manageReads'],
      updateAempSource: ['/api/v1/aemp/sources/{id}', 'api_key', 'writes'],
      deleteAempSource: ['/api/v1/aemp/sources/{id}', 'api_key', 'writes'],
      listAempPolls: ['/api/v1/aemp/sources/{id}/polls', 'api_key', 'manageReads'],
      unmatched: ['/api/v1/*', 'api_key', 'unmatched'],
      openApi: ['/api/v1/openapi.json', null, null],
      docs: ['/docs', null, null],
      ingestTelemetry: ['/ingest/v1/telemetry', 'ingest_token', 'ingest'],
      ingestTraccar: ['/ingest/traccar', 'ingest_token', 'ingest'],
      ingestOsmand: ['/ingest/osmand/{token}', 'ingest_token', 'ingest'],
      ingestUnmatched: ['/ingest/*', 'ingest_token', 'ingest'],
      notFound: ['*', null, 'unauthenticated'],
    });
  });
});

describe('ROUTE_POLICIES of the write routes (D51, D52)', () => {
  it('need a manage key and share one counter per key, apart from the reads', () => {
    const writes: RoutePolicy[] = [
      ROUTE_POLICIES.createDevice,
      ROUTE_POLICIES.updateDevice,
      // Readings, schedules and services done (P76).
      ROUTE_POLICIES.addHourMeterReading,
      ROUTE_POLICIES.removeHourMeterReading,
      ROUTE_POLICIES.createServiceSchedule,
      ROUTE_POLICIES.updateServiceSchedule,
      ROUTE_POLICIES.removeServiceSchedule,
      ROUTE_POLICIES.recordServiceDone,
      // Webhook endpoints and ingest tokens (P80).
      ROUTE_POLICIES.createWebhook,
      ROUTE_POLICIES.updateWebhook,
      ROUTE_POLICIES.deleteWebhook,
      ROUTE_POLICIES.rotateWebhookSecret,
      ROUTE_POLICIES.testWebhook,
      ROUTE_POLICIES.replayEvent,
      ROUTE_POLICIES.createIngestToken,
      ROUTE_POLICIES.revokeIngestToken,
      // Work calendars (D58, P113).
      ROUTE_POLICIES.putDeviceCalendar,
      ROUTE_POLICIES.putAccountCalendar,
      // AEMP sources (D65, P132).
      ROUTE_POLICIES.createAempSource,
      ROUTE_POLICIES.updateAempSource,
      ROUTE_POLICIES.deleteAempSource,
    ];
    for (const policy of writes) expect([policy.scope, policy.counter]).toEqual(['manage', '/api/v1/writes']);
    expect(Object.values(ROUTE_POLICIES).filter((policy: RoutePolicy) => policy.scope !== undefined && policy.limit === 'writes')).toEqual(
      writes,
    );
  });

  it('P88: the manage reads (the change log of D55, the readings of P76, webhooks and tokens of P80, work calendars of D58) need a manage key and count on one budget of manage reads per key, apart from the writes', () => {
    const reads: RoutePolicy[] = [
      ROUTE_POLICIES.listAudit,
      ROUTE_POLICIES.listHourMeterReadings,
      ROUTE_POLICIES.listWebhooks,
      ROUTE_POLICIES.getWebhook,
      ROUTE_POLICIES.listWebhookDeliveries,
      ROUTE_POLICIES.listIngestTokens,
      // Work calendars (D58, P113).
      ROUTE_POLICIES.getDeviceCalendar,
      ROUTE_POLICIES.getAccountCalendar,
      // AEMP sources (D65, P132).
      ROUTE_POLICIES.listAempSources,
      ROUTE_POLICIES.getAempSource,
      ROUTE_POLICIES.listAempPolls,
    ];
    for (const policy of reads)
      expect([policy.scope, policy.limit, policy.counter]).toEqual(['manage', 'manageReads', '/api/v1/manage-reads']);
    expect(Object.values(ROUTE_POLICIES).filter((policy: RoutePolicy) => policy.limit === 'manageReads')).toEqual(reads);
  });
});

describe('ROUTE_POLICIES of ingestion (D24)', () => {
  it('share one counter per ingest token over every ingestion route, and only OsmAnd reads the token from the path', () => {
    const ingest = [
      ROUTE_POLICIES.ingestTelemetry,
      ROUTE_POLICIES.ingestTraccar,
      ROUTE_POLICIES.ingestOsmand,
      ROUTE_POLICIES.ingestUnmatched,
    ];
    expect(ingest.map((policy: RoutePolicy) => policy.counter)).toEqual(['/ingest', '/ingest', '/ingest', '/ingest']);
    expect(ingest.map((policy: RoutePolicy) => policy.credentialFrom ?? 'header')).toEqual(['header', 'header', 'path', 'header']);
  });
});

describe('routeLimit()', () => {
  it('reads a named limit', () => {
    expect(routeLimit('devices', DEFAULT_RATE_LIMITS)).toBe(120);
    expect(routeLimit('unauthenticated', resolveRateLimits({ unauthenticated: 5 }))).toBe(5);
  });

  it('gives unmatched paths the lowest of the /hours, /hours/daily and /meter limits (P12)', () => {
    expect(routeLimit('unmatched', DEFAULT_RATE_LIMITS)).toBe(30);
    expect(routeLimit('unmatched', resolveRateLimits({ hours: 50, daily: 40, meter: 45 }))).toBe(40);
    expect(routeLimit('unmatched', resolveRateLimits({ devices: 1, fleetHours: 1 }))).toBe(30);
  });
});
