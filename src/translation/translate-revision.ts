/**
 * The translation of one revision, in memory: every page's title,
 * description and document split into segments, the segments the cache does
 * not know sent to the translator in batches, and the translated revision
 * assembled. Nothing here touches the database; the job that runs a
 * translation loads the snapshots, supplies the cache and writes the result.
 *
 * What the translated revision keeps from the source:
 * - page ids, kinds, the tree (parents, order), emoji, icons, visibility,
 *   layouts and link targets; links and refs between pages keep working
 *   because the ids are the same;
 * - slugs: they stay as in the source, so `/getting-started` in one language
 *   is `/getting-started` in every other and a reader can switch language
 *   on any page (a translated slug would also change whenever a title's
 *   translation does);
 * - files (same ids, same stored bytes);
 * - reusable contents' ids: their titles and documents are translated as pages' are;
 * - everything in a document that is not prose (see ./segments.ts), and the
 *   anchors of translated headings.
 */
import { createHash } from 'node:crypto';
import { batches } from '../batches.ts';
import { hashDocument } from '../content/document/hash.ts';
import { type JSONDocument } from '../content/document/model.ts';
import { PAGE_FIELDS, type PageSnapshot, type RevisionSnapshot } from '../content/snapshot.ts';
import { TranslationProviderError } from '../errors/external.ts';
import {
  countWords,
  extractSegments,
  plainSegment,
  type ExtractedSegments,
  type PlainSegment,
  type RebuildIssue,
} from './segments.ts';
import type { Translator } from './translator.ts';

/**
 * Translations already made, by key (see `translationCacheKey`): `get`
 * answers the keys it knows, `put` stores new ones. Written after every
 * batch, so a run that fails or is cancelled keeps what it paid for.
 */
export interface TranslationCache {
  get(keys: string[]): Promise<Map<string, string>>;
  put(entries: Map<string, string>): Promise<void>;
}

/** One progress report: after collecting the segments, after each batch, after assembling. */
export interface TranslateRevisionProgress {
  /** `translate`: segments sent so far of those to send; `documents`: pages assembled. */
  done: number;
  total: number;
  step: 'translate' | 'documents';
}

export interface TranslateRevisionInput {
  /** The revision to translate, with the documents of its pages loaded. */
  source: RevisionSnapshot;
  /** The target space's current revision, if any: its unchanged pages are kept as they are (same timestamps), so writing can copy their rows. */
  previousTarget?: RevisionSnapshot | null;
  translator: Translator;
  /** Language code to translate to. */
  target: string;
  /** Language code of the source; null or unset lets the provider detect it. */
  sourceLanguage?: string | null;
  /** The space owner's guidance for the translator. Part of the cache key: changing it translates again. */
  instructions?: string | null;
  cache: TranslationCache;
  onProgress?: (progress: TranslateRevisionProgress) => void;
  signal?: AbortSignal;
  /** Texts per translator call; defaults to the translator's `batchSize`, else 25. */
  batchSize?: number;
  /** `updatedAt` of changed pages; defaults to now. */
  now?: Date;
}

export interface TranslateRevisionStats {
  pages: number;
  /** Distinct segments (titles, descriptions, document texts); a text used twice is translated once. */
  segments: number;
  /** Segments sent to the translator in this run. */
  translatedSegments: number;
  /** Segments whose translation came from the cache. */
  cachedSegments: number;
  /** Words of the segments sent to the translator (what the run cost). */
  words: number;
  /** Segment occurrences whose translation lost or moved a tag and was repaired (see `RebuildIssue`). */
  repairedSegments: number;
}

export interface TranslateRevisionResult {
  /** The translated revision: pages by id, files as in the source, the translated documents by hash. */
  snapshot: RevisionSnapshot;
  stats: TranslateRevisionStats;
}

/**
 * The cache key of a segment's translation: the target language, a digest
 * of the instructions when there are some, and the segment hash
 * (`fr:<hash>`, `fr+1a2b3c4d5e6f:<hash>`). The source language and the
 * provider are not part of it: the same text means the same thing.
 */
export function translationCacheKey(hash: string, options: { target: string; instructions?: string | null }): string {
  const instructions = options.instructions?.trim();
  const context = instructions ? `${options.target}+${createHash('sha256').update(instructions).digest('hex').slice(0, 12)}` : options.target;
  return `${context}:${hash}`;
}

