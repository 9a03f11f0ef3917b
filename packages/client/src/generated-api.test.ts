/**
 * P91 (D57): the client's OpenAPI document and generated types are those of the document
 * @fleet-hours/http builds now. After a change of the document: `npm run generate -w @fleet-hours/client`.
 */
import { readFileSync } from 'node:fs';
import { openApiDocument } from '@fleet-hours/http';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { GENERATED_FILES, generateApi } from '../scripts/generate-api.js';
import type { PagedPath } from './paged-paths.js';
import type { paths } from './generated/api.js';

const STALE = 'stale: run "npm run generate -w @fleet-hours/client" and commit the result';

describe('the generated client (P91)', () => {
  it('src/generated/openapi.json and api.ts are regenerated unchanged from the current document', async () => {
    const { document, types } = await generateApi();
    expect(readFileSync(GENERATED_FILES.document, 'utf8') === document, `src/generated/openapi.json is ${STALE}`).toBe(true);
    expect(readFileSync(GENERATED_FILES.types, 'utf8') === types, `src/generated/api.ts is ${STALE}`).toBe(true);
    expect(JSON.parse(document)).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });

  it('types every path of the document, and keeps its descriptions but not its examples', () => {
    const types = readFileSync(GENERATED_FILES.types, 'utf8');
    for (const path of Object.keys(openApiDocument.paths)) expect(types).toContain(`    "${path}": {`);
    expect(types).toContain('@description');
    expect(types).not.toContain('@example');
    expectTypeOf<'/api/v1/devices' | '/api/v1/devices/{id}/hours' | '/api/v1/hours'>().toExtend<keyof paths>();
  });

  it('finds the paged routes from the types: the fleet pages, not a single device or the device list (P92)', () => {
    expectTypeOf<'/api/v1/hours' | '/api/v1/hours/daily' | '/api/v1/meter' | '/api/v1/service'>().toExtend<PagedPath>();
    expectTypeOf<'/api/v1/devices'>().not.toExtend<PagedPath>();
    expectTypeOf<'/api/v1/devices/{id}/hours/daily'>().not.toExtend<PagedPath>();
    expectTypeOf<'/ingest/v1/telemetry'>().not.toExtend<PagedPath>();
  });
});
