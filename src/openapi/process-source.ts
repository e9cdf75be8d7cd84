/**
 * Processing an organization's OpenAPI specification: its source (a URL, or
 * the text itself) to the files it is made of, or to the errors that stop
 * it, as GitBook reports them (FETCH_TIMEOUT, FETCH_ERROR, PARSE_ERROR).
 *
 * Fetching stays on the caller's thread, through the SSRF-safe
 * `fetchRemoteFile` (private addresses, sizes, redirects); the CPU part
 * (./analysis.ts) runs on the same thread (`processOpenAPISource`) or on the
 * worker pool (`processOpenAPISourceOffThread`). The two take turns: the
 * analysis names the files the `$ref`s of the loaded ones need, they are
 * fetched, and it runs again on all of them, until nothing is missing.
 *
 * External `$ref`s are followed only to files of the entry URL's origin,
 * resolved against the URL asked for (fetchRemoteFile follows redirects
 * without telling where they ended),
 * under one deadline (the time spent fetching, not analyzing) and one
 * size budget for all files. A specification
 * given as text references no other file at all: a relative `$ref` has
 * nothing to be relative to, and an absolute one no origin to be held to
 * (fetching any URL a text names would let it reach any host).
 *
 * Every failure to fetch a file, the entry's or a referenced one (a 404
 * included), is a FETCH_ERROR (FETCH_TIMEOUT past the deadline), naming the
 * `$ref` that wanted it; what the fetched files say is a PARSE_ERROR.
 */
import { RemoteFetchError } from '../errors/external.ts';
import { LimitExceededError } from '../errors/index.ts';
import { fetchRemoteFile, untilAborted } from '../storage/remote-fetch.ts';
import { taskRef, workerModule, type WorkerPool } from '../worker-pool.ts';
import { analyzeSpecification, entryFileName, MAX_PROBLEMS, type AnalysisFile, type AnalysisInput, type AnalysisOutput } from './analysis.ts';
import type { analyzeSpecificationTask } from './openapi-worker.ts';
import { parseSpecificationText } from './parse.ts';

export type OpenAPISource = { url: string } | { text: string };

export interface OpenAPIProcessingOptions {
  /** Largest document (each fetched file, and the text), and the sum of all files, in bytes (OPENAPI_MAX_BYTES, default 10 MiB = 10_485_760). */
  maxBytes: number;
  /** Time for all fetches together, ms. */
  timeoutMs: number;
  /** Most files loaded (entry + external $refs), e.g. 50. */
  maxFiles: number;
  allowPrivateAddresses: boolean;
  /** For tests, like RemoteFetchOptions.isAllowedAddress in src/storage/remote-fetch.ts. */
  isAllowedAddress?: (address: string) => boolean;
  /** Stops processing (a cancelled job): the promise rejects with its reason. A fetch under way is left to its deadline. */
  signal?: AbortSignal;
}

export interface OpenAPIFile {
  /** Path of the file relative to the entry file's directory ('openapi.yaml', 'schemas/pet.yaml', '../common.yaml'); the entry first. */
  path: string;
  /** The file's text exactly as received (stored content-addressed by the caller). */
  text: string;
  isEntrypoint: boolean;
  /** Paths (same convention) of the files this one references. */
  references: string[];
}

export type OpenAPIErrorCode = 'FETCH_TIMEOUT' | 'FETCH_ERROR' | 'PARSE_ERROR';

/** One problem; the message names file, line and JSON path where known. */
export interface OpenAPIProblem {
  message: string;
  code?: string;
}

export type OpenAPIProcessingResult =
  | { ok: true; files: OpenAPIFile[]; version: '2.0' | '3.0' | '3.1'; title?: string }
  /** `errors` holds at most 20 problems (./analysis.ts's MAX_PROBLEMS); `errorCount` counts them all. */
  | { ok: false; code: OpenAPIErrorCode; errors: OpenAPIProblem[]; errorCount: number };

/** How the analysis runs: here, or on a worker thread. */
type Analyze = (input: AnalysisInput) => Promise<AnalysisOutput>;

/** Fetches at once at most, per round of referenced files. */
const FETCH_CONCURRENCY = 4;

function failure(code: OpenAPIErrorCode, errors: OpenAPIProblem[]): OpenAPIProcessingResult {
  return { ok: false, code, errors, errorCount: errors.length };
}

type Fetched = { ok: true; text: string; bytes: number } | { ok: false; code: OpenAPIErrorCode; problem: OpenAPIProblem };

/** What `processWith` shares between the fetches of one processing. */
interface Budget {
  options: OpenAPIProcessingOptions;
  /** Time the finished rounds of fetches took (the analyses between them do not count against options.timeoutMs). */
  spentMs: number;
  /** When the round of fetches under way started. */
  roundStartedAt: number;
  /** Bytes already loaded, of options.maxBytes for all files. */
  usedBytes: number;
}

