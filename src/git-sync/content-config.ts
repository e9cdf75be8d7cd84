/**
 * `.gitbook.yaml`, GitBook's content configuration: where a space's content
 * lives in a repository (`root`) and the names of its first page and table of
 * contents (`structure.readme`, `structure.summary`). The file is looked up
 * in the project directory (the repository's top unless a monorepo section
 * names one); `root` is relative to that directory, the structure files to
 * `root`. `redirects` are not read.
 */
import YAML from 'yaml';
import { joinPath, normalizePath } from './repo-paths.ts';

/** Where the content of one space lives in a repository; every path is a repository path. */
export interface ContentConfig {
  /** The project directory ('' for the repository's top). */
  projectDirectory: string;
  /** The content root: the project directory joined with `root`. */
  root: string;
  /** The first page (`structure.readme`). */
  readme: string;
  /** The table of contents (`structure.summary`). */
  summary: string;
}

export const CONFIG_FILE = '.gitbook.yaml';
const DEFAULT_README = 'README.md';
const DEFAULT_SUMMARY = 'SUMMARY.md';

/** A project directory option as a repository path: `/packages/api/` -> `packages/api`. */
export function normalizeProjectDirectory(projectDirectory: string | null | undefined): string {
  return normalizePath(projectDirectory ?? '') ?? '';
}

/**
 * Reads `<projectDirectory>/.gitbook.yaml` (or `.gitbook.yml`), falling back
 * to GitBook's defaults (root `./`, README.md, SUMMARY.md) for a missing file
 * and for each unreadable or out-of-bounds value, with a warning.
 */
export function readContentConfig(
  files: ReadonlyMap<string, Uint8Array>,
  projectDirectoryOption: string | null | undefined,
): { config: ContentConfig; warnings: string[] } {
  const warnings: string[] = [];
  const projectDirectory = normalizeProjectDirectory(projectDirectoryOption);
  const path = [CONFIG_FILE, '.gitbook.yml'].map((name) => joinPath(projectDirectory, name)).find((p) => files.has(p));
  let raw: Record<string, unknown> = {};
  if (path) {
    try {
      const parsed: unknown = YAML.parse(new TextDecoder('utf-8', { fatal: true }).decode(files.get(path)!));
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) raw = parsed as Record<string, unknown>;
      else if (parsed !== null && parsed !== undefined) warnings.push(`${path}: not a YAML mapping, defaults used`);
    } catch (error) {
      warnings.push(`${path}: unreadable (${error instanceof Error ? error.message.split('\n')[0] : String(error)}), defaults used`);
    }
  }

  const inside = (base: string, value: unknown, name: string, fallback: string): string => {
    if (value === undefined || value === null) return joinPath(base, fallback);
    const resolved = typeof value === 'string' ? normalizePath(joinPath(base, value)) : null;
    if (resolved === null || (base !== '' && resolved !== base && !resolved.startsWith(`${base}/`))) {
      warnings.push(`${path}: ${name} ${JSON.stringify(value)} is not a path inside ${base || 'the repository'}, default used`);
      return joinPath(base, fallback);
    }
    return resolved;
  };
  const root = inside(projectDirectory, raw.root, 'root', '');
  const structure = raw.structure !== null && typeof raw.structure === 'object' ? (raw.structure as Record<string, unknown>) : {};
  return {
    config: {
      projectDirectory,
      root,
      readme: inside(root, structure.readme, 'structure.readme', DEFAULT_README),
      summary: inside(root, structure.summary, 'structure.summary', DEFAULT_SUMMARY),
    },
    warnings,
  };
}

/** The `.gitbook.yaml` an export writes: the content root and the default structure, no redirects. */
export function contentConfigYaml(root: string): string {
  return YAML.stringify({ root: root === '' ? './' : `./${root}/`, structure: { readme: DEFAULT_README, summary: DEFAULT_SUMMARY } });
}
