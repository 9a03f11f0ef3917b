import { DEFAULT_RATE_LIMITS } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { UsageError } from './cli-errors.js';
import { COMMANDS } from './command-specs.js';
import { formatHelp } from './format-help.js';
import { readServerSettings, SERVER_SETTINGS, settingEnvName } from './server-settings.js';

describe('SERVER_SETTINGS (D30, P29)', () => {
  it("has a setting for every rate limit of core, with core's default (D13, D14, D33)", () => {
    const settings = readServerSettings({}, {});
    for (const [name, limit] of Object.entries(DEFAULT_RATE_LIMITS))
      expect([name, settings[name as keyof typeof settings]]).toEqual([name, limit]);
  });

  it('names each variable FLEET_HOURS_ and the flag in upper case, and no two settings share a flag', () => {
    expect(settingEnvName(SERVER_SETTINGS.port)).toBe('FLEET_HOURS_PORT');
    expect(settingEnvName(SERVER_SETTINGS.fleetDaily)).toBe('FLEET_HOURS_RATE_LIMIT_FLEET_DAILY');
    expect(settingEnvName(SERVER_SETTINGS.trustedProxyHops)).toBe('FLEET_HOURS_TRUSTED_PROXY_HOPS');
    const flags = Object.values(SERVER_SETTINGS).map((setting) => setting.flag);
    expect(new Set(flags).size).toBe(flags.length);
  });

  it('serve --help lists every setting with its default and its variable', () => {
    const serve = COMMANDS.find((command) => command.name === 'serve')!;
    // Wrapped lines joined again: each option is one entry of text.
    const entries = formatHelp({ command: serve })
      .replace(/\n {6,}/g, ' ')
      .split('\n');
    for (const setting of Object.values(SERVER_SETTINGS)) {
      const entry = entries.find((each) => each.trimStart().startsWith(`--${setting.flag} ${setting.placeholder} `));
      expect(entry, setting.flag).toMatch(
        new RegExp(
          ` ${setting.description.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. Default ${setting.shownDefault}; env ${settingEnvName(setting)}\\.$`,
        ),
      );
    }
  });
});

describe('the headers deadline setting (D37)', () => {
  it('is 10 s by default, read from --headers-timeout or FLEET_HOURS_HEADERS_TIMEOUT in seconds, and must be more than 0', () => {
    expect(readServerSettings({}, {}).headersTimeout).toBe(10);
    expect(settingEnvName(SERVER_SETTINGS.headersTimeout)).toBe('FLEET_HOURS_HEADERS_TIMEOUT');
    expect(readServerSettings({}, { FLEET_HOURS_HEADERS_TIMEOUT: '2.5' }).headersTimeout).toBe(2.5);
    expect(readServerSettings({ 'headers-timeout': '1' }, { FLEET_HOURS_HEADERS_TIMEOUT: '2.5' }).headersTimeout).toBe(1);
    expect(() => readServerSettings({ 'headers-timeout': '0' }, {})).toThrow('--headers-timeout must be a number of seconds > 0, got "0"');
  });
});

describe("an endpoint's share of a sender (D47)", () => {
  it('is 4 by default, read from --webhook-per-endpoint or FLEET_HOURS_WEBHOOK_PER_ENDPOINT, a whole number of at least 1', () => {
    expect(readServerSettings({}, {}).webhookPerEndpoint).toBe(4);
    expect(settingEnvName(SERVER_SETTINGS.webhookPerEndpoint)).toBe('FLEET_HOURS_WEBHOOK_PER_ENDPOINT');
    expect(readServerSettings({}, { FLEET_HOURS_WEBHOOK_PER_ENDPOINT: '2' }).webhookPerEndpoint).toBe(2);
    expect(readServerSettings({ 'webhook-per-endpoint': '8' }, { FLEET_HOURS_WEBHOOK_PER_ENDPOINT: '2' }).webhookPerEndpoint).toBe(8);
    expect(() => readServerSettings({ 'webhook-per-endpoint': '0' }, {})).toThrow('--webhook-per-endpoint');
  });
});

describe('readServerSettings() (P29)', () => {
  it('takes the defaults when nothing is given', () => {
    expect(readServerSettings({}, {})).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      trustedProxyHops: 0,
      logLevel: 'info',
      metricsPort: null,
      shutdownTimeout: 10,
    });
  });

  it('prefers the flag over its variable, and the variable over the default; an empty variable is unset', () => {
    const env = { FLEET_HOURS_PORT: '9000', FLEET_HOURS_RATE_LIMIT_HOURS: '60', FLEET_HOURS_HOST: '', FLEET_HOURS_LOG_LEVEL: 'WARN' };
    expect(readServerSettings({ port: '9100' }, env)).toMatchObject({ port: 9100, hours: 60, host: '127.0.0.1', logLevel: 'warn' });
    expect(readServerSettings({}, env)).toMatchObject({ port: 9000 });
  });

  it('refuses a bad value with a UsageError naming the flag or the variable', () => {
    expect(() => readServerSettings({ port: '70000' }, {})).toThrow(
      new UsageError('--port must be a whole number from 0 to 65535, got "70000"', 'serve'),
    );
    expect(() => readServerSettings({}, { FLEET_HOURS_RATE_LIMIT_METER: '0' })).toThrow(
      'FLEET_HOURS_RATE_LIMIT_METER must be a whole number ≥ 1, got "0"',
    );
    expect(() => readServerSettings({ 'log-level': 'loud' }, {})).toThrow(
      '--log-level must be one of debug, info, warn, error, got "loud"',
    );
    expect(() => readServerSettings({ 'shutdown-timeout': '-1' }, {})).toThrow(
      '--shutdown-timeout must be a number of seconds ≥ 0, got "-1"',
    );
    expect(() => readServerSettings({ host: ' ' }, {})).toThrow('--host must not be empty, got " "');
    // A retry delay is a duration: a bare number could mean seconds or hours, and is refused.
    expect(() => readServerSettings({ 'webhook-retry-schedule': '5s,30,2h' }, {})).toThrow(
      '--webhook-retry-schedule must give each delay a unit (30: give 30s, 30m or 30h), got "5s,30,2h"',
    );
    expect(readServerSettings({}, { FLEET_HOURS_WEBHOOK_RETRY_SCHEDULE: '5s, 30m,2h' }).webhookRetrySchedule).toEqual([5, 1800, 7200]);
  });
});
