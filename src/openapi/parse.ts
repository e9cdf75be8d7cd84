/**
 * One file of a specification, JSON or YAML, parsed into a value, with a way
 * to find the line of a value by its path for the problems that name one.
 *
 * JSON goes through JSON.parse and ./json-locator.ts (fast, no syntax tree);
 * anything else, and JSON that JSON.parse refuses, through the `yaml`
 * package (JSON is YAML, so a syntax error in JSON gets yaml's line and
 * column too).
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { jsonValueOffsets, lineColumns, type ValuePath } from './json-locator.ts';

export interface Position {
  line: number;
  column: number;
}

export interface ParsedText {
  value: unknown;
  /** Where the value at each path starts, or null (a path with no value, a key a merge key brought). */
  locate(paths: readonly ValuePath[]): (Position | null)[];
}

export interface SyntaxProblem {
  message: string;
  position: Position | null;
}

export type ParseOutcome = { ok: true; parsed: ParsedText } | { ok: false; problems: SyntaxProblem[] };

/** Aliases expanded at most: a few anchors must not expand into gigabytes ("billion laughs"). */
const MAX_ALIAS_COUNT = 100;

/** The text without a byte order mark, which neither parser wants. */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function looksLikeJson(text: string): boolean {
  const first = /\S/.exec(text)?.[0];
  return first === '{' || first === '[';
}

/** The node of a YAML document at `path`, through aliases; map keys compare as strings (`200:` is a number key). */
function yamlNodeAt(document: Document, path: ValuePath): Node | null {
  let node: unknown = document.contents;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(document);
    if (isMap(node)) {
      const pair = node.items.find((item) => String(isScalar(item.key) ? item.key.value : item.key) === segment);
      node = pair?.value ?? null;
    } else if (isSeq(node)) {
      node = /^\d+$/.test(segment) ? (node.items[Number(segment)] ?? null) : null;
    } else {
      return null;
    }
    if (node === null) return null;
  }
  return (node as Node | null) ?? null;
}

function parseYamlDocument(text: string): { document: Document; position: (offset: number) => Position } {
  const lineCounter = new LineCounter();
  // merge: `<<` keys, which YAML 1.2 dropped but specification authors still write.
  const document = parseDocument(text, { lineCounter, merge: true, prettyErrors: false, uniqueKeys: true });
  const position = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  return { document, position };
}

function parseYaml(text: string): ParseOutcome {
  const { document, position } = parseYamlDocument(text);
  if (document.errors.length > 0) {
    return { ok: false, problems: document.errors.map((error) => ({ message: error.message, position: position(error.pos[0]) })) };
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // yaml throws a ReferenceError for an alias expanded too often; anything else is a bug.
    if (!(error instanceof ReferenceError)) throw error;
    return { ok: false, problems: [{ message: error.message, position: null }] };
  }
  return {
    ok: true,
    parsed: {
      value,
      // The syntax tree is parsed again when a line is wanted: kept, it would hold several times the
      // value's memory (about 200 MB for a 0.8 MB YAML file) through the validation.
      locate: (paths) => {
        const again = parseYamlDocument(text);
        return paths.map((path) => {
          const range = yamlNodeAt(again.document, path)?.range;
          return range ? again.position(range[0]) : null;
        });
      },
    },
  };
}

/** Parses a specification file, JSON or YAML. */
export function parseSpecificationText(raw: string): ParseOutcome {
  const text = withoutBom(raw);
  if (looksLikeJson(text)) {
    let value: unknown;
    let parsed = false;
    try {
      value = JSON.parse(text);
      parsed = true;
    } catch {
      // Not strict JSON: yaml reads it (JSON is YAML), or says where it breaks.
    }
    if (parsed) {
      const at = lineColumns(text);
      return { ok: true, parsed: { value, locate: (paths) => jsonValueOffsets(text, paths).map((offset) => (offset < 0 ? null : at(offset))) } };
    }
  }
  return parseYaml(text);
}
