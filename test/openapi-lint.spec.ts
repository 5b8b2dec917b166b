import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, RulesetDefinition, Spectral } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { buildOpenApiDocument, serializeDocument } from '../apps/api/src/openapi/document';

/**
 * An integrator's tools lint the document before they generate a client from it, and some stop at the
 * first problem. The document built from the code (docs/openapi.json is checked to equal it in
 * openapi.e2e-spec.ts) must pass Redocly's and Spectral's usual rule sets with no error and no warning.
 */
describe('the OpenAPI document under the linters', () => {
  const text = serializeDocument(buildOpenApiDocument());

  it("has no problem under Redocly's recommended rules", async () => {
    // An object, not loadConfig: a redocly.yaml lying around must not change what is checked.
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
    const listed = problems.map(({ ruleId, severity, location, message }) => `${severity} ${ruleId} at ${location[0]?.pointer ?? '?'}: ${message}`);
    expect(listed).toEqual([]);
  });

  it("has no problem under Spectral's oas rules", async () => {
    const spectral = new Spectral();
    // As a .spectral.yaml saying `extends: spectral:oas` does: the rules the ruleset recommends.
    // (The package's declaration of the ruleset is looser than the type setRuleset takes.)
    spectral.setRuleset({ extends: [oas as RulesetDefinition] });
    const problems = await spectral.run(new Document(text, Json, 'openapi.json'));
    const severities = ['error', 'warning', 'info', 'hint'];
    const listed = problems.map(({ code, severity, path, message }) => `${severities[severity]} ${code} at #/${path.join('/')}: ${message}`);
    expect(listed).toEqual([]);
  });
});
