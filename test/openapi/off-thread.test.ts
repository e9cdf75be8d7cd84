/**
 * Processing on the worker pool (processOpenAPISourceOffThread): the
 * analysis runs as a task of src/openapi/openapi-worker.ts (TypeScript
 * threads under vitest), fetching stays on the test's thread, and the
 * answers are those of the same-thread processing.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processOpenAPISource, processOpenAPISourceOffThread, type OpenAPIProcessingOptions } from '../../src/openapi/process-source.ts';
import { createWorkerPool, type WorkerPool } from '../../src/worker-pool.ts';
import { FIXTURES, GITBOOK_API_SPEC, startSpecServer, type SpecServer } from './spec-server.ts';

const OPTIONS: OpenAPIProcessingOptions = { maxBytes: 10_485_760, timeoutMs: 10_000, maxFiles: 50, allowPrivateAddresses: true };

let server: SpecServer;
let workers: WorkerPool;
beforeAll(async () => {
  server = await startSpecServer();
  workers = createWorkerPool({ threads: 1, maxQueue: 4, taskTimeoutMs: 60_000 });
});
afterAll(async () => {
  await workers.close();
  await server.close();
});

describe('processOpenAPISourceOffThread', () => {
  it('processes the @gitbook/api document on a worker thread', async () => {
    const result = await processOpenAPISourceOffThread(workers, { url: `${server.origin}/gitbook/openapi.json` }, OPTIONS);
    expect(workers.threads).toBe(1);
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('; '));
    expect(result).toMatchObject({ version: '3.0', title: 'GitBook API' });
    expect(result.files).toEqual([{ path: 'openapi.json', text: await readFile(GITBOOK_API_SPEC, 'utf8'), isEntrypoint: true, references: [] }]);
  });

  it('answers as the same-thread processing does, for a multi-file spec and for a broken one', async () => {
    for (const path of ['multi/api/openapi.yaml', 'multi/api/dangling-pointer.yaml']) {
      const source = { url: `${server.origin}/${path}` };
      expect(await processOpenAPISourceOffThread(workers, source, OPTIONS)).toEqual(await processOpenAPISource(source, OPTIONS));
    }
    const text = await readFile(`${FIXTURES}dangling-internal.yaml`, 'utf8');
    const result = await processOpenAPISourceOffThread(workers, { text }, OPTIONS);
    expect(result).toEqual(await processOpenAPISource({ text }, OPTIONS));
    expect(result).toMatchObject({ ok: false, code: 'PARSE_ERROR', errorCount: 1 });
  });

  it('fails an analysis past its deadline as a PARSE_ERROR naming the setting', async () => {
    const result = await processOpenAPISourceOffThread(workers, { url: `${server.origin}/gitbook/openapi.json` }, { ...OPTIONS, taskTimeoutMs: 20, taskTimeoutSetting: 'OPENAPI_PROCESSING_TIMEOUT_MS' });
    expect(result).toEqual({
      ok: false,
      code: 'PARSE_ERROR',
      errors: [{ code: 'PROCESSING_TIMEOUT', message: 'Checking the OpenAPI specification took longer than 20 ms (OPENAPI_PROCESSING_TIMEOUT_MS)' }],
      errorCount: 1,
    });
  });
});