/** One file, under what is left of the deadline and the size budget; `what` names it in a failure's message. */
async function fetchText(url: string, what: string, budget: Budget): Promise<Fetched> {
  const { options } = budget;
  const timedOut = (): Fetched => ({
    ok: false,
    code: 'FETCH_TIMEOUT',
    problem: { message: `Fetching the specification's files took longer than the ${options.timeoutMs} ms allowed (${what} was not loaded)`, code: 'TIMEOUT' },
  });
  const remainingMs = options.timeoutMs - budget.spentMs - (Date.now() - budget.roundStartedAt);
  if (remainingMs <= 0) return timedOut();
  const remainingBytes = options.maxBytes - budget.usedBytes;
  const maxBytes = Math.min(options.maxBytes, remainingBytes);
  let bytes: Uint8Array;
  try {
    const file = await untilAborted(
      fetchRemoteFile(url, { allowPrivateAddresses: options.allowPrivateAddresses, isAllowedAddress: options.isAllowedAddress, maxBytes, timeoutMs: remainingMs }),
      options.signal,
    );
    bytes = file.bytes;
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (!(error instanceof RemoteFetchError)) throw error;
    if (error.reason === 'timeout') return timedOut();
    const reason =
      error.reason === 'too-large'
        ? maxBytes < options.maxBytes
          ? `the specification's files together are larger than the ${options.maxBytes} bytes allowed (OPENAPI_MAX_BYTES)`
          : `${error.message} (OPENAPI_MAX_BYTES)`
        : error.message;
    return { ok: false, code: 'FETCH_ERROR', problem: { message: `Could not fetch ${what}: ${reason}`, code: error.reason.toUpperCase().replace(/-/g, '_') } };
  }
  try {
    // ignoreBOM: the text is kept as received; the parser skips a BOM itself.
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes), bytes: bytes.byteLength };
  } catch {
    return { ok: false, code: 'PARSE_ERROR', problem: { message: `${what} is not UTF-8 text`, code: 'SYNTAX_ERROR' } };
  }
}

/** Runs `tasks` with at most `limit` under way, answers in their order. */
async function inTurns<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
  return results;
}

/** The processing, with the analysis run by `analyze`. */
async function processWith(source: OpenAPISource, options: OpenAPIProcessingOptions, analyze: Analyze): Promise<OpenAPIProcessingResult> {
  options.signal?.throwIfAborted();
  const budget: Budget = { options, spentMs: 0, roundStartedAt: Date.now(), usedBytes: 0 };
  /** Runs a round of fetches, counting its time against the deadline. */
  const fetching = async <T>(round: () => Promise<T>): Promise<T> => {
    budget.roundStartedAt = Date.now();
    try {
      return await round();
    } finally {
      budget.spentMs += Date.now() - budget.roundStartedAt;
    }
  };
  const files: AnalysisFile[] = [];

  if ('text' in source) {
    const bytes = Buffer.byteLength(source.text);
    if (bytes > options.maxBytes) {
      return failure('PARSE_ERROR', [{ message: `The specification is ${bytes} bytes, more than the ${options.maxBytes} allowed (OPENAPI_MAX_BYTES)`, code: 'TOO_LARGE' }]);
    }
    budget.usedBytes = bytes;
    files.push({ path: entryFileName(source, source.text), url: null, text: source.text });
  } else {
    const entry = await fetching(() => fetchText(source.url, `the specification from ${source.url}`, budget));
    if (!entry.ok) return failure(entry.code, [entry.problem]);
    budget.usedBytes = entry.bytes;
    files.push({ path: entryFileName(source, entry.text), url: source.url, text: entry.text });
  }

  // Each round loads at least one new file, so maxFiles ends the loop.
  for (;;) {
    const output = await analyze({ files });
    options.signal?.throwIfAborted();
    if (output.kind === 'invalid') return { ok: false, code: 'PARSE_ERROR', errors: output.problems, errorCount: output.problemCount };
    if (output.kind === 'valid') {
      return {
        ok: true,
        // In the order given: the analysis answers every file, in order.
        files: output.files.map((file, index) => ({ path: file.path, text: files[index]!.text, isEntrypoint: index === 0, references: file.references })),
        version: output.version,
        ...(output.title !== undefined ? { title: output.title } : {}),
      };
    }

    const { targets } = output;
    if (files.length + targets.length > options.maxFiles) {
      return failure('FETCH_ERROR', [
        {
          message: `The specification references more files than the ${options.maxFiles} loaded at most (entry included); ${files.length} are loaded and ${targets.length} more are referenced, the first by ${targets[0]!.referencedBy}`,
          code: 'TOO_MANY_FILES',
        },
      ]);
    }
    const fetched = await fetching(() =>
      inTurns(
        targets.map((target) => () => fetchText(target.url, `${target.path} (${target.referencedBy})`, budget)),
        FETCH_CONCURRENCY,
      ),
    );
    const failed = fetched.flatMap((result) => (result.ok ? [] : [result]));
    if (failed.length > 0) {
      // Past the deadline every other failure is moot; otherwise a fetch failure outranks a file that is not text.
      const code = failed.some((result) => result.code === 'FETCH_TIMEOUT') ? 'FETCH_TIMEOUT' : failed.some((result) => result.code === 'FETCH_ERROR') ? 'FETCH_ERROR' : 'PARSE_ERROR';
      const problems = failed.filter((result) => result.code === code).map((result) => result.problem);
      return { ok: false, code, errors: problems.slice(0, MAX_PROBLEMS), errorCount: problems.length };
    }
    targets.forEach((target, index) => {
      const result = fetched[index] as Extract<Fetched, { ok: true }>;
      budget.usedBytes += result.bytes;
      files.push({ path: target.path, url: target.url, text: result.text });
    });
    // Fetched side by side, each within what was left before the round: together they may pass it.
    if (budget.usedBytes > options.maxBytes) {
      return failure('FETCH_ERROR', [{ message: `The specification's files together are larger than the ${options.maxBytes} bytes allowed (OPENAPI_MAX_BYTES)`, code: 'TOO_LARGE' }]);
    }
  }
}

