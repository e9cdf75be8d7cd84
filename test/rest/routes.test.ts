/**
 * The REST route table against the endpoint list of the spec, and the
 * generated files against their sources: a stale `npm run codegen` fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '@graphql-codegen/cli';
import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationIdOf } from '../helpers/rest-fixture.ts';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { schema } from '../../src/schema/index.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The endpoints to serve, copied into the repository from the product specification (spec/README.md). */
const endpoints = JSON.parse(fs.readFileSync(path.join(root, 'spec/endpoints.json'), 'utf8')) as Array<{
  group: string;
  method: string;
  path: string;
  operationId: string;
}>;

/** How many endpoints of spec/endpoints.json the route table serves. */
const SERVED_ENDPOINTS = 208;

describe('route table', () => {
  it('serves only endpoints of endpoints.json, with their exact paths', () => {
    const known = new Set(endpoints.map((e) => `${e.method} ${e.path}`));
    const unknown = restRoutes.filter((r) => !known.has(`${r.method} ${r.path}`)).map((r) => `${r.method} ${r.path}`);
    expect(unknown).toEqual([]);
  });

  it('reports coverage per group', () => {
    const served = new Set(restRoutes.map((r) => `${r.method} ${r.path}`));
    const groups = new Map<string, { served: number; total: number }>();
    for (const e of endpoints) {
      const g = groups.get(e.group) ?? { served: 0, total: 0 };
      g.total += 1;
      if (served.has(`${e.method} ${e.path}`)) g.served += 1;
      groups.set(e.group, g);
    }
    const lines = [...groups].map(([name, g]) => `${String(g.served).padStart(3)}/${String(g.total).padEnd(3)} ${name}`);
    console.log(`REST coverage: ${served.size}/${endpoints.length} endpoints\n${lines.join('\n')}`);
    // Exactly the routes generated from src/rest/operations/: a new endpoint changes this number on purpose.
    expect(served.size).toBe(SERVED_ENDPOINTS);
  });

  it("names each operation after its endpoint's operationId: operation in PascalCase, file in kebab-case", () => {
    const pascal = (id: string) => id[0]!.toUpperCase() + id.slice(1);
    const kebab = (id: string) => id.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2').toLowerCase();
    const misnamed = restRoutes.flatMap((route) => {
      const operationId = operationIdOf(route);
      const file = `${kebab(operationId)}.graphql`;
      return route.operationName === pascal(operationId) && path.basename(route.file ?? '') === file
        ? []
        : [`${route.file} (${route.operationName}): should be ${file} (${pascal(operationId)})`];
    });
    expect(misnamed).toEqual([]);
    expect(kebab('getChangeRequestPDF')).toBe('get-change-request-pdf');
  });

  it('has no two routes on the same method and path', () => {
    const keys = restRoutes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('generated files', () => {
  it('schema.graphql is the printed Pothos schema', () => {
    expect(fs.readFileSync(path.join(root, 'schema.graphql'), 'utf8')).toBe(printSchema(schema));
  });

  it('src/rest/generated/ matches the operation documents (run `npm run codegen`)', async () => {
    const { default: config } = await import('../../codegen.ts');
    const outputs = await generate({ ...config, cwd: root, silent: true }, false);
    const files = (outputs as Array<{ filename: string; content: string }>).map((output) => {
      const file = path.isAbsolute(output.filename) ? output.filename : path.join(root, output.filename);
      expect(fs.readFileSync(file, 'utf8'), `${output.filename} is stale: run npm run codegen`).toBe(output.content);
      return file;
    });
    // Nothing else lives there: a file codegen no longer writes is deleted, not left stale.
    const generatedDir = path.join(root, 'src/rest/generated');
    expect(fs.readdirSync(generatedDir).map((f) => path.join(generatedDir, f)).sort()).toEqual(files.sort());
  }, 60_000);
});