/** Translates a revision; see the file comment for what is kept. Rejects with the signal's reason when aborted. */
export async function translateRevision(input: TranslateRevisionInput): Promise<TranslateRevisionResult> {
  const { source, translator, target, signal } = input;
  const progress = (p: TranslateRevisionProgress) => input.onProgress?.(p);
  signal?.throwIfAborted();

  // 1. Segments, each distinct text once.
  const texts = new Map<string, string>();
  const titles = new Map<string, { title: PlainSegment | null; description: PlainSegment | null }>();
  const documents = new Map<string, ExtractedSegments>();
  const addDocument = (hash: string, owner: string) => {
    if (documents.has(hash)) return;
    const document = source.documents.get(hash);
    if (!document) throw new Error(`The document ${hash} of ${owner} is not loaded: load the source snapshot with its documents`);
    const extracted = extractSegments(document);
    documents.set(hash, extracted);
    for (const segment of extracted.segments) texts.set(segment.hash, segment.text);
  };
  for (const page of source.pages.values()) {
    const title = plainSegment(page.title);
    const description = page.description === null ? null : plainSegment(page.description);
    titles.set(page.id, { title, description });
    for (const segment of [title, description]) if (segment) texts.set(segment.hash, segment.text);
    if (page.documentHash !== null) addDocument(page.documentHash, `page ${page.id}`);
  }
  const contentTitles = new Map<string, PlainSegment | null>();
  for (const content of source.reusableContents.values()) {
    const title = plainSegment(content.title);
    contentTitles.set(content.id, title);
    if (title) texts.set(title.hash, title.text);
    addDocument(content.documentHash, `reusable content ${content.id}`);
  }

  // 2. What the cache knows.
  const keyOf = (hash: string) => translationCacheKey(hash, { target, instructions: input.instructions });
  const hashes = [...texts.keys()];
  const cached = hashes.length ? await input.cache.get(hashes.map(keyOf)) : new Map<string, string>();
  const translations = new Map<string, string>();
  for (const hash of hashes) {
    const hit = cached.get(keyOf(hash));
    if (typeof hit === 'string') translations.set(hash, hit);
  }
  const cachedSegments = translations.size;

  // 3. The rest, batch by batch.
  const missing = hashes.filter((hash) => !translations.has(hash));
  const batchSize = input.batchSize ?? translator.batchSize ?? 25;
  const maxChars = translator.maxBatchChars ?? Number.POSITIVE_INFINITY;
  let done = 0;
  let words = 0;
  progress({ done, total: missing.length, step: 'translate' });
  for (const batch of batches(missing, batchSize, maxChars, (hash) => texts.get(hash)!.length)) {
    signal?.throwIfAborted();
    const sent = batch.map((hash) => texts.get(hash)!);
    const answer = await translator.translate(sent, { source: input.sourceLanguage ?? null, target, instructions: input.instructions ?? null, signal });
    if (answer.length !== sent.length || answer.some((t) => typeof t !== 'string')) {
      throw new TranslationProviderError(translator.name, 'malformed', `The ${translator.name} translator returned ${answer.length} translations for ${sent.length} texts`);
    }
    const entries = new Map<string, string>();
    batch.forEach((hash, i) => {
      // A blank answer for a text is no translation: the original stays and the next run asks again.
      if (answer[i].trim() === '') return;
      translations.set(hash, answer[i]);
      entries.set(keyOf(hash), answer[i]);
    });
    if (entries.size) await input.cache.put(entries);
    done += batch.length;
    words += sent.reduce((sum, text) => sum + countWords(text), 0);
    progress({ done, total: missing.length, step: 'translate' });
  }
  signal?.throwIfAborted();

  // 4. The translated revision.
  const repaired = new Set<string>();
  const translatedDocuments = new Map<string, { hash: string; document: JSONDocument }>();
  for (const [hash, extracted] of documents) {
    const byId = new Map<string, string>();
    for (const segment of extracted.segments) {
      const translation = translations.get(segment.hash);
      if (translation !== undefined) byId.set(segment.id, translation);
    }
    const onIssue = (issue: RebuildIssue) => {
      if (issue.kind !== 'missing-translation') repaired.add(`${hash}${issue.segmentId}`);
    };
    const document = extracted.rebuild(byId, { onIssue });
    translatedDocuments.set(hash, { hash: hashDocument(document), document });
  }

  const now = input.now ?? new Date();
  const pages = new Map<string, PageSnapshot>();
  const outDocuments = new Map<string, JSONDocument>();
  const restore = (segment: PlainSegment | null, original: string) => {
    const translation = segment ? translations.get(segment.hash) : undefined;
    return segment && translation !== undefined ? segment.restore(translation) : original;
  };
  for (const page of source.pages.values()) {
    const { title, description } = titles.get(page.id)!;
    const translatedDocument = page.documentHash === null ? null : translatedDocuments.get(page.documentHash)!;
    if (translatedDocument) outDocuments.set(translatedDocument.hash, translatedDocument.document);
    const next: PageSnapshot = {
      ...page,
      title: restore(title, page.title),
      description: page.description === null ? null : restore(description, page.description),
      documentHash: translatedDocument?.hash ?? null,
    };
    const previous = input.previousTarget?.pages.get(page.id);
    if (previous && samePageFields(previous, next)) pages.set(page.id, { ...next, createdAt: previous.createdAt, updatedAt: previous.updatedAt });
    else pages.set(page.id, { ...next, createdAt: previous?.createdAt ?? now, updatedAt: now });
  }
  const reusableContents: RevisionSnapshot['reusableContents'] = new Map();
  for (const content of source.reusableContents.values()) {
    const translated = translatedDocuments.get(content.documentHash)!;
    outDocuments.set(translated.hash, translated.document);
    reusableContents.set(content.id, { ...content, title: restore(contentTitles.get(content.id)!, content.title), documentHash: translated.hash });
  }
  progress({ done: pages.size, total: pages.size, step: 'documents' });

  return {
    snapshot: { pages, reusableContents, files: new Map(source.files), documents: outDocuments, variables: { ...source.variables }, redirects: new Map(source.redirects), tags: new Map(source.tags) },
    stats: {
      pages: pages.size,
      segments: hashes.length,
      translatedSegments: missing.length,
      cachedSegments,
      words,
      repairedSegments: repaired.size,
    },
  };
}

function samePageFields(a: PageSnapshot, b: PageSnapshot): boolean {
  return PAGE_FIELDS.every((field) => JSON.stringify(a[field]) === JSON.stringify(b[field]));
}
