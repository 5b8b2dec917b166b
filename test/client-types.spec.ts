import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { clientTypes, GENERATED } from '../scripts/client-types';

/**
 * @waitlist/client's types are made from docs/openapi.json by openapi-typescript: made again here, they
 * must be the committed file, so that a change of the contract cannot leave the client behind.
 */
describe("the client's generated types", () => {
  const file = relative(resolve(__dirname, '..'), GENERATED);

  it(`are committed in ${file} as openapi-typescript makes them from docs/openapi.json`, async () => {
    const committed = readFileSync(GENERATED, 'utf8');
    if (committed !== (await clientTypes())) throw new Error(`${file} is stale: run \`npm run client:types\` and commit it.`);
  }, 30_000);

  it('say in their first line that they are generated', () => {
    expect(readFileSync(GENERATED, 'utf8').split('\n')[0]).toMatch(/^\/\/ @generated .*do not edit\.$/);
  });
});
