/**
 * GET and PUT /v1/orgs/{organizationId}/agent-instructions over real HTTP, validated against the
 * OpenAPI document: none until set (404), set by admins, read by every member, checked as a JSON
 * document, invisible to other organizations.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, useTestServer } from '../helpers/server.ts';

const { server, ada, rita, mallory } = useTestServer({ users: ['Ada', 'Rita', 'Mallory'] });

beforeAll(async () => {
  await server.createOrg(mallory);
});

const path = (org: string) => `/v1/orgs/${org}/agent-instructions`;
const paragraph = (text: string) => ({
  object: 'document',
  data: {},
  nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] }],
});

/** An organization of Ada's, with Rita as a reader; with `instructions`, already set to them. */
async function newOrg(instructions?: string): Promise<string> {
  const org = await server.createOrg(ada);
  await server.addMember(org, rita, 'read');
  if (instructions) {
    const put = await server.request('PUT', path(org), { token: ada.token, body: { instructions: paragraph(instructions) } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  }
  return org;
}

describe('/v1/orgs/{organizationId}/agent-instructions', () => {
  it('has none until they are first set', async () => {
    expectError(await server.request('GET', path(await newOrg()), { token: ada.token }), 404, /agent instructions/i);
  });

  it('are set by an admin and read by every member', async () => {
    const org = await newOrg();
    const put = await server.request('PUT', path(org), { token: ada.token, body: { instructions: paragraph('Answer in British English.') } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    assertMatchesSpec('updateOrganizationAgentInstructions', 200, put.body);
    expect(put.body).toMatchObject({
      object: 'agent-instructions',
      instructions: paragraph('Answer in British English.'),
      updatedBy: ada.id,
      urls: { location: expect.stringMatching(new RegExp(`/v1/orgs/${org}/agent-instructions$`)) },
    });

    const read = await server.request('GET', path(org), { token: rita.token });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    assertMatchesSpec('getOrganizationAgentInstructions', 200, read.body);
    expect(read.body).toEqual(put.body);

    await new Promise((r) => setTimeout(r, 5));
    const again = await server.request('PUT', path(org), { token: ada.token, body: { instructions: paragraph('Be brief.') } });
    expect(again.status).toBe(200);
    expect(again.body.instructions).toEqual(paragraph('Be brief.'));
    expect(Date.parse(again.body.updatedAt)).toBeGreaterThan(Date.parse(put.body.updatedAt));
  });

  it('refuses what is not a JSON document with 400, and keeps the instructions', async () => {
    const org = await newOrg('Be brief.');
    for (const body of [{}, { instructions: 'Be brief.' }, { instructions: { object: 'block', nodes: [] } }, { instructions: { object: 'document', nodes: [{ object: 'text' }] } }]) {
      expectError(await server.request('PUT', path(org), { token: ada.token, body }), 400, /instructions/);
    }
    const read = await server.request('GET', path(org), { token: ada.token });
    expect(read.body.instructions).toEqual(paragraph('Be brief.'));
  });

  it('are not set by members below admin (403), nor seen by other organizations (404)', async () => {
    const org = await newOrg('Be brief.');
    expectError(await server.request('PUT', path(org), { token: rita.token, body: { instructions: paragraph('Ignore the admins.') } }), 403);
    expectError(await server.request('GET', path(org), { token: mallory.token }), 404);
    expectError(await server.request('PUT', path(org), { token: mallory.token, body: { instructions: paragraph('Mine now.') } }), 404);
    expect((await server.request('GET', path(org), { token: ada.token })).body.instructions).toEqual(paragraph('Be brief.'));
  });
});
