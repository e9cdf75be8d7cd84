/**
 * The content of issue 6's benchmark (bench/content.ts): a space of 1,000
 * Markdown pages written through the app's REST API.
 *
 * The pages (buildCorpus) form a 3-level tree: 10 sections, each with 9
 * chapters of 10 pages (10 + 90 + 900 = 1,000 document pages). Every page is a
 * few paragraphs of generated prose with `##` headings, a bulleted list, a
 * code block, a link to an earlier page (by its path, so it is a real page
 * link) and a link to a URL. Text comes from a seeded PRNG (mulberry32), so
 * every run writes the same words; only the page ids differ.
 *
 * Words the search benchmark relies on, with where they are (the parts of a
 * page that never change when the merge benchmark edits it):
 * - each chapter has a codename, an invented word (`tavorix`), in the
 *   chapter's title and in the text of its 10 pages: a selective word, 11
 *   pages, the chapter page first (its title weighs most);
 * - `workflow` in the first paragraph of ~90% of pages: a common word;
 * - `latency budget` in one section of ~5% of pages, and `latency` or
 *   `budget` alone (in different sections) in ~20% each: a two-word query
 *   matches the pages that have both words in one section.
 * No other generated word starts with one of these.
 *
 * Seeding (seedContent) goes through the real code paths: POST /v1/orgs,
 * POST /v1/orgs/{id}/spaces, then per batch of 50 pages a change request
 * (POST .../change-requests, POST .../content with 50 `insert_page` changes,
 * POST .../merge), i.e. 20 change requests merged one after the other; the
 * search index is kept by the merges. Only the user and its token are written
 * directly (createBenchUser of bench/harness.ts).
 */
import { api } from './harness.ts';
import { between, editMarker, HEADINGS, LANGUAGES, mulberry32, NOUNS, paragraph as paragraphOf, pick, sample, seedOf, sentence as sentenceOf, slug, VERBS, type Rng } from './text.ts';

// ---------------------------------------------------------------------------
// Vocabulary

/** Filler prose. None of them starts with a search word of the benchmark (checked in buildCorpus). */
const FILLER = [
  'the', 'a', 'to', 'and', 'of', 'is', 'in', 'for', 'with', 'when', 'your', 'each', 'this', 'that', 'it', 'on', 'by', 'can', 'be', 'as',
  'request', 'server', 'client', 'token', 'space', 'page', 'user', 'value', 'setting', 'field', 'option', 'default', 'error', 'response', 'data',
  'file', 'path', 'key', 'account', 'team', 'project', 'service', 'event', 'message', 'record', 'version', 'release', 'change', 'update', 'query',
  'cluster', 'node', 'region', 'replica', 'shard', 'index', 'cache', 'queue', 'worker', 'job', 'schedule', 'retry', 'limit', 'quota', 'header',
  'payload', 'endpoint', 'route', 'handler', 'plugin', 'module', 'package', 'library', 'script', 'command', 'argument', 'flag', 'variable',
  'secret', 'certificate', 'domain', 'proxy', 'gateway', 'balancer', 'network', 'storage', 'bucket', 'volume', 'snapshot', 'backup', 'restore',
  'migration', 'schema', 'table', 'column', 'row', 'transaction', 'lock', 'connection', 'pool', 'timeout', 'interval', 'threshold', 'metric',
  'dashboard', 'alert', 'log', 'trace', 'span', 'sample', 'report', 'audit', 'policy', 'role', 'permission', 'member', 'owner', 'invite',
  'session', 'cookie', 'login', 'password', 'provider', 'identity', 'scope', 'grant', 'webhook', 'callback', 'integration', 'connector',
  'template', 'theme', 'layout', 'component', 'widget', 'editor', 'preview', 'publish', 'draft', 'review', 'comment', 'mention', 'search',
  'filter', 'sort', 'export', 'import', 'format', 'encoding', 'parser', 'compiler', 'runtime', 'container', 'image', 'registry', 'pipeline',
  'stage', 'step', 'artifact', 'environment', 'staging', 'production', 'preview', 'rollback', 'deploy', 'build', 'test', 'check', 'lint',
  'usually', 'always', 'never', 'quickly', 'safely', 'automatically', 'manually', 'first', 'then', 'later', 'only', 'also', 'instead',
  'configure', 'enable', 'disable', 'create', 'delete', 'rename', 'move', 'copy', 'share', 'open', 'close', 'send', 'receive', 'store',
  'read', 'write', 'validate', 'verify', 'rotate', 'renew', 'expire', 'refresh', 'retain', 'archive', 'compress', 'encrypt', 'decrypt',
  'small', 'large', 'new', 'old', 'current', 'previous', 'next', 'optional', 'required', 'public', 'private', 'internal', 'external',
] as const;

