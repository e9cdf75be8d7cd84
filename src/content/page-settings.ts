/**
 * What a page's settings and a space's variables may hold, checked where they
 * are set (change request content, from its fields or its Markdown's
 * frontmatter): each check answers the problem in words, or null.
 */
import type { ContentRef } from './document/model.ts';
import { MAX_VARIABLE_STRING, VARIABLE_NAME } from './page-frontmatter.ts';
import type { PageCover, PageMetaLinks, VariableValue } from './snapshot.ts';

/** The most variables a space or a page holds. */
export const MAX_VARIABLES = 100;
/** RevisionPageDocumentCover.height bounds. */
const COVER_HEIGHT = { min: 10, max: 700 };
/** The members of RevisionPageLayoutOptions (@gitbook/api 0.202.0's) and what each holds. */
const LAYOUT_MEMBERS: Record<string, (value: unknown) => boolean> = {
  width: (v) => v === 'default' || v === 'wide',
  cover: (v) => typeof v === 'boolean',
  coverSize: (v) => v === 'hero' || v === 'full',
  coverMask: (v) => v === 'none' || v === 'radial',
  title: (v) => typeof v === 'boolean',
  description: (v) => typeof v === 'boolean',
  tableOfContents: (v) => typeof v === 'boolean',
  outline: (v) => typeof v === 'boolean',
  pagination: (v) => typeof v === 'boolean',
  metadata: (v) => typeof v === 'boolean',
  tags: (v) => typeof v === 'boolean',
  actions: (v) => typeof v === 'boolean',
  anchors: (v) => typeof v === 'boolean',
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refProblem(value: unknown, kinds: readonly ('file' | 'url' | 'page')[]): string | null {
  if (!isPlainObject(value)) return `must be a content reference (${kinds.join(' or ')})`;
  const ref = value as ContentRef;
  if (!kinds.includes(ref.kind as 'file')) return `kind must be ${kinds.join(' or ')}`;
  const id = (value as Record<string, unknown>)[ref.kind];
  if (typeof id !== 'string' || id === '') return `${ref.kind} must be a non-empty string`;
  if (ref.kind === 'url' && !/^https?:\/\//i.test(id)) return 'url must be an http(s) URL';
  if ('space' in value && value.space !== undefined) return 'must be content of the same space';
  return null;
}

export function coverProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return 'must be an object { ref, refDark?, yPos, height? }';
  const cover = value as Partial<PageCover>;
  const ref = refProblem(cover.ref, ['file', 'url']);
  if (ref) return `ref: ${ref}`;
  if (cover.refDark !== undefined) {
    const dark = refProblem(cover.refDark, ['file', 'url']);
    if (dark) return `refDark: ${dark}`;
  }
  if (cover.yPos !== undefined && (typeof cover.yPos !== 'number' || !Number.isFinite(cover.yPos))) return 'yPos: must be a number';
  if (cover.height !== undefined && (typeof cover.height !== 'number' || cover.height < COVER_HEIGHT.min || cover.height > COVER_HEIGHT.max)) {
    return `height: must be a number from ${COVER_HEIGHT.min} to ${COVER_HEIGHT.max}`;
  }
  const extra = Object.keys(value).find((key) => !['ref', 'refDark', 'yPos', 'height'].includes(key));
  return extra ? `${extra}: not a member of a cover` : null;
}

/** A valid cover with its defaults (yPos 0). */
export function normalizeCover(value: Partial<PageCover> & Pick<PageCover, 'ref'>): PageCover {
  return { ref: value.ref, ...(value.refDark && { refDark: value.refDark }), yPos: value.yPos ?? 0, ...(value.height !== undefined && { height: value.height }) };
}

export function metaLinksProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return 'must be an object { canonical?, alternates? }';
  const links = value as PageMetaLinks;
  if (links.canonical !== undefined) {
    const problem = refProblem(links.canonical, ['page', 'url']);
    if (problem) return `canonical: ${problem}`;
  }
  if (links.alternates !== undefined) {
    if (!Array.isArray(links.alternates)) return 'alternates: must be a list';
    if (links.alternates.length > 50) return 'alternates: at most 50';
    for (const [i, alternate] of links.alternates.entries()) {
      const problem = refProblem(alternate, ['page', 'url']);
      if (problem) return `alternates[${i}]: ${problem}`;
    }
  }
  const extra = Object.keys(value).find((key) => key !== 'canonical' && key !== 'alternates');
  return extra ? `${extra}: not a member of metaLinks` : null;
}

export function variableValueProblem(value: unknown): string | null {
  if (typeof value === 'string') return value.length > MAX_VARIABLE_STRING ? `must be at most ${MAX_VARIABLE_STRING} characters` : null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'must be a finite number';
  if (typeof value === 'boolean') return null;
  return 'must be a string, a number or a boolean';
}

/** A map of variables; `removable`: a null value (removing the variable) is allowed. */
export function variablesProblem(value: unknown, removable = false): string | null {
  if (!isPlainObject(value)) return 'must be an object of variable names to values';
  const entries = Object.entries(value);
  if (entries.length > MAX_VARIABLES) return `at most ${MAX_VARIABLES} variables`;
  for (const [name, entry] of entries) {
    if (!VARIABLE_NAME.test(name) || name.length > 64) return `"${name}": a name is a letter or "_", then letters, digits or "_" (at most 64)`;
    if (entry === null && removable) continue;
    const problem = variableValueProblem(entry);
    if (problem) return `${name}: ${problem}`;
  }
  return null;
}

/** Applies a change of variables (null removes one) to `current`; checks the count after it. */
export function changedVariables(current: Record<string, VariableValue>, change: Record<string, VariableValue | null>): Record<string, VariableValue> {
  const next = { ...current };
  for (const [name, value] of Object.entries(change)) {
    if (value === null) delete next[name];
    else next[name] = value;
  }
  return next;
}

export function layoutProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return 'must be an object of layout options';
  for (const [key, entry] of Object.entries(value)) {
    const check = LAYOUT_MEMBERS[key];
    // Options of GitBook versions after 0.202.0 are kept as they come: a flag or a word.
    if (!check) {
      if (!/^[a-zA-Z]{1,40}$/.test(key) || !(typeof entry === 'boolean' || (typeof entry === 'string' && entry.length <= 40))) return `${key}: not a layout option`;
    } else if (!check(entry)) return `${key}: not a value it takes`;
  }
  return null;
}

/** ComputedContentSourceDocument's types: GitBook's OpenAPI and translation sources, and an integration's. */
const COMPUTED_TYPE = /^(?:builtin:openapi|builtin:translation|integration:[^:]+:[^:]+)$/;

export function computedProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return 'must be an object { type, props, dependencies? }';
  if (typeof value.type !== 'string' || value.type === '') return 'type: required, a string';
  if (!COMPUTED_TYPE.test(value.type)) return 'type: builtin:openapi, builtin:translation or integration:<integration>:<source>';
  if (!isPlainObject(value.props)) return 'props: required, an object';
  if (value.dependencies !== undefined && !isPlainObject(value.dependencies)) return 'dependencies: must be an object';
  if (JSON.stringify(value).length > 16_384) return 'at most 16 KiB of JSON';
  return null;
}
