/**
 * The rich-text document model of GitBook's API (`JSONDocument`, its nodes,
 * and the references a node can carry), as the converters, the search index
 * and the revision store handle it.
 */

/** A GitBook rich-text document (`JSONDocument` of the OpenAPI document): `{ object: 'document', data, nodes }`. */
export interface JSONDocument {
  object: 'document';
  data?: Record<string, unknown>;
  nodes: JSONNode[];
  [key: string]: unknown;
}

/** Any node of a JSONDocument (block, inline, text); the converters narrow it. */
export interface JSONNode {
  object: 'block' | 'inline' | 'text' | 'fragment';
  type?: string;
  key?: string;
  nodes?: JSONNode[];
  leaves?: { object: 'leaf'; text: string; marks: { object?: 'mark'; type: string; data?: Record<string, unknown> }[] }[];
  data?: Record<string, unknown>;
  isVoid?: boolean;
  [key: string]: unknown;
}

/** A ContentRef of the OpenAPI document (kind url, page, file, anchor, ...). */
export type ContentRef =
  | { kind: 'url'; url: string }
  | { kind: 'page'; page: string; space?: string }
  | { kind: 'file'; file: string; space?: string }
  | { kind: 'anchor'; anchor: string; page?: string; space?: string }
  | { kind: string; [key: string]: unknown };
