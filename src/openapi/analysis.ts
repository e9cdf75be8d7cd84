/**
 * The CPU part of processing a specification: parse the files fetched so
 * far, find the files their `$ref`s name that are not loaded yet (or refuse
 * them), and, once every file is loaded, check the version, validate the
 * entry against the OpenAPI schema (@scalar/openapi-parser) and check every
 * `$ref` of every file. Pure and synchronous in effect, so that it runs the
 * same on the caller's thread or as a worker task (./openapi-worker.ts);
 * ./process-source.ts fetches and calls it until it stops asking for files.
 *
 * Every problem names its file, line and JSON path where known. Problems are
 * counted in full but only the first MAX_PROBLEMS are described (the lines
 * of the rest are never looked for).
 */
import { posix } from 'node:path';
import { validate } from '@scalar/openapi-parser';
import type { ValuePath } from './json-locator.ts';
import { parseSpecificationText, type ParsedText, type Position } from './parse.ts';
import { collectReferences, resolveFragment, splitReference, type FileReferences, type RefSite } from './references.ts';

/** Problems described at most; the count covers them all. */
export const MAX_PROBLEMS = 20;

export type OpenAPIVersion = '2.0' | '3.0' | '3.1';

export interface AnalysisFile {
  /** Relative to the entry's directory (the entry's own name for the entry). */
  path: string;
  /** Where it was fetched from; null for a specification given as text (the entry only). */
  url: string | null;
  text: string;
}

export interface AnalysisInput {
  /** The files loaded so far, the entry first. */
  files: AnalysisFile[];
}

/** A file to fetch, and the first `$ref` that names it (for a failure's message). */
export interface LoadTarget {
  url: string;
  path: string;
  referencedBy: string;
}

export interface Problem {
  message: string;
  code: string;
}

export type AnalysisOutput =
  | { kind: 'load'; targets: LoadTarget[] }
  | { kind: 'valid'; files: { path: string; references: string[] }[]; version: OpenAPIVersion; title?: string }
  | { kind: 'invalid'; problems: Problem[]; problemCount: number };

/** A problem before its place is written: the file, and the JSON path whose line it names. */
interface PendingProblem {
  file: number;
  path: ValuePath | null;
  /** The problem itself; `where` is the file, line and JSON path. */
  describe: (where: string) => string;
  code: string;
}

interface LoadedFile {
  source: AnalysisFile;
  parsed: ParsedText;
  references: FileReferences;
}

/** A JSON path as problems write it: `paths./pets.get.responses`. */
export function dottedPath(path: ValuePath): string {
  return path.join('.');
}

function place(file: string, position: Position | null, path: ValuePath | null): string {
  const line = position ? ` line ${position.line}` : '';
  return path && path.length > 0 ? `${file}${line}, at ${dottedPath(path)}` : `${file}${line}`;
}

