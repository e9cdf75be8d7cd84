/** OpenAPI specs in tests: a small valid document, and waiting for a spec's processing to end. */
import type { TestServer } from './server.ts';

/** A small OpenAPI 3.1 document (YAML) with one operation and one schema it references. */
export const FIXTURE_OPENAPI = `openapi: 3.1.0
info:
  title: Fixture API
  version: 1.0.0
paths:
  /pets/{petId}:
    get:
      operationId: getPet
      summary: Get a pet
      parameters:
        - name: petId
          in: path
          required: true
          schema: { type: string }
      responses:
        '200':
          description: The pet
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Pet' }
components:
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties:
        id: { type: string }
        name: { type: string }
`;

/** GETs the spec until its processing ended (`complete`), its last answer; fails after `timeoutMs`. */
export async function waitForOpenAPISpec(server: TestServer, token: string, organizationId: string, slug: string, timeoutMs = 20_000): Promise<any> {
  const started = Date.now();
  for (;;) {
    const res = await server.request('GET', `/v1/orgs/${organizationId}/openapi/${slug}`, { token });
    if (res.status !== 200) throw new Error(`GET spec ${slug} answered ${res.status}: ${JSON.stringify(res.body)}`);
    if (res.body.processingState === 'complete') return res.body;
    if (Date.now() - started > timeoutMs) throw new Error(`The processing of spec ${slug} did not end in ${timeoutMs} ms: ${JSON.stringify(res.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
