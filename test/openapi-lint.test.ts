/**
 * Lints the OpenAPI document with Redocly's `recommended` ruleset, as a client generator or a docs
 * tool would read it: no errors, and no warnings but the ones allowed below, each with its reason.
 */
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { createOpenApiDocument, openApiDocument } from '@fleet-hours/http';
import { describe, expect, it } from 'vitest';

/**
 * Warnings allowed, by rule and JSON pointer, each with why.
 *
 * `no-unused-components`: the linter counts a component as used only when an operation refers to
 * it. The 405 describes answers that are no operation of the API: a method a path does not serve
 * (D17). Listing it as operations made generated clients offer `POST /api/v1/devices`; instead the
 * path items point at it with `x-method-not-allowed`, which the linter does not follow. (The 404 of
 * a path not served, P12, D31, is also the AEMP feed's 404 of a page past the last: used.)
 *
 * `operation-4xx-response`: the reference (this document and /docs) takes no key, no parameter
 * and is not counted (P14), so a GET of it answers 200 and nothing else; inventing a 4xx for it
 * would make the document disagree with the server. Its only refusal, the 405 of another method,
 * is described with the other 405s.
 */
const ALLOWED_WARNINGS = [
  { ruleId: 'no-unused-components', pointer: '#/components/responses/MethodNotAllowed' },
  { ruleId: 'operation-4xx-response', pointer: '#/paths/~1api~1v1~1openapi.json/get/responses' },
  { ruleId: 'operation-4xx-response', pointer: '#/paths/~1docs/get/responses' },
];

async function lint(document: unknown): Promise<NormalizedProblem[]> {
  const config = await createConfig({ extends: ['recommended'] });
  return lintFromString({ source: JSON.stringify(document, null, 2), absoluteRef: 'openapi.json', config });
}

const describeProblem = (problem: NormalizedProblem) => ({
  severity: problem.severity,
  ruleId: problem.ruleId,
  pointer: problem.location[0]?.pointer,
  message: problem.message,
});

describe('the OpenAPI document under the recommended Redocly ruleset', () => {
  for (const [name, document] of [
    ['as exported', openApiDocument],
    ['as served under a prefix, with other limits', createOpenApiDocument({ serverUrl: '/fleet', rateLimits: { hours: 45 } })],
  ] as const) {
    it(`has no errors and only the allowed warnings (${name})`, async () => {
      const problems = (await lint(document)).map(describeProblem);
      expect(problems.filter((problem) => problem.severity === 'error')).toEqual([]);
      const warnings = problems.map(({ ruleId, pointer }) => ({ ruleId, pointer }));
      expect(warnings).toEqual(expect.arrayContaining(ALLOWED_WARNINGS));
      expect(
        warnings.filter(
          (warning) => !ALLOWED_WARNINGS.some((allowed) => allowed.ruleId === warning.ruleId && allowed.pointer === warning.pointer),
        ),
      ).toEqual([]);
    });
  }

  it('reports what it should: the linter is really applied', async () => {
    const broken = JSON.parse(JSON.stringify(openApiDocument)) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
      info: Record<string, unknown>;
    };
    delete broken.paths['/api/v1/devices']!.get!.operationId;
    delete broken.info.license;
    broken.paths['/api/v1/devices']!.post = { responses: { '405': { $ref: '#/components/responses/MethodNotAllowed' } } } as never;
    const ruleIds = (await lint(broken)).map((problem) => problem.ruleId);
    expect(ruleIds).toEqual(
      expect.arrayContaining(['operation-operationId', 'info-license', 'operation-2xx-response', 'operation-summary']),
    );
  });
});
