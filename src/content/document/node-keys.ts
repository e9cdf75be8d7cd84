/**
 * What a comment can point at inside a page's document: its nodes, by the `key` GitBook's
 * documents give blocks and inlines (at any depth, in table fragments too), and the cells of its
 * table blocks, by record id and definition (column) id (`data.records`, `data.definition`).
 * Documents converted from Markdown carry no keys: their nodes cannot be pointed at, their tables'
 * cells can (ids `row-<n>` and `column-<n>`).
 */
import { type JSONDocument, type JSONNode } from './model.ts';

/** A table block of a document: its key (if any), its record ids and its definition ids. */
export interface DocumentTable {
  key: string | null;
  records: ReadonlySet<string>;
  definitions: ReadonlySet<string>;
}

/** The targets of a document: the keys of its nodes and its tables. */
export interface DocumentTargets {
  keys: ReadonlySet<string>;
  tables: readonly DocumentTable[];
}

const idsOf = (value: unknown): Set<string> => new Set(value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : []);

export function documentTargets(document: JSONDocument): DocumentTargets {
  const keys = new Set<string>();
  const tables: DocumentTable[] = [];
  const walk = (nodes: JSONNode[] | undefined): void => {
    for (const node of nodes ?? []) {
      if (!node || typeof node !== 'object') continue;
      if (typeof node.key === 'string' && node.key) keys.add(node.key);
      if (node.object === 'block' && node.type === 'table') {
        tables.push({ key: typeof node.key === 'string' && node.key ? node.key : null, records: idsOf(node.data?.records), definitions: idsOf(node.data?.definition) });
      }
      walk(node.nodes);
      walk(node.fragments as JSONNode[] | undefined);
    }
  };
  walk(document.nodes);
  return { keys, tables };
}

/**
 * Whether the document has the table cell (`record`, `definition`): in the table whose key is
 * `node` when given, else in any of its tables.
 */
export function hasTableCell(targets: DocumentTargets, cell: { record: string; definition: string }, node?: string | null): boolean {
  return targets.tables.some((t) => (!node || t.key === node) && t.records.has(cell.record) && t.definitions.has(cell.definition));
}
