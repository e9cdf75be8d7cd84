/**
 * Processing an OpenAPI source (src/openapi/process-source.ts) on the test's
 * thread: specifications given as text and served over real HTTP by a local
 * server (./spec-server.ts), single- and multi-file, and every way they fail.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAPIFilesystem, processOpenAPISource, type OpenAPIProcessingOptions, type OpenAPIProcessingResult } from '../../src/openapi/process-source.ts';
import { FIXTURES, GITBOOK_API_NEXT_SPEC, GITBOOK_API_SPEC, startSpecServer, type SpecServer } from './spec-server.ts';

const OPTIONS: OpenAPIProcessingOptions = { maxBytes: 10_485_760, timeoutMs: 10_000, maxFiles: 50, allowPrivateAddresses: true };

let server: SpecServer;
beforeAll(async () => {
  server = await startSpecServer();
});
afterAll(() => server.close());

const fixture = (path: string) => readFile(`${FIXTURES}${path}`, 'utf8');
const fromUrl = (path: string, options: Partial<OpenAPIProcessingOptions> = {}) => processOpenAPISource({ url: `${server.origin}/${path}` }, { ...OPTIONS, ...options });
const fromText = (text: string, options: Partial<OpenAPIProcessingOptions> = {}) => processOpenAPISource({ text }, { ...OPTIONS, ...options });

function failed(result: OpenAPIProcessingResult) {
  if (result.ok) throw new Error(`expected a failure, got version ${result.version} with ${result.files.length} file(s)`);
  return result;
}
function succeeded(result: OpenAPIProcessingResult) {
  if (!result.ok) throw new Error(`expected success, got ${result.code}: ${result.errors.map((e) => e.message).join('; ')}`);
  return result;
}

describe('processOpenAPISource: accepted specifications', () => {
  it('reads the OpenAPI 3.0 document of @gitbook/api given as text: one file, exactly as given', async () => {
    const text = await readFile(GITBOOK_API_SPEC, 'utf8');
    const result = succeeded(await fromText(text));
    expect(result.version).toBe('3.0');
    expect(result.title).toBe('GitBook API');
    expect(result.files).toEqual([{ path: 'openapi.json', text, isEntrypoint: true, references: [] }]);
  });

  it('reads the same document served by URL, named after the URL', async () => {
    const result = succeeded(await fromUrl('gitbook/openapi.json'));
    expect(result.version).toBe('3.0');
    expect(result.files.map((file) => file.path)).toEqual(['openapi.json']);
    expect(result.files[0]!.text).toBe(await readFile(GITBOOK_API_SPEC, 'utf8'));
  });

  it('reads the OpenAPI 3.1 document of @gitbook/api 0.202.0, as text and by URL', async () => {
    const text = await readFile(GITBOOK_API_NEXT_SPEC, 'utf8');
    expect(succeeded(await fromText(text)).version).toBe('3.1');
    const byUrl = succeeded(await fromUrl('gitbook-next/openapi.json'));
    expect(byUrl.version).toBe('3.1');
    expect(byUrl.files).toHaveLength(1);
  });

  it('reads a Swagger 2.0 document in YAML', async () => {
    const result = succeeded(await fromText(await fixture('swagger-petstore.yaml')));
    expect(result).toMatchObject({ version: '2.0', title: 'Swagger Petstore' });
    expect(result.files.map((file) => file.path)).toEqual(['openapi.yaml']);
    expect(succeeded(await fromUrl('swagger-petstore.yaml')).files[0]!.path).toBe('swagger-petstore.yaml');
  });

  it('loads every file of a multi-file specification by its relative $refs, with paths and references relative to the entry', async () => {
    const result = succeeded(await fromUrl('multi/api/openapi.yaml'));
    expect(result).toMatchObject({ version: '3.0', title: 'Pet store (multi-file)' });
    expect(result.files.map(({ path, isEntrypoint, references }) => ({ path, isEntrypoint, references }))).toEqual([
      { path: 'openapi.yaml', isEntrypoint: true, references: ['schemas/pet.yaml', '../shared/errors.yaml'] },
      { path: 'schemas/pet.yaml', isEntrypoint: false, references: ['schemas/category.yaml'] },
      { path: '../shared/errors.yaml', isEntrypoint: false, references: [] },
      { path: 'schemas/category.yaml', isEntrypoint: false, references: [] },
    ]);
    expect(result.files[1]!.text).toBe(await fixture('multi/api/schemas/pet.yaml'));
    // Each file fetched once, though two $refs name pet.yaml ('./schemas/pet.yaml' and 'schemas/pet.yaml').
    expect(server.requests.filter((path) => path === '/multi/api/schemas/pet.yaml')).toHaveLength(1);

    const filesystem = openAPIFilesystem(result.files);
    expect(Object.keys(filesystem)).toEqual(['openapi.yaml', 'schemas/pet.yaml', '../shared/errors.yaml', 'schemas/category.yaml']);
    expect(filesystem['openapi.yaml']).toMatchObject({ dir: './', filename: 'openapi.yaml', isEntrypoint: true, references: ['schemas/pet.yaml', '../shared/errors.yaml'] });
    expect(filesystem['openapi.yaml']!.specification).toMatchObject({ openapi: '3.0.3', info: { title: 'Pet store (multi-file)' } });
    expect(filesystem['schemas/pet.yaml']).toEqual({
      dir: './schemas/',
      filename: 'pet.yaml',
      isEntrypoint: false,
      references: ['schemas/category.yaml'],
      specification: {
        Pet: {
          type: 'object',
          required: ['id', 'name'],
          properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' }, category: { $ref: './category.yaml#/Category' } },
        },
      },
    });
    expect(filesystem['../shared/errors.yaml']).toMatchObject({ dir: '../shared/', filename: 'errors.yaml', isEntrypoint: false, references: [] });
  });

  it('puts the entry first in the filesystem whatever order the files are stored in', () => {
    const filesystem = openAPIFilesystem([
      { path: 'schemas/a.json', text: '{"A": {"type": "string"}}', isEntrypoint: false, references: [] },
      { path: 'openapi.json', text: '{"openapi": "3.1.0"}', isEntrypoint: true, references: ['schemas/a.json'] },
    ]);
    expect(Object.keys(filesystem)).toEqual(['openapi.json', 'schemas/a.json']);
  });

  it('follows an absolute $ref to the same origin', async () => {
    const result = succeeded(await fromUrl('multi/api/absolute.yaml'));
    expect(result.files.map(({ path, references }) => ({ path, references }))).toEqual([
      { path: 'absolute.yaml', references: ['../shared/errors.yaml'] },
      { path: '../shared/errors.yaml', references: [] },
    ]);
  });
});

describe('processOpenAPISource: parse errors', () => {
  it('reports invalid YAML with its file, line and column', async () => {
    const result = failed(await fromUrl('invalid.yaml'));
    expect(result.code).toBe('PARSE_ERROR');
    expect(result.errorCount).toBe(result.errors.length);
    expect(result.errors[0]).toEqual({ code: 'SYNTAX_ERROR', message: 'invalid.yaml line 8, column 16: Nested mappings are not allowed in compact mappings' });
  });

  it('reports invalid JSON with line and column', async () => {
    const result = failed(await fromText('{\n  "openapi": "3.1.0",\n  "info": {"title": "x" "version": "1"}\n}'));
    expect(result.code).toBe('PARSE_ERROR');
    expect(result.errors[0]).toEqual({ code: 'SYNTAX_ERROR', message: 'openapi.json line 3, column 25: Unexpected double-quoted-scalar token' });
  });

  it('fails on an internal $ref to nothing, which the parser lets pass, naming file, line, JSON path and pointer', async () => {
    const result = failed(await fromText(await fixture('dangling-internal.yaml')));
    expect(result.code).toBe('PARSE_ERROR');
    expect(result.errors).toEqual([
      {
        code: 'INVALID_REFERENCE',
        message:
          'openapi.yaml line 14, at paths./pets.get.responses.200.content.application/json.schema.$ref: the $ref "#/components/schemas/Nope" points to nothing: components.schemas of openapi.yaml has no member "Nope"',
      },
    ]);
    expect(result.errorCount).toBe(1);
  });

  it('unescapes ~1 and ~0 in JSON pointers', async () => {
    const spec = {
      openapi: '3.1.0',
      info: { title: 'Pointers', version: '1' },
      paths: { '/a/b': { get: { responses: { '200': { description: 'ok' } } } }, '/c': { $ref: '#/paths/~1a~1b' } },
      components: { schemas: { Thing: { type: 'object', properties: { 'a~b': { type: 'string' } } }, Z: { $ref: '#/components/schemas/Thing/properties/a~0b' } } },
    };
    succeeded(await fromText(JSON.stringify(spec, null, 2)));
    const broken = { ...spec, components: { schemas: { ...spec.components.schemas, W: { $ref: '#/components/schemas/Thing/properties/a~1b' } } } };
    const result = failed(await fromText(JSON.stringify(broken, null, 2)));
    expect(result.errors).toEqual([
      {
        code: 'INVALID_REFERENCE',
        message:
          'openapi.json line 35, at components.schemas.W.$ref: the $ref "#/components/schemas/Thing/properties/a~1b" points to nothing: components.schemas.Thing.properties of openapi.json has no member "a/b"',
      },
    ]);
  });

  it('fails on a $ref into another file that points to nothing there', async () => {
    const result = failed(await fromUrl('multi/api/dangling-pointer.yaml'));
    expect(result.code).toBe('PARSE_ERROR');
    expect(result.errors).toEqual([
      {
        code: 'INVALID_REFERENCE',
        message:
          'dangling-pointer.yaml line 14, at paths./pets.get.responses.200.content.application/json.schema.$ref: the $ref "./schemas/pet.yaml#/Pets" points to nothing: schemas/pet.yaml has no member "Pets" at its top level',
      },
    ]);
  });

  it('fails a 3.1 document with a schema error, naming the JSON path and line', async () => {
    const result = failed(await fromText(await fixture('schema-error-3.1.yaml')));
    expect(result.code).toBe('PARSE_ERROR');
    expect(result.errors).toEqual([{ code: 'INVALID_SPECIFICATION', message: 'openapi.yaml line 8, at paths./x.get.responses: type must be object' }]);
  });

  it('fails a 3.1 document without info', async () => {
    const result = failed(await fromText('openapi: 3.1.0\npaths: {}\n'));
    expect(result.errors).toEqual([{ code: 'INVALID_SPECIFICATION', message: "openapi.yaml: must have required property 'info'" }]);
  });

  it('refuses JSON that is not an OpenAPI document, other versions and other top levels', async () => {
    const notOpenApi = failed(await fromUrl('not-openapi.json'));
    expect(notOpenApi.code).toBe('PARSE_ERROR');
    expect(notOpenApi.errors[0]!.message).toBe(
      'not-openapi.json: the document is not an OpenAPI specification: it has no "openapi" or "swagger" field (OpenAPI 3.0, OpenAPI 3.1 and Swagger 2.0 are supported)',
    );
    expect(failed(await fromText('openapi: 3.2.0\ninfo: {title: x, version: "1"}\npaths: {}\n')).errors[0]!.message).toBe(
      'openapi.yaml line 1, at openapi: OpenAPI 3.2.0 is not supported (OpenAPI 3.0, OpenAPI 3.1 and Swagger 2.0 are supported)',
    );
    expect(failed(await fromText('openapi: 3.1\ninfo: {title: x, version: "1"}\n')).errors[0]!.message).toMatch(/"openapi" must be a string such as "3\.1\.0".*not a number/);
    expect(failed(await fromText('swagger: "1.2"\n')).errors[0]!.message).toMatch(/^openapi\.yaml line 1, at swagger: Swagger "1\.2" is not supported/);
    expect(failed(await fromText('[1, 2]')).errors[0]!.message).toMatch(/it is a list, not an object/);
    expect(failed(await fromText('just some words')).errors[0]!.message).toMatch(/it is a string, not an object/);
    expect(failed(await fromText('')).errors[0]!.message).toBe('openapi.yaml: the file is empty');
  });

  it('refuses a $ref to another origin, naming the $ref and where it is, without fetching it', async () => {
    const result = failed(await fromUrl('multi/api/other-origin.yaml'));
    expect(result.code).toBe('PARSE_ERROR');
    expect(result.errors).toEqual([
      {
        code: 'EXTERNAL_REFERENCE_REFUSED',
        message: `other-origin.yaml line 14, at paths./pets.get.responses.default.content.application/json.schema.$ref: the $ref "https://schemas.example.com/common.yaml#/Error" names a file on another origin than the specification's (${server.origin}); only files of the same origin are loaded`,
      },
    ]);
  });

  it('refuses external $refs of a specification given as text', async () => {
    const result = failed(await fromText(await fixture('multi/api/openapi.yaml')));
    expect(result.code).toBe('PARSE_ERROR');
    expect(result.errorCount).toBe(4);
    expect(result.errors[0]!.message).toBe(
      'openapi.yaml line 17, at paths./pets.get.responses.200.content.application/json.schema.items.$ref: the $ref "./schemas/pet.yaml#/Pet" names another file, which cannot be resolved for a specification given as text (give its URL instead)',
    );
  });

  it('describes at most 20 problems and counts them all', async () => {
    const schemas = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`S${i}`, { $ref: `#/components/schemas/Missing${i}` }]));
    const result = failed(await fromText(JSON.stringify({ openapi: '3.1.0', info: { title: 'x', version: '1' }, paths: {}, components: { schemas } })));
    expect(result.errors).toHaveLength(20);
    expect(result.errorCount).toBe(25);
    expect(result.errors[19]!.message).toMatch(/Missing19/);
  });

  it('fails a $ref loop that never reaches a value', async () => {
    const result = failed(
      await fromText('openapi: 3.1.0\ninfo: {title: x, version: "1"}\npaths: {}\ncomponents:\n  schemas:\n    A: {$ref: "#/components/schemas/B"}\n    B: {$ref: "#/components/schemas/A"}\n'),
    );
    expect(result.errors).toEqual([
      { code: 'REFERENCE_LOOP', message: 'openapi.yaml line 6, at components.schemas.A.$ref: the $ref "#/components/schemas/B" leads back to itself through 2 reference(s) and never reaches a value' },
    ]);
  });

  it('refuses YAML aliases that expand without end', async () => {
    const bomb = ['openapi: 3.1.0', 'info: {title: x, version: "1"}', 'a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 8; i++) bomb.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10).fill(`*${String.fromCharCode(97 + i)}`).join(', ')}]`);
    const result = failed(await fromText(bomb.join('\n')));
    expect(result.code).toBe('PARSE_ERROR');
    expect(result.errors[0]!.message).toMatch(/^openapi\.yaml: .*alias/i);
  });

  it('does not take a $ref inside an example for a reference', async () => {
    const spec = {
      openapi: '3.1.0',
      info: { title: 'x', version: '1' },
      paths: {},
      components: { schemas: { Schema: { type: 'object', example: { $ref: '#/not/a/reference' }, properties: { example: { $ref: '#/components/schemas/Schema' } } } } },
    };
    succeeded(await fromText(JSON.stringify(spec)));
  });
});

describe('processOpenAPISource: fetch errors and limits', () => {
  it('fails a referenced file that answers 404 with FETCH_ERROR naming the $ref', async () => {
    const result = failed(await fromUrl('multi/api/missing-file.yaml'));
    expect(result.code).toBe('FETCH_ERROR');
    expect(result.errors).toEqual([
      {
        code: 'STATUS',
        message: `Could not fetch schemas/dog.yaml (the $ref "./schemas/dog.yaml#/Dog" in missing-file.yaml line 14, at paths./pets.get.responses.200.content.application/json.schema.$ref): ${new URL(server.origin).host} answered 404`,
      },
    ]);
  });

  it('fails an entry that answers 404 with FETCH_ERROR', async () => {
    const result = failed(await fromUrl('nothing-here.yaml'));
    expect(result).toMatchObject({ code: 'FETCH_ERROR', errorCount: 1 });
    expect(result.errors[0]!.message).toBe(`Could not fetch the specification from ${server.origin}/nothing-here.yaml: ${new URL(server.origin).host} answered 404`);
  });

  it('fails a file larger than maxBytes, naming OPENAPI_MAX_BYTES', async () => {
    const result = failed(await fromUrl('swagger-petstore.yaml', { maxBytes: 500 }));
    expect(result.code).toBe('FETCH_ERROR');
    expect(result.errors[0]).toMatchObject({ code: 'TOO_LARGE' });
    expect(result.errors[0]!.message).toMatch(/larger than the 500 bytes allowed \(OPENAPI_MAX_BYTES\)$/);
  });

  it('fails files that are each small enough but together larger than maxBytes', async () => {
    // The largest file of the multi-file fixture is its entry, under 1200 bytes; all four are over 1500.
    const result = failed(await fromUrl('multi/api/openapi.yaml', { maxBytes: 1_500 }));
    expect(result.code).toBe('FETCH_ERROR');
    expect(result.errors[0]!.message).toMatch(/the specification's files together are larger than the 1500 bytes allowed \(OPENAPI_MAX_BYTES\)/i);
  });

  it('fails a text larger than maxBytes as a PARSE_ERROR', async () => {
    const result = failed(await fromText(await fixture('swagger-petstore.yaml'), { maxBytes: 500 }));
    expect(result.code).toBe('PARSE_ERROR');
    expect(result.errors[0]!.message).toMatch(/^The specification is \d+ bytes, more than the 500 allowed \(OPENAPI_MAX_BYTES\)$/);
  });

  it('fails a specification referencing more files than maxFiles', async () => {
    const result = failed(await fromUrl('multi/api/openapi.yaml', { maxFiles: 2 }));
    expect(result.code).toBe('FETCH_ERROR');
    expect(result.errors[0]).toMatchObject({ code: 'TOO_MANY_FILES' });
    expect(result.errors[0]!.message).toMatch(/^The specification references more files than the 2 loaded at most/);
    expect(succeeded(await fromUrl('multi/api/openapi.yaml', { maxFiles: 4 })).files).toHaveLength(4);
  });

  it('fails with FETCH_TIMEOUT when the server never answers', async () => {
    const result = failed(await fromUrl('hang', { timeoutMs: 300 }));
    expect(result.code).toBe('FETCH_TIMEOUT');
    expect(result.errors[0]!.message).toBe(`Fetching the specification's files took longer than the 300 ms allowed (the specification from ${server.origin}/hang was not loaded)`);
  });

  it('holds referenced files to the same deadline', async () => {
    const result = failed(await fromUrl('multi/api/hanging-ref.yaml', { timeoutMs: 300 }));
    expect(result.code).toBe('FETCH_TIMEOUT');
    expect(result.errors[0]!.message).toMatch(/^Fetching the specification's files took longer than the 300 ms allowed \(\.\.\/\.\.\/hang \(the \$ref "http:.*\/hang#\/Error" in hanging-ref\.yaml line 14, at paths\./);
  });

  it('refuses a private address unless allowed, naming FETCH_ALLOW_PRIVATE_ADDRESSES', async () => {
    const result = failed(await fromUrl('swagger-petstore.yaml', { allowPrivateAddresses: false }));
    expect(result.code).toBe('FETCH_ERROR');
    expect(result.errors[0]).toMatchObject({ code: 'ADDRESS' });
    expect(result.errors[0]!.message).toMatch(/non-public address \(loopback\).*FETCH_ALLOW_PRIVATE_ADDRESSES=true/);
  });

  it('rejects with the reason of an aborted signal', async () => {
    const controller = new AbortController();
    const processing = fromUrl('hang', { signal: controller.signal });
    controller.abort(new Error('job cancelled'));
    await expect(processing).rejects.toThrow('job cancelled');
  });
});
