/**
 * Where values of a JSON text start, by path: the lines that problems of a
 * JSON specification name. A JSON specification is parsed with JSON.parse
 * (a tenth of the time of a YAML parse, and no syntax tree: a YAML Document
 * of a 1 MB JSON text holds about 100 MB), so its positions come from this
 * one pass over the text, made only when a problem needs a line.
 *
 * The text must be valid JSON (JSON.parse accepted it). Iterative, not
 * recursive: nesting as deep as JSON.parse allows cannot overflow the stack.
 */

/** A path into a parsed value: member names and array indexes, as strings. */
export type ValuePath = readonly string[];

interface TrieNode {
  children: Map<string, TrieNode>;
  /** Indexes (into the caller's list of paths) of the paths ending here. */
  ends: number[];
}

function buildTrie(paths: readonly ValuePath[]): TrieNode {
  const root: TrieNode = { children: new Map(), ends: [] };
  paths.forEach((path, index) => {
    let node = root;
    for (const segment of path) {
      let child = node.children.get(segment);
      if (!child) {
        child = { children: new Map(), ends: [] };
        node.children.set(segment, child);
      }
      node = child;
    }
    node.ends.push(index);
  });
  return root;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/** The offset just past the string starting at `start` (its opening quote). */
function skipString(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    const escape = text.indexOf('\\', i);
    if (quote < 0) return text.length;
    if (escape >= 0 && escape < quote) {
      i = escape + 2;
      continue;
    }
    return quote + 1;
  }
}

interface Frame {
  array: boolean;
  /** The trie node of this container's path; null when no wanted path goes through it. */
  node: TrieNode | null;
  index: number;
}

/**
 * The offset where the value at each of `paths` starts in `text`, or -1 for
 * a path with no value. Containers no wanted path goes through are skipped
 * without reading their member names.
 */
export function jsonValueOffsets(text: string, paths: readonly ValuePath[]): number[] {
  const offsets = paths.map(() => -1);
  if (paths.length === 0) return offsets;
  const stack: Frame[] = [];
  let i = 0;
  let pending: TrieNode | null = buildTrie(paths);
  const skipWhitespace = () => {
    while (i < text.length && WHITESPACE.has(text[i]!)) i++;
  };

  // Each turn reads one value (`pending` is its trie node), then the separators after it.
  for (;;) {
    skipWhitespace();
    if (pending) for (const index of pending.ends) offsets[index] = i;
    const c = text[i];
    if (c === '{' || c === '[') {
      stack.push({ array: c === '[', node: pending && pending.children.size > 0 ? pending : null, index: 0 });
      i++;
    } else if (c === '"') {
      i = skipString(text, i);
    } else {
      while (i < text.length && !WHITESPACE.has(text[i]!) && text[i] !== ',' && text[i] !== '}' && text[i] !== ']') i++;
    }

    // After a value, or just inside a container: close containers, then find the next member.
    let next = false;
    while (!next) {
      const frame = stack.at(-1);
      if (!frame) return offsets;
      skipWhitespace();
      const c2 = text[i];
      if (c2 === '}' || c2 === ']') {
        stack.pop();
        i++;
        continue;
      }
      if (i >= text.length) return offsets;
      if (c2 === ',') {
        i++;
        skipWhitespace();
      }
      if (frame.array) {
        pending = frame.node?.children.get(String(frame.index)) ?? null;
        frame.index++;
      } else {
        const keyStart = i;
        i = skipString(text, i);
        pending = frame.node ? (frame.node.children.get(JSON.parse(text.slice(keyStart, i)) as string) ?? null) : null;
        skipWhitespace();
        i++; // the colon
      }
      next = true;
    }
  }
}

/** 1-based line and column of each offset of `text`. */
export function lineColumns(text: string): (offset: number) => { line: number; column: number } {
  let starts: number[] | null = null;
  return (offset) => {
    if (!starts) {
      starts = [0];
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    }
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - starts[low]! + 1 };
  };
}
