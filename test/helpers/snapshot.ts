/** Builders of revision snapshots for the tests of content code: pages with defaults, and small documents. */
import type { JSONDocument, JSONNode } from '../../src/content/document/model.ts';
import { NO_PAGE_SETTINGS, type PageSnapshot } from '../../src/content/snapshot.ts';

/** When pages were created and updated, unless a test says otherwise. */
export const T0 = new Date('2026-01-01T00:00:00Z');

/** A document page at the top level, first among its siblings, without a document; `fields` override. */
export function pageSnapshot(fields: Partial<PageSnapshot> & Pick<PageSnapshot, 'id' | 'title' | 'slug'>): PageSnapshot {
  return {
    kind: 'document',
    parentId: null,
    index: 0,
    description: null,
    emoji: null,
    icon: null,
    hidden: false,
    noIndex: false,
    noRobotsIndex: false,
    documentHash: null,
    linkTarget: null,
    layout: null,
    ...NO_PAGE_SETTINGS,
    createdAt: T0,
    updatedAt: T0,
    ...fields,
  };
}

/** A text node of one unmarked leaf. */
export const textNode = (text: string): JSONNode => ({ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] });

/** A paragraph of `text`. */
export const paragraph = (text: string): JSONNode => ({ object: 'block', type: 'paragraph', nodes: [textNode(text)] });

/** A document of one paragraph per text. */
export const paragraphs = (...texts: string[]): JSONDocument => ({ object: 'document', data: {}, nodes: texts.map(paragraph) });
