/**
 * PUT .../adaptive-schema with a `$schema` the validator does not know: a 400
 * naming `jsonSchema.$schema` (ajv throws on an unknown meta-schema), and the
 * stored schema unchanged.
 */
import { expect, it } from 'vitest';
import { expectError, useTestServer } from '../helpers/server.ts';

const { server } = useTestServer();

const claims = { type: 'object', additionalProperties: false, properties: { beta: { type: 'boolean', description: 'In the beta' } } };

it.each(['https://json-schema.org/draft/2020-12/schema', 'foo', 'http://json-schema.org/draft-04/schema#'])('refuses $schema %s with 400 naming jsonSchema.$schema', async ($schema) => {
  const ada = await server.createUser('Ada');
  const org = await server.createOrg(ada);
  const site = await server.createSite(ada, org);
  const path = `/v1/orgs/${org}/sites/${site.id}/adaptive-schema`;
  const stored = await server.request('PUT', path, { token: ada.token, body: { jsonSchema: claims } });
  expect(stored.status).toBe(200);
  expectError(await server.request('PUT', path, { token: ada.token, body: { jsonSchema: { $schema, ...claims } } }), 400, /^jsonSchema\.\$schema: /);
  const after = await server.request('GET', path, { token: ada.token });
  expect(after.body.jsonSchema).toEqual(claims);
});