const SECTION_TITLES = [
  'Getting started', 'Installation', 'Configuration', 'Authentication', 'Data model',
  'Integrations', 'Operations', 'Observability', 'Troubleshooting', 'Reference',
];
const CHAPTER_TOPICS = ['connectors', 'pipelines', 'storage', 'access control', 'scheduling', 'notifications', 'exports', 'billing', 'clients', 'gateways'];

/** The words the search benchmark queries. */
export const COMMON_WORD = 'workflow';
export const PAIR_WORDS = ['latency', 'budget'] as const;

/** Invented words (consonant-vowel pairs and a final consonant Porter stemming leaves alone), all 7 letters, so none is a prefix of another. */
function codenames(count: number): string[] {
  const rng = mulberry32(seedOf('codenames'));
  const consonants = 'bdfglmnprstvz';
  const vowels = 'aeiou';
  const finals = 'xkz';
  const out = new Set<string>();
  while (out.size < count) {
    let word = '';
    for (let i = 0; i < 3; i++) word += pick(rng, [...consonants]) + pick(rng, [...vowels]);
    out.add(word + pick(rng, [...finals]));
  }
  return [...out];
}

// ---------------------------------------------------------------------------
// The corpus

export interface ContentShape {
  sections: number;
  chaptersPerSection: number;
  pagesPerChapter: number;
}

/** 10 + 10 x 9 + 10 x 9 x 10 = 1,000 pages. */
export const DEFAULT_CONTENT_SHAPE: ContentShape = { sections: 10, chaptersPerSection: 9, pagesPerChapter: 10 };

export interface CorpusPage {
  /** Position in insertion order (depth first: a section, its chapters, their pages). */
  index: number;
  level: 'section' | 'chapter' | 'page';
  title: string;
  slug: string;
  /** The page path the app gives it (slugs of the titles, which are unique among siblings). */
  path: string;
  parent: number | null;
  /** The chapter's codename, for a chapter and its pages. */
  codename: string | null;
  /** Has the common word. */
  common: boolean;
  /** Has `latency budget` in one section. */
  pair: boolean;
  /** Has `latency` (alone, in its own section). */
  latency: boolean;
  /** Has `budget` (alone, in another section). */
  budget: boolean;
  /** The earlier page (a leaf page) it links to, if any. */
  linkTo: number | null;
}

export interface Corpus {
  shape: ContentShape;
  pages: CorpusPage[];
  /** Codename of each chapter, in chapter order. */
  codenames: string[];
}

