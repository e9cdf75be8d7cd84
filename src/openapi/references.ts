/**
 * The `$ref`s of a parsed file and what their fragments point to. Every
 * `$ref` is checked here rather than trusted to the parser: @scalar's
 * resolver lets a pointer to a missing member of an existing object pass
 * (`#/components/schemas/Nope`), and the files of a multi-file specification
 * are named by their paths, which its resolver does not know.
 */
import type { ValuePath } from './json-locator.ts';

/** A `$ref` member: the path of the object holding it, and its value. */
export interface RefSite {
  path: ValuePath;
  ref: string;
  /** The object holding the `$ref` (for following chains of references). */
  holder: object;
}

export interface FileReferences {
  refs: RefSite[];
  /** `$anchor` names (JSON Schema 2020-12, OpenAPI 3.1) and the schema each names. */
  anchors: Map<string, unknown>;
}

/**
 * Members whose value is literal data, not specification: a `$ref` written
 * inside an example or an enumeration is text of the example, not a
 * reference. A member of these names under `properties` is a property name,
 * and its value a schema. (`examples` is literal only as a JSON Schema list;
 * as a map it holds Example Objects, which may be references.)
 */
function isLiteralData(key: string, value: unknown, parentKey: string | undefined): boolean {
  if (parentKey === 'properties' || parentKey === 'patternProperties') return false;
  return key === 'example' || key === 'enum' || key === 'const' || (key === 'examples' && Array.isArray(value));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * Every string `$ref` of `value` (a `$ref` that is not a string is a
 * property named `$ref`), and the `$anchor`s. Iterative (any nesting JSON.parse
 * allows), and each object visited once (YAML aliases share objects).
 */
export function collectReferences(value: unknown): FileReferences {
  const refs: RefSite[] = [];
  const anchors = new Map<string, unknown>();
  const seen = new WeakSet<object>();
  const stack: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (!isObject(current) || seen.has(current)) continue;
    seen.add(current);
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) stack.push({ value: current[index], path: [...path, String(index)] });
      continue;
    }
    if (typeof current.$ref === 'string') refs.push({ path, ref: current.$ref, holder: current });
    if (typeof current.$anchor === 'string' && !anchors.has(current.$anchor)) anchors.set(current.$anchor, current);
    const keys = Object.keys(current);
    const parentKey = path.at(-1);
    // Pushed in reverse so that references come out in document order.
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index]!;
      const child = current[key];
      if (isObject(child) && !isLiteralData(key, child, parentKey)) stack.push({ value: child, path: [...path, key] });
    }
  }
  return { refs, anchors };
}

/** The two parts of a `$ref`: the file (empty: this one) and the fragment after `#` (null: none). */
export function splitReference(ref: string): { file: string; fragment: string | null } {
  const hash = ref.indexOf('#');
  return hash < 0 ? { file: ref, fragment: null } : { file: ref.slice(0, hash), fragment: ref.slice(hash + 1) };
}

export type PointerOutcome =
  | { ok: true; value: unknown }
  /** `at`: the path that did resolve, whose value lacks `missing`. */
  | { ok: false; at: string[]; missing: string }
  | { ok: false; invalid: string };

/**
 * Resolves a `$ref`'s fragment in `root`: a JSON pointer (`/components/schemas/Pet`,
 * percent-decoded as a URI fragment is, then `~1` to `/` and `~0` to `~`), an
 * `$anchor` name of the file, or the whole file (empty or absent).
 */
export function resolveFragment(root: unknown, fragment: string | null, anchors: Map<string, unknown>): PointerOutcome {
  if (fragment === null || fragment === '') return { ok: true, value: root };
  let decoded: string;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    return { ok: false, invalid: 'its fragment is not valid percent-encoding' };
  }
  if (!decoded.startsWith('/')) {
    if (anchors.has(decoded)) return { ok: true, value: anchors.get(decoded) };
    return /^[A-Za-z_][-A-Za-z0-9._]*$/.test(decoded)
      ? { ok: false, invalid: `no schema of the file has the $anchor "${decoded}"` }
      : { ok: false, invalid: 'its fragment is neither a JSON pointer (starting with "/") nor an $anchor name' };
  }
  const segments = decoded.slice(1).split('/');
  if (segments.some((segment) => /~(?![01])/.test(segment))) return { ok: false, invalid: 'its JSON pointer has a "~" not followed by 0 or 1' };
  let current: unknown = root;
  const at: string[] = [];
  for (const raw of segments) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(segment) || Number(segment) >= current.length) return { ok: false, at, missing: segment };
      current = current[Number(segment)];
    } else if (isObject(current) && Object.hasOwn(current, segment)) {
      current = current[segment];
    } else {
      return { ok: false, at, missing: segment };
    }
    at.push(segment);
  }
  return { ok: true, value: current };
}
