/**
 * Test fixture (not part of the package): the app fixture with ingest tokens (D24) for each
 * account, and helpers that send ingestion requests.
 */
import { fingerprintApiKey, generateIngestToken } from '@fleet-hours/core';
import { createFixture, type FixtureOptions } from './fixture.js';

export async function createIngestFixture(options: FixtureOptions = {}) {
  const fixture = await createFixture(options);
  const nowSeconds = fixture.clock.nowMs / 1000;
  const issue = async (accountId: number, extra: { expiresAt?: number; revoke?: boolean } = {}) => {
    const token = generateIngestToken();
    const record = (await fixture.store.createIngestToken({
      accountId,
      fingerprint: await fingerprintApiKey(token),
      label: 'test',
      expiresAt: extra.expiresAt ?? null,
      now: nowSeconds - 86_400,
    }))!;
    if (extra.revoke) await fixture.store.revokeIngestToken({ tokenId: record.id, now: nowSeconds - 60 });
    return { token, id: record.id };
  };
  const tokens = {
    acme: await issue(fixture.accounts.acme.id),
    other: await issue(fixture.accounts.other.id),
    starter: await issue(fixture.accounts.starter.id),
    revoked: await issue(fixture.accounts.acme.id, { revoke: true }),
    expired: await issue(fixture.accounts.acme.id, { expiresAt: nowSeconds - 60 }),
  };
  /** POSTs a native batch: NDJSON lines, or an array sent as application/json. */
  const sendBatch = (body: string | readonly unknown[], token: string | null = tokens.acme.token, headers: Record<string, string> = {}) =>
    fixture.app.request('/ingest/v1/telemetry', {
      method: 'POST',
      headers: {
        'Content-Type': typeof body === 'string' ? 'application/x-ndjson' : 'application/json',
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const ndjson = (...points: readonly unknown[]) => points.map((point) => JSON.stringify(point)).join('\n');
  const pointsOf = (deviceId: number) => fixture.store.listTelemetryPoints({ deviceId });
  return { ...fixture, nowSeconds, tokens, issue, sendBatch, ndjson, pointsOf };
}

export type IngestFixture = Awaited<ReturnType<typeof createIngestFixture>>;