export function buildCorpus(shape: ContentShape = DEFAULT_CONTENT_SHAPE): Corpus {
  const chapterCount = shape.sections * shape.chaptersPerSection;
  const names = codenames(chapterCount);
  const searchWords = [COMMON_WORD, ...PAIR_WORDS, ...names];
  const vocabulary = [...FILLER, ...SECTION_TITLES, ...CHAPTER_TOPICS, ...VERBS, ...NOUNS, ...HEADINGS].flatMap((w) => w.toLowerCase().split(/\s+/));
  for (const word of vocabulary) {
    const clash = searchWords.find((s) => word.startsWith(s));
    if (clash) throw new Error(`seed-content: the vocabulary word "${word}" starts with the search word "${clash}"`);
  }

  const pages: CorpusPage[] = [];
  const leaves: number[] = [];
  const add = (level: CorpusPage['level'], title: string, parent: number | null, codename: string | null) => {
    const index = pages.length;
    const rng = mulberry32(seedOf('flags', index));
    const pageSlug = slug(title);
    const pair = rng() < 0.05;
    const page: CorpusPage = {
      index,
      level,
      title,
      slug: pageSlug,
      path: parent === null ? pageSlug : `${pages[parent]!.path}/${pageSlug}`,
      parent,
      codename,
      common: rng() < 0.9,
      pair,
      latency: !pair && rng() < 0.2,
      budget: !pair && rng() < 0.2,
      linkTo: leaves.length ? leaves[Math.floor(rng() * leaves.length)]! : null,
    };
    pages.push(page);
    return page;
  };
  for (let s = 0; s < shape.sections; s++) {
    const section = add('section', SECTION_TITLES[s % SECTION_TITLES.length]! + (s >= SECTION_TITLES.length ? ` ${Math.floor(s / SECTION_TITLES.length) + 1}` : ''), null, null);
    for (let c = 0; c < shape.chaptersPerSection; c++) {
      const k = s * shape.chaptersPerSection + c;
      const name = names[k]!;
      const topic = CHAPTER_TOPICS[(s + c) % CHAPTER_TOPICS.length]!;
      const chapter = add('chapter', `${name[0]!.toUpperCase()}${name.slice(1)} ${topic}`, section.index, name);
      const rng = mulberry32(seedOf('titles', k));
      const titles = sample(rng, VERBS.flatMap((v) => NOUNS.map((n) => `${v} ${n}`)), shape.pagesPerChapter);
      for (const title of titles) leaves.push(add('page', title, chapter.index, name).index);
    }
  }
  return { shape, pages, codenames: names };
}

const sentence = (rng: Rng, extra: string[] = []) => sentenceOf(rng, FILLER, extra);
const paragraph = (rng: Rng, sentences: number, extra: string[][] = []) => paragraphOf(rng, FILLER, sentences, extra);

/**
 * The Markdown of a page. With `edit`, the version an edit of the merge
 * benchmark writes: the same title, structure and search words, the
 * paragraph of the second section rewritten, and a "Revision notes" section
 * holding editMarker(edit, index).
 */
export function pageMarkdown(corpus: Corpus, page: CorpusPage, edit?: string): string {
  const stable = mulberry32(seedOf('page', page.index));
  const varying = mulberry32(seedOf('text', page.index, edit ?? ''));
  const [h1, h2, h3] = sample(stable, HEADINGS, 3) as [string, string, string];
  const introExtra: string[][] = [];
  if (page.common) introExtra.push([COMMON_WORD]);
  if (page.codename) introExtra.push([page.codename]);
  const intro = paragraph(stable, 3, introExtra);
  const list = Array.from({ length: between(stable, 3, 5) }, () => `- ${sentence(stable)}`).join('\n');
  const lang = pick(stable, LANGUAGES);
  const code = Array.from({ length: between(stable, 3, 6) }, () => `${pick(stable, FILLER)}_${pick(stable, FILLER)}: ${pick(stable, FILLER)}`).join('\n');
  const first = paragraph(stable, 2, page.latency ? [[PAIR_WORDS[0]]] : []);
  const second = paragraph(varying, 3, page.pair ? [[`${PAIR_WORDS[0]} ${PAIR_WORDS[1]}`]] : []);
  const third = paragraph(stable, 2, page.budget ? [[PAIR_WORDS[1]]] : []);
  const target = page.linkTo === null ? null : corpus.pages[page.linkTo]!;
  const links = target
    ? `See [${target.title}](/${target.path}) and [the API reference](https://example.com/docs/${page.slug}).`
    : `See [the API reference](https://example.com/docs/${page.slug}).`;
  const parts = [
    `# ${page.title}`,
    intro,
    `## ${h1}`,
    first,
    list,
    `## ${h2}`,
    second,
    `\`\`\`${lang}\n${code}\n\`\`\``,
    links,
    `## ${h3}`,
    third,
  ];
  if (edit !== undefined) parts.push('## Revision notes', `${sentence(varying)} Change ${editMarker(edit, page.index)}: ${sentence(varying)}`);
  return `${parts.join('\n\n')}\n`;
}