/** Processes `source` with the analysis on the caller's thread (tests, and callers without a worker pool). */
export function processOpenAPISource(source: OpenAPISource, options: OpenAPIProcessingOptions): Promise<OpenAPIProcessingResult> {
  return processWith(source, options, analyzeSpecification);
}

const ANALYZE = taskRef<typeof analyzeSpecificationTask>(workerModule(import.meta.url, 'openapi-worker'), 'analyzeSpecificationTask');

export interface OffThreadProcessingOptions extends OpenAPIProcessingOptions {
  /** Deadline of each analysis task, and the setting naming it; by default the pool's (WORKER_TASK_TIMEOUT_MS). */
  taskTimeoutMs?: number;
  taskTimeoutSetting?: string;
}

/**
 * Processes `source` with the analysis on `workers`; fetching stays here. An
 * analysis past its deadline is a PARSE_ERROR naming the setting; a full
 * queue (ServiceUnavailableError) and a cancellation reject, for the job to
 * try again or stop.
 */
export function processOpenAPISourceOffThread(workers: WorkerPool, source: OpenAPISource, options: OffThreadProcessingOptions): Promise<OpenAPIProcessingResult> {
  return processWith(source, options, async (input) => {
    try {
      return await workers.run(ANALYZE, input, {
        what: 'Checking the OpenAPI specification',
        timeoutMs: options.taskTimeoutMs,
        timeoutSetting: options.taskTimeoutSetting,
        signal: options.signal,
      });
    } catch (error) {
      if (!(error instanceof LimitExceededError)) throw error;
      return { kind: 'invalid', problems: [{ message: error.message, code: 'PROCESSING_TIMEOUT' }], problemCount: 1 };
    }
  });
}

/** A file of a version's filesystem, as @scalar/openapi-parser's FilesystemEntry. */
export interface OpenAPIFilesystemEntry {
  /** The file's directory relative to the entry's, with a trailing slash: './', './schemas/', '../shared/'. */
  dir: string;
  /** The file's name in `dir`. */
  filename: string;
  isEntrypoint: boolean;
  references: string[];
  /** The parsed file. */
  specification: object;
}

/**
 * A version's `filesystem` as the API answers it: the stored files parsed,
 * keyed by path, the entry first (`Object.values` of it is @scalar's
 * Filesystem). The files are those processing accepted; one that no longer
 * parses is a corrupted store, thrown as a bug. A JSON file is read with
 * JSON.parse (milliseconds for 1 MB); a large YAML one costs a YAML parse.
 */
export function openAPIFilesystem(files: readonly Pick<OpenAPIFile, 'path' | 'text' | 'isEntrypoint' | 'references'>[]): Record<string, OpenAPIFilesystemEntry> {
  const ordered = [...files.filter((file) => file.isEntrypoint), ...files.filter((file) => !file.isEntrypoint)];
  const filesystem: Record<string, OpenAPIFilesystemEntry> = {};
  for (const file of ordered) {
    const outcome = parseSpecificationText(file.text);
    if (!outcome.ok || typeof outcome.parsed.value !== 'object' || outcome.parsed.value === null) {
      throw new Error(`The stored OpenAPI file ${file.path} is not a JSON or YAML object`);
    }
    const slash = file.path.lastIndexOf('/');
    const directory = file.path.slice(0, slash + 1);
    const entry: OpenAPIFilesystemEntry = {
      dir: directory.startsWith('../') ? directory : `./${directory}`,
      filename: file.path.slice(slash + 1),
      isEntrypoint: file.isEntrypoint,
      references: [...file.references],
      specification: outcome.parsed.value,
    };
    // defineProperty: a file named `__proto__` is a key like any other.
    Object.defineProperty(filesystem, file.path, { value: entry, enumerable: true, writable: true, configurable: true });
  }
  return filesystem;
}
