/**
 * `.gitbook.yaml`, GitBook's content configuration: where a space's content
 * lives in a repository (`root`) and the names of its first page and table of
 * contents (`structure.readme`, `structure.summary`). The file is looked up
 * in the project directory (the repository's top unless a monorepo section
 * names one); `root` is relative to that directory, the structure files to
 * `root`. `redirects` map old paths (relative to `root`) to page files.
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
  /** `redirects`, in the file's order: an old path (relative to `root`, no leading slash) -> the repository path of a page file. */
  redirects: [string, string][];
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
  const redirects: [string, string][] = [];
  if (raw.redirects !== undefined && raw.redirects !== null) {
    if (typeof raw.redirects !== 'object' || Array.isArray(raw.redirects)) warnings.push(`${path}: redirects is not a mapping, ignored`);
    else {
      for (const [from, to] of Object.entries(raw.redirects as Record<string, unknown>)) {
        const source = redirectSource(from);
        const target = typeof to === 'string' ? normalizePath(joinPath(root, to)) : null;
        if (source === null || target === null || (root !== '' && !target.startsWith(`${root}/`))) warnings.push(`${path}: redirect ${JSON.stringify(from)}: ${JSON.stringify(to)} is not a path to a page file, ignored`);
        else redirects.push([source, target]);
      }
    }
  }
  return {
    config: {
      projectDirectory,
      root,
      readme: inside(root, structure.readme, 'structure.readme', DEFAULT_README),
      summary: inside(root, structure.summary, 'structure.summary', DEFAULT_SUMMARY),
      redirects,
    },
    warnings,
  };
}

/** A redirect's old path as kept (`/help/` -> `help`); null when it is not a path. */
export function redirectSource(value: string): string | null {
  const trimmed = value.trim().replace(/^\/+/, '').replace(/\/+$/, '');
  return trimmed !== '' && normalizePath(trimmed) === trimmed ? trimmed : null;
}

/**
 * The `.gitbook.yaml` an export writes: the content root, the default structure, and the
 * redirects (old path -> page file relative to the root) when there are any.
 */
export function contentConfigYaml(root: string, redirects: readonly [string, string][] = []): string {
  const config: Record<string, unknown> = { root: root === '' ? './' : `./${root}/`, structure: { readme: DEFAULT_README, summary: DEFAULT_SUMMARY } };
  if (redirects.length) config.redirects = new Map(redirects);
  return YAML.stringify(config);
}