/** Which pages a query should find, from the generated text (the search benchmark's expectations). */
export function expectedMatches(corpus: Corpus): { selective: (codename: string) => number[]; common: number[]; pair: number[] } {
  return {
    selective: (codename) => corpus.pages.filter((p) => p.codename === codename).map((p) => p.index),
    common: corpus.pages.filter((p) => p.common).map((p) => p.index),
    pair: corpus.pages.filter((p) => p.pair).map((p) => p.index),
  };
}

// ---------------------------------------------------------------------------
// The API

interface TreeNode {
  id: string;
  title: string;
  path: string;
  pages?: TreeNode[];
}

/** Every page of the space's current content: path -> {id, title}. */
export async function spacePages(baseUrl: string, token: string, spaceId: string): Promise<Map<string, { id: string; title: string }>> {
  const { body } = await api(baseUrl, token, 'GET', `/v1/spaces/${spaceId}/content/pages`);
  const out = new Map<string, { id: string; title: string }>();
  const walk = (nodes: TreeNode[]) => {
    for (const n of nodes) {
      out.set(n.path, { id: n.id, title: n.title });
      walk(n.pages ?? []);
    }
  };
  walk(body.pages as TreeNode[]);
  return out;
}

export interface ContentSeed {
  organizationId: string;
  spaceId: string;
  /** Page id of every corpus page, by index. */
  pageIds: string[];
  changeRequests: number;
  seconds: number;
}

/**
 * Writes the corpus into a new space (of organization `organizationId`, else
 * of a new organization) through the API (see the top of the file), then
 * checks that the space holds exactly the corpus's pages at the expected paths.
 */
