/**
 * What processing a large specification costs: time, peak RSS and heap
 * after a run, and the longest the event loop was held, for @gitbook/api's
 * OpenAPI documents (1.2 MB JSON 3.0, 1.7 MB JSON 3.1, and the first as
 * YAML), on the caller's thread and on the worker pool. Each case runs in a
 * process of its own, so that its peak RSS is its own.
 *
 *   npx tsx test/openapi/measure-processing.ts
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { stringify } from 'yaml';
import { processOpenAPISource, processOpenAPISourceOffThread, type OpenAPIProcessingOptions, type OpenAPISource } from '../../src/openapi/process-source.ts';
import { createWorkerPool } from '../../src/worker-pool.ts';
import { GITBOOK_API_NEXT_SPEC, GITBOOK_API_SPEC, startSpecServer } from './spec-server.ts';

const OPTIONS: OpenAPIProcessingOptions = { maxBytes: 10_485_760, timeoutMs: 30_000, maxFiles: 50, allowPrivateAddresses: true };
const CASES = ['text-3.0', 'url-3.0', 'text-3.1', 'yaml-3.0', 'pool-url-3.0', 'pool-text-3.1'] as const;
type Case = (typeof CASES)[number];
const RUNS = 5;

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

async function measure(name: Case): Promise<string> {
  const server = await startSpecServer();
  const pool = name.startsWith('pool-') ? createWorkerPool({ threads: 1, maxQueue: 4, taskTimeoutMs: 60_000 }) : null;
  try {
    const json30 = await readFile(GITBOOK_API_SPEC, 'utf8');
    const source: OpenAPISource = name.endsWith('url-3.0')
      ? { url: `${server.origin}/gitbook/openapi.json` }
      : name.endsWith('3.1')
        ? { text: await readFile(GITBOOK_API_NEXT_SPEC, 'utf8') }
        : name === 'yaml-3.0'
          ? { text: stringify(JSON.parse(json30)) }
          : { text: json30 };
    const size = 'text' in source ? Buffer.byteLength(source.text) : Buffer.byteLength(json30);
    const run = () => (pool ? processOpenAPISourceOffThread(pool, source, OPTIONS) : processOpenAPISource(source, OPTIONS));

    const before = process.memoryUsage();
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const times: number[] = [];
    let heapAfterFirst = 0;
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const result = await run();
      times.push(performance.now() - started);
      if (i === 0) heapAfterFirst = process.memoryUsage().heapUsed;
      if (!result.ok) throw new Error(`${name}: ${result.code} ${result.errors[0]?.message}`);
      // A turn of the loop between runs, so that the delay monitor sees each run's hold.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    delay.disable();
    const peakRss = process.resourceUsage().maxRSS * 1024;
    const sorted = [...times].sort((a, b) => a - b);
    return [
      name.padEnd(14),
      `${(size / 1024 / 1024).toFixed(2)} MB`,
      `first ${times[0]!.toFixed(0)} ms`,
      `median ${sorted[Math.floor(RUNS / 2)]!.toFixed(0)} ms`,
      `peak RSS ${mb(peakRss)} MB (+${mb(peakRss - before.rss)} MB over the RSS before the first run)`,
      `caller's heap +${mb(heapAfterFirst - before.heapUsed)} MB after the first run`,
      `event loop held up to ${(delay.max / 1e6).toFixed(0)} ms`,
    ].join(' | ');
  } finally {
    await pool?.close();
    await server.close();
  }
}

const name = process.argv[2] as Case | undefined;
if (name) {
  console.log(await measure(name));
} else {
  const self = fileURLToPath(import.meta.url);
  console.log(`node ${process.version}, ${RUNS} runs per case, ${new Date().toISOString()}`);
  for (const each of CASES) {
    process.stdout.write(execFileSync(process.execPath, ['--import', 'tsx', self, each], { encoding: 'utf8' }));
  }
}
