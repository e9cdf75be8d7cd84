/**
 * Documents are stored once per distinct content: the key is the sha-256 of
 * the document's canonical JSON (keys sorted), so equal documents written in
 * any key order share one row, and "did this page's text change?" is a
 * string comparison.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import { type JSONDocument } from './model.ts';

export function canonicalDocumentJson(document: JSONDocument): string {
  return stringify(document) ?? 'null';
}

export function hashDocument(document: JSONDocument): string {
  return createHash('sha256').update(canonicalDocumentJson(document)).digest('hex');
}