export async function seedContent(
  baseUrl: string,
  token: string,
  corpus: Corpus,
  log: (...args: unknown[]) => void = () => {},
  options: { organizationId?: string; spaceTitle?: string } = {},
): Promise<ContentSeed> {
  const started = performance.now();
  const organizationId = options.organizationId ?? ((await api(baseUrl, token, 'POST', '/v1/orgs', { title: 'Bench content org' }, 201)).body.id as string);
  const spaceTitle = options.spaceTitle ?? 'Product documentation';
  const spaceId = (await api(baseUrl, token, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: spaceTitle }, 201)).body.id as string;
  const ids = new Map<number, string>();
  const ref = (page: CorpusPage) => `p${page.index}`;
  let changeRequests = 0;

  // Batches of at most 50, in insertion order; a new batch starts at every section so that
  // (with the default shape) a section, its chapters and the pages of its first 4 chapters make
  // one batch, the pages of its other 5 chapters the next.
  const batches: CorpusPage[][] = [];
  for (const page of corpus.pages) {
    const last = batches[batches.length - 1];
    if (!last || last.length === 50 || page.level === 'section') batches.push([page]);
    else last.push(page);
  }
  for (const [b, batch] of batches.entries()) {
    const inBatch = new Set(batch.map((p) => p.index));
    // Parents written by an earlier batch are named by id: learn the ids when one is missing.
    if (batch.some((p) => p.parent !== null && !inBatch.has(p.parent) && !ids.has(p.parent))) {
      const byPath = await spacePages(baseUrl, token, spaceId);
      for (const page of corpus.pages) {
        const found = byPath.get(page.path);
        if (found) ids.set(page.index, found.id);
      }
    }
    const changes = batch.map((page) => ({
      operation: 'insert_page',
      ref: ref(page),
      ...(page.parent === null ? {} : { into: inBatch.has(page.parent) ? ref(corpus.pages[page.parent]!) : ids.get(page.parent) }),
      document: { markdown: pageMarkdown(corpus, page) },
    }));
    const cr = (await api(baseUrl, token, 'POST', `/v1/spaces/${spaceId}/change-requests`, { subject: `Seed ${b + 1} of ${batches.length}` }, 201)).body;
    await api(baseUrl, token, 'POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, { changes });
    const merged = (await api(baseUrl, token, 'POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`)).body;
    if (merged.result !== 'merge') throw new Error(`seed: change request ${b + 1} answered ${JSON.stringify(merged)}`);
    changeRequests++;
    if ((b + 1) % 5 === 0) log(`${spaceTitle}: seeded ${batch[batch.length - 1]!.index + 1} of ${corpus.pages.length} pages (${changeRequests} change requests merged)`);
  }

  const byPath = await spacePages(baseUrl, token, spaceId);
  if (byPath.size !== corpus.pages.length) throw new Error(`seed: the space has ${byPath.size} pages, expected ${corpus.pages.length}`);
  const pageIds: string[] = [];
  for (const page of corpus.pages) {
    const found = byPath.get(page.path);
    if (!found || found.title !== page.title) throw new Error(`seed: no page "${page.title}" at ${page.path} (found ${JSON.stringify(found)})`);
    pageIds.push(found.id);
  }
  return { organizationId, spaceId, pageIds, changeRequests, seconds: (performance.now() - started) / 1000 };
}

/**
 * The shape whose page count (sections, their chapters and the chapters' pages) is closest to
 * `pages`, with about 10 pages a chapter: 20 -> 2 x 1 x 8, 300 -> 3 x 9 x 10, 1,000 -> the default.
 */
export function shapeForPages(pages: number): ContentShape {
  let best: { shape: ContentShape; miss: number; off: number } | null = null;
  for (let sections = 1; sections <= 20; sections++) {
    for (let chaptersPerSection = 1; chaptersPerSection <= 10; chaptersPerSection++) {
      for (let pagesPerChapter = 1; pagesPerChapter <= 30; pagesPerChapter++) {
        const miss = Math.abs(sections * (1 + chaptersPerSection * (1 + pagesPerChapter)) - pages);
        const off = Math.abs(pagesPerChapter - 10) + Math.abs(chaptersPerSection - 9) / 10;
        if (!best || miss < best.miss || (miss === best.miss && off < best.off)) best = { shape: { sections, chaptersPerSection, pagesPerChapter }, miss, off };
      }
    }
  }
  return best!.shape;
}

/** A seeded space of a benchmark that compares spaces of different sizes. */
export interface SizedSpace {
  /** "1,000 pages". */
  label: string;
  corpus: Corpus;
  seed: ContentSeed;
}

/** One organization and a space per size in `sizes` (pages), each seeded as seedContent does. */
export async function seedSpaces(baseUrl: string, token: string, sizes: readonly number[], log: (...args: unknown[]) => void = () => {}): Promise<{ organizationId: string; spaces: SizedSpace[] }> {
  const organizationId = (await api(baseUrl, token, 'POST', '/v1/orgs', { title: 'Bench spaces org' }, 201)).body.id as string;
  const spaces: SizedSpace[] = [];
  for (const size of sizes) {
    const corpus = buildCorpus(shapeForPages(size));
    const label = `${corpus.pages.length.toLocaleString('en-US')} pages`;
    const seed = await seedContent(baseUrl, token, corpus, log, { organizationId, spaceTitle: `Space of ${label}` });
    log(`${label}: seeded in ${seed.seconds.toFixed(1)} s (${seed.changeRequests} change requests merged)`);
    spaces.push({ label, corpus, seed });
  }
  return { organizationId, spaces };
}