/** The name of the entry file: the last segment of its URL, or `openapi.json`/`openapi.yaml` by its first character. */
export function entryFileName(source: { url: string } | { text: string }, text: string): string {
  if ('url' in source) {
    const name = new URL(source.url).pathname.split('/').at(-1);
    if (name) return decodeSegment(name);
  }
  return /^\s*[{[]/.test(text) ? 'openapi.json' : 'openapi.yaml';
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The path of the file at `url` relative to the directory of the entry at `entryUrl` (same origin): `schemas/pet.yaml`, `../shared/errors.yaml`. */
export function relativeFilePath(entryUrl: URL, url: URL): string {
  const directory = entryUrl.pathname.slice(0, entryUrl.pathname.lastIndexOf('/') + 1);
  const relative = posix.relative(decodeSegment(directory), decodeSegment(url.pathname));
  return `${relative || posix.basename(decodeSegment(url.pathname))}${url.search}`;
}

function withoutHash(url: URL): string {
  const copy = new URL(url);
  copy.hash = '';
  return copy.href;
}

/** The describing text of the first `limit` problems, with the lines looked up once per file. */
function describeProblems(files: LoadedFile[], pending: PendingProblem[], limit = MAX_PROBLEMS): Problem[] {
  const shown = pending.slice(0, limit);
  const positions = new Map<PendingProblem, Position | null>();
  const byFile = new Map<number, PendingProblem[]>();
  for (const problem of shown) {
    // The top level has no line worth naming (it would be line 1).
    if (problem.path === null || problem.path.length === 0) continue;
    const list = byFile.get(problem.file) ?? [];
    list.push(problem);
    byFile.set(problem.file, list);
  }
  for (const [file, problems] of byFile) {
    const found = files[file]!.parsed.locate(problems.map((problem) => problem.path!));
    problems.forEach((problem, index) => positions.set(problem, found[index] ?? null));
  }
  return shown.map((problem) => ({
    message: problem.describe(place(files[problem.file]!.source.path, positions.get(problem) ?? null, problem.path)),
    code: problem.code,
  }));
}

function invalid(files: LoadedFile[], pending: PendingProblem[]): AnalysisOutput {
  return {
    kind: 'invalid',
    problems: describeProblems(files, pending),
    problemCount: pending.length,
  };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The specification version of the entry's value, or why it is not a specification this service reads. */
function specificationVersion(value: unknown): { version: OpenAPIVersion } | { problem: string; path: string[] } {
  const supported = 'OpenAPI 3.0, OpenAPI 3.1 and Swagger 2.0 are supported';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problem: `the document is not an OpenAPI specification: it is ${typeName(value)}, not an object with an "openapi" or "swagger" field`, path: [] };
  }
  const { openapi, swagger } = value as Record<string, unknown>;
  if (openapi !== undefined) {
    if (typeof openapi !== 'string') return { problem: `"openapi" must be a string such as "3.1.0" (quoted in YAML), not ${typeName(openapi)}`, path: ['openapi'] };
    if (/^3\.0(\.|$)/.test(openapi)) return { version: '3.0' };
    if (/^3\.1(\.|$)/.test(openapi)) return { version: '3.1' };
    return { problem: `OpenAPI ${openapi} is not supported (${supported})`, path: ['openapi'] };
  }
  if (swagger !== undefined) {
    if (swagger === '2.0') return { version: '2.0' };
    return { problem: `Swagger ${JSON.stringify(swagger)} is not supported (${supported}; Swagger's version is the string "2.0")`, path: ['swagger'] };
  }
  return { problem: `the document is not an OpenAPI specification: it has no "openapi" or "swagger" field (${supported})`, path: [] };
}

/** The path of a JSON pointer of @scalar's (ajv's instancePath): `/paths/~1pets/get` to `paths`, `/pets`, `get`. */
function pointerSegments(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** @scalar's reference errors: every `$ref` is checked here instead (./references.ts says why). */
const SCALAR_REFERENCE_CODES = new Set(['INVALID_REFERENCE', 'EXTERNAL_REFERENCE_NOT_FOUND', 'SELF_REFERENCE']);
/** ajv's note that an `if` branch failed: the branch's own errors, reported beside it, say what. */
const BRANCH_NOTE = /^if must match "(then|else)" schema$/;

/** The entry validated against its version's OpenAPI schema. */
async function schemaProblems(entry: unknown): Promise<PendingProblem[]> {
  let result: Awaited<ReturnType<typeof validate>>;
  try {
    // It writes a missing info.version into what it checks: the references are checked before.
    result = await validate(entry as Record<string, unknown>);
  } catch (error) {
    // Nesting deeper than the validator's recursion goes; anything else is a bug.
    if (!(error instanceof RangeError)) throw error;
    return [{ file: 0, path: null, code: 'TOO_DEEP', describe: (where) => `${where}: the document is nested too deeply to be validated` }];
  }
  const errors = (result.errors ?? []).filter((error) => !SCALAR_REFERENCE_CODES.has(error.code ?? ''));
  const meaningful = errors.filter((error) => !BRANCH_NOTE.test(error.message));
  return (meaningful.length > 0 ? meaningful : errors).map((error) => {
    const raw = (error as { path?: unknown }).path;
    const path = typeof raw === 'string' ? pointerSegments(raw) : Array.isArray(raw) ? raw.map(String) : null;
    return { file: 0, path, code: 'INVALID_SPECIFICATION', describe: (where: string) => `${where}: ${error.message}` };
  });
}

/**
 * Analyzes the files loaded so far: asks for the files their `$ref`s name
 * (`load`), or judges the specification (`valid` / `invalid`).
 */
export async function analyzeSpecification(input: AnalysisInput): Promise<AnalysisOutput> {
  const sources = input.files;
  const entrySource = sources[0]!;

  // 1. Every file parses.
  const syntax: Problem[] = [];
  const loaded: LoadedFile[] = [];
  for (const source of sources) {
    const outcome = parseSpecificationText(source.text);
    if (!outcome.ok) {
      for (const problem of outcome.problems) {
        const at = problem.position ? ` line ${problem.position.line}, column ${problem.position.column}` : '';
        syntax.push({ message: `${source.path}${at}: ${problem.message}`, code: 'SYNTAX_ERROR' });
      }
      continue;
    }
    const { value } = outcome.parsed;
    if (value === null || value === undefined) {
      syntax.push({ message: `${source.path}: the file is empty`, code: 'SYNTAX_ERROR' });
      continue;
    }
    // The entry's top level is judged with its version (step 3), which says more.
    if (source !== entrySource && typeof value !== 'object') {
      syntax.push({ message: `${source.path}: the file holds ${typeName(value)}, not an object or a list`, code: 'SYNTAX_ERROR' });
      continue;
    }
    loaded.push({ source, parsed: outcome.parsed, references: collectReferences(outcome.parsed.value) });
  }
  if (syntax.length > 0) return { kind: 'invalid', problems: syntax.slice(0, MAX_PROBLEMS), problemCount: syntax.length };

  // 2. Every file a `$ref` names is one we may load, and is loaded.
  const entryUrl = entrySource.url === null ? null : new URL(entrySource.url);
  const fileByUrl = new Map(loaded.map((file, index) => [file.source.url === null ? null : withoutHash(new URL(file.source.url)), index]));
  const problems: PendingProblem[] = [];
  const targets = new Map<string, { path: string; file: number; site: RefSite }>();
  const references = loaded.map(() => new Set<string>());
  /** The loaded file each external `$ref` names (all of them, once nothing is missing). */
  const targetOf = new Map<RefSite, number>();
  loaded.forEach((file, index) => {
    for (const site of file.references.refs) {
      const { file: target } = splitReference(site.ref);
      if (target === '') continue;
      const where = { file: index, path: [...site.path, '$ref'] };
      if (entryUrl === null || file.source.url === null) {
        // A specification given as text has no location its relative references could start from,
        // and no origin an absolute one could be held to: it references no other file.
        problems.push({
          ...where,
          code: 'EXTERNAL_REFERENCE_REFUSED',
          describe: (w) => `${w}: the $ref ${JSON.stringify(site.ref)} names another file, which cannot be resolved for a specification given as text (give its URL instead)`,
        });
        continue;
      }
      let url: URL;
      try {
        url = new URL(target, file.source.url);
      } catch {
        problems.push({ ...where, code: 'INVALID_REFERENCE', describe: (w) => `${w}: the $ref ${JSON.stringify(site.ref)} is not a valid URL or path` });
        continue;
      }
      if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entryUrl.origin) {
        problems.push({
          ...where,
          code: 'EXTERNAL_REFERENCE_REFUSED',
          describe: (w) => `${w}: the $ref ${JSON.stringify(site.ref)} names a file on another origin than the specification's (${entryUrl.origin}); only files of the same origin are loaded`,
        });
        continue;
      }
      const key = withoutHash(url);
      const known = fileByUrl.get(key);
      const path = known !== undefined ? loaded[known]!.source.path : relativeFilePath(entryUrl, url);
      if (known !== index) references[index]!.add(path);
      if (known !== undefined) targetOf.set(site, known);
      else if (!targets.has(key)) targets.set(key, { path, file: index, site });
    }
  });
  if (problems.length > 0) return invalid(loaded, problems);
  if (targets.size > 0) {
    const wanted = [...targets.entries()];
    const pending = wanted.map(([, { file, site }]) => ({ file, path: [...site.path, '$ref'], code: '', describe: (w: string) => `the $ref ${JSON.stringify(site.ref)} in ${w}` }));
    const described = describeProblems(loaded, pending, Infinity);
    return { kind: 'load', targets: wanted.map(([url, { path }], index) => ({ url, path, referencedBy: described[index]!.message })) };
  }

  // 3. The entry is a specification of a version read here.
  const entry = loaded[0]!;
  const detected = specificationVersion(entry.parsed.value);
  if ('problem' in detected) {
    const { problem, path } = detected;
    return invalid(loaded, [{ file: 0, path, code: 'UNSUPPORTED_DOCUMENT', describe: (w) => `${w}: ${problem}` }]);
  }

  // 4. Every `$ref` (its fragment points to something, no loop of references), then the entry's schema.
  const targetFile = (file: number, site: RefSite): number => (splitReference(site.ref).file === '' ? file : targetOf.get(site)!);
  const resolve = (file: number, site: RefSite) => {
    const target = targetFile(file, site);
    const { fragment } = splitReference(site.ref);
    return { target, outcome: resolveFragment(loaded[target]!.parsed.value, fragment, loaded[target]!.references.anchors) };
  };
  const siteByHolder = new Map<object, { file: number; site: RefSite }>();
  loaded.forEach((file, index) => file.references.refs.forEach((site) => siteByHolder.set(site.holder, { file: index, site })));
  const looped = new Set<object>();
  loaded.forEach((file, index) => {
    for (const site of file.references.refs) {
      const where = { file: index, path: [...site.path, '$ref'] };
      const { target, outcome } = resolve(index, site);
      if (!outcome.ok) {
        const targetPath = loaded[target]!.source.path;
        const reason =
          'invalid' in outcome
            ? outcome.invalid
            : outcome.at.length > 0
              ? `${dottedPath(outcome.at)} of ${targetPath} has no member ${JSON.stringify(outcome.missing)}`
              : `${targetPath} has no member ${JSON.stringify(outcome.missing)} at its top level`;
        problems.push({ ...where, code: 'INVALID_REFERENCE', describe: (w) => `${w}: the $ref ${JSON.stringify(site.ref)} points to nothing: ${reason}` });
        continue;
      }
      // A reference to a reference to ... itself never reaches a value.
      if (looped.has(site.holder)) continue;
      const chain: object[] = [site.holder];
      let next = outcome.value;
      while (typeof next === 'object' && next !== null && siteByHolder.has(next)) {
        if (chain.includes(next)) {
          if (next === site.holder) {
            for (const holder of chain) looped.add(holder);
            problems.push({ ...where, code: 'REFERENCE_LOOP', describe: (w) => `${w}: the $ref ${JSON.stringify(site.ref)} leads back to itself through ${chain.length} reference(s) and never reaches a value` });
          }
          break;
        }
        chain.push(next);
        const hop = siteByHolder.get(next)!;
        const resolved = resolve(hop.file, hop.site).outcome;
        if (!resolved.ok) break;
        next = resolved.value;
      }
    }
  });
  // The schema's problems first: a broken schema often explains the broken references.
  problems.unshift(...(await schemaProblems(entry.parsed.value)));
  if (problems.length > 0) return invalid(loaded, problems);

  const info = (entry.parsed.value as { info?: { title?: unknown } }).info;
  return {
    kind: 'valid',
    files: loaded.map((file, index) => ({ path: file.source.path, references: [...references[index]!] })),
    version: detected.version,
    ...(typeof info?.title === 'string' ? { title: info.title } : {}),
  };
}
