/**
 * The Git repository of the jobs benchmark (bench/jobs.ts, issue 7): a
 * GitBook Git Sync layout generated from a seeded PRNG (mulberry32), so every
 * run commits the same files.
 *
 * Default shape (1,000 pages): README.md (the home page) and SUMMARY.md with a
 * 3-level tree of 9 sections (a folder with a README.md each), 10 chapters per
 * section (a sub-folder with a README.md) and 10 pages per chapter:
 * 1 + 9 + 90 + 900 = 1,000 Markdown pages. Every page: YAML frontmatter with a
 * description on about a third of them, a `# Title` (the same as in
 * SUMMARY.md), a few paragraphs of prose with `**bold**` and `inline code`,
 * `##` headings, a bulleted list (sometimes nested) or a numbered one, a
 * fenced code block, a GFM table on some, relative links to 1-3 other pages
 * (a sibling, a page of another chapter or section, sometimes with an
 * anchor-free `../` path), a link to a URL, and an image on some.
 *
 * Images: 50 PNGs (valid, of 96-480 x 64-320 pixels, noisy so that they do
 * not compress to nothing: 5-150 KB), 5 per section in `<section>/images/`
 * and 5 in `.gitbook/assets/`, each used by at least one page (files no page
 * uses are not imported as space files).
 *
 * `changedPages` gives the edit of the incremental import: `count` pages
 * (chosen by the PRNG) with their second paragraph rewritten and a
 * "Changes" section holding a marker word.
 */
import path from 'node:path';
import { png as encodePng } from '../test/helpers/png.ts';
import {
  between,
  editMarker,
  HEADINGS,
  LANGUAGES,
  mulberry32,
  NOUNS,
  paragraph as paragraphOf,
  pick,
  sample,
  seedOf,
  sentence as sentenceOf,
  slug,
  VERBS,
  type Rng,
} from './text.ts';

// ---------------------------------------------------------------------------
// Words

const WORDS = [
  'the', 'a', 'to', 'and', 'of', 'is', 'in', 'for', 'with', 'when', 'your', 'each', 'this', 'that', 'it', 'on', 'by', 'can', 'be', 'as',
  'request', 'server', 'client', 'token', 'space', 'page', 'user', 'value', 'setting', 'field', 'option', 'default', 'error', 'response',
  'file', 'path', 'key', 'account', 'team', 'project', 'service', 'event', 'message', 'record', 'version', 'release', 'change', 'update',
  'cluster', 'node', 'region', 'replica', 'shard', 'index', 'cache', 'queue', 'worker', 'job', 'schedule', 'retry', 'limit', 'quota',
  'payload', 'endpoint', 'route', 'handler', 'plugin', 'module', 'package', 'library', 'script', 'command', 'argument', 'flag', 'variable',
  'secret', 'certificate', 'domain', 'proxy', 'gateway', 'network', 'storage', 'bucket', 'volume', 'snapshot', 'backup', 'restore',
  'migration', 'schema', 'table', 'column', 'row', 'transaction', 'lock', 'connection', 'pool', 'timeout', 'interval', 'threshold', 'metric',
  'dashboard', 'alert', 'log', 'trace', 'span', 'report', 'audit', 'policy', 'role', 'permission', 'member', 'owner', 'invite',
  'usually', 'always', 'never', 'quickly', 'safely', 'automatically', 'manually', 'first', 'then', 'later', 'only', 'also', 'instead',
  'configure', 'enable', 'disable', 'create', 'delete', 'rename', 'move', 'copy', 'share', 'open', 'close', 'send', 'receive', 'store',
  'small', 'large', 'new', 'old', 'current', 'previous', 'next', 'optional', 'required', 'public', 'private', 'internal', 'external',
] as const;

const SECTIONS = ['Getting started', 'Installation', 'Configuration', 'Authentication', 'Data model', 'Integrations', 'Operations', 'Observability', 'Reference'];
const TOPICS = ['Connectors', 'Pipelines', 'Storage', 'Access control', 'Scheduling', 'Notifications', 'Exports', 'Billing', 'Clients', 'Gateways', 'Webhooks', 'Caching'];

const sentence = (rng: Rng, extra: string[] = []) => sentenceOf(rng, WORDS, extra);
const paragraph = (rng: Rng, sentences: number) => paragraphOf(rng, WORDS, sentences);

// ---------------------------------------------------------------------------
// PNG

/** A valid RGB PNG of `width` x `height`: bands of color with noise (`noise` 0..1 of the pixels), so the size varies. */
export function png(rng: Rng, width: number, height: number, noise: number): Buffer {
  const base = [between(rng, 0, 255), between(rng, 0, 255), between(rng, 0, 255)];
  return encodePng(width, height, {
    pixel: (x, y) => {
      const noisy = rng() < noise;
      const band = Math.floor((8 * y) / height);
      return base.map((b) => (noisy ? Math.floor(rng() * 256) : (b + band * 29 + (x >> 4) * 7) & 0xff));
    },
  });
}

// ---------------------------------------------------------------------------
// The repository

export interface RepositoryShape {
  sections: number;
  chaptersPerSection: number;
  pagesPerChapter: number;
  /** Images per section folder, plus this many in .gitbook/assets. */
  imagesPerSection: number;
  sharedImages: number;
}

/** 1 + 9 + 90 + 900 = 1,000 pages, 9 x 5 + 5 = 50 images. */
export const DEFAULT_REPOSITORY_SHAPE: RepositoryShape = { sections: 9, chaptersPerSection: 10, pagesPerChapter: 10, imagesPerSection: 5, sharedImages: 5 };

export interface RepoPage {
  index: number;
  level: 'home' | 'section' | 'chapter' | 'page';
  title: string;
  /** The Markdown file. */
  file: string;
  /** The page path the import gives it (the file's path without `.md`; a README is its folder). */
  path: string;
  parent: number | null;
  /** Pages it links to (relative links). */
  links: number[];
  /** Images it shows (repository paths). */
  images: string[];
  /** Has a frontmatter description. */
  description: string | null;
  /** A sentence of its first paragraph (plain words), to find in the imported Markdown. */
  probe: string;
}

export interface Repository {
  shape: RepositoryShape;
  files: Record<string, string | Uint8Array>;
  pages: RepoPage[];
  images: string[];
  markdownBytes: number;
  imageBytes: number;
}

function pageText(rng: Rng, page: RepoPage, pages: RepoPage[], edit: string | null): { text: string; probe: string } {
  const [h1, h2, h3] = sample(rng, HEADINGS, 3) as [string, string, string];
  const probe = sentence(rng);
  const intro = `${probe} ${sentence(rng, ['**important**'])} ${sentence(rng, ['`config.yaml`'])}`;
  const parts: string[] = [];
  if (page.description) parts.push(`---\ndescription: ${page.description}\n---`);
  parts.push(`# ${page.title}`, intro, `## ${h1}`, paragraph(rng, 2));
  if (rng() < 0.7) {
    const items = Array.from({ length: between(rng, 3, 5) }, () => `- ${sentence(rng)}`);
    if (rng() < 0.3) items.splice(1, 0, `  - ${sentence(rng)}`, `  - ${sentence(rng)}`);
    parts.push(items.join('\n'));
  } else {
    parts.push(Array.from({ length: between(rng, 3, 5) }, (_, i) => `${i + 1}. ${sentence(rng)}`).join('\n'));
  }
  parts.push(`## ${h2}`, edit === null ? paragraph(rng, 3) : `${paragraph(rng, 2)} This paragraph was rewritten (${edit}).`);
  const lang = pick(rng, LANGUAGES);
  const code = Array.from({ length: between(rng, 3, 8) }, () => `${pick(rng, WORDS)}_${pick(rng, WORDS)}: ${pick(rng, WORDS)}`).join('\n');
  parts.push(`\`\`\`${lang}\n${code}\n\`\`\``);
  const from = path.posix.dirname(page.file);
  const links = page.links.map((i) => `[${pages[i]!.title}](${path.posix.relative(from, pages[i]!.file)})`);
  parts.push(`See ${links.join(', ')} and [the API reference](https://example.com/docs/${slug(page.title)}).`);
  for (const image of page.images) parts.push(`![${pick(rng, NOUNS)} diagram](${path.posix.relative(from, image)})`);
  if (rng() < 0.2) {
    const rows = Array.from({ length: between(rng, 2, 4) }, () => `| \`${pick(rng, WORDS)}\` | ${pick(rng, ['string', 'number', 'boolean'])} | ${sentence(rng)} |`);
    parts.push(['| Name | Type | Description |', '| --- | --- | --- |', ...rows].join('\n'));
  }
  parts.push(`## ${h3}`, paragraph(rng, 2));
  if (edit !== null) parts.push('## Changes', `Updated in ${edit}: ${sentence(rng)}`);
  return { text: `${parts.join('\n\n')}\n`, probe };
}

export function buildRepository(shape: RepositoryShape = DEFAULT_REPOSITORY_SHAPE): Repository {
  const pages: RepoPage[] = [];
  const add = (level: RepoPage['level'], title: string, file: string, parent: number | null) => {
    const index = pages.length;
    const dir = path.posix.dirname(file);
    const p: RepoPage = {
      index,
      level,
      title,
      file,
      path: file === 'README.md' ? '' : file.endsWith('/README.md') ? dir : file.replace(/\.md$/, ''),
      parent,
      links: [],
      images: [],
      description: null,
      probe: '',
    };
    pages.push(p);
    return p;
  };
  add('home', 'Welcome', 'README.md', null);
  for (let s = 0; s < shape.sections; s++) {
    const sTitle = SECTIONS[s % SECTIONS.length]! + (s >= SECTIONS.length ? ` ${Math.floor(s / SECTIONS.length) + 1}` : '');
    const sDir = slug(sTitle);
    const section = add('section', sTitle, `${sDir}/README.md`, null);
    const topics = sample(mulberry32(seedOf('topics', s)), TOPICS, shape.chaptersPerSection);
    for (let c = 0; c < shape.chaptersPerSection; c++) {
      const cTitle = topics[c] ?? `Topic ${c + 1}`;
      const cDir = `${sDir}/${slug(cTitle)}`;
      const chapter = add('chapter', cTitle, `${cDir}/README.md`, section.index);
      const titles = sample(mulberry32(seedOf('titles', s, c)), VERBS.flatMap((v) => NOUNS.map((n) => `${v} ${n}`)), shape.pagesPerChapter);
      for (const title of titles) add('page', title, `${cDir}/${slug(title)}.md`, chapter.index);
    }
  }

  // Links and descriptions.
  const rng = mulberry32(seedOf('links'));
  for (const page of pages) {
    if (rng() < 0.33) page.description = sentence(rng).replace(/[,.]/g, '');
    const siblings = pages.filter((p) => p.parent === page.parent && p.index !== page.index && page.parent !== null);
    const targets = new Set<number>();
    if (siblings.length) targets.add(pick(rng, siblings).index);
    if (rng() < 0.7) targets.add(between(rng, 0, pages.length - 1));
    if (rng() < 0.3) targets.add(between(rng, 0, pages.length - 1));
    targets.delete(page.index);
    page.links = [...targets];
  }

  // Images: used by a page of their section (or, for the shared ones, by the home and section pages).
  const files: Record<string, string | Uint8Array> = {};
  const images: string[] = [];
  let imageBytes = 0;
  const imageRng = mulberry32(seedOf('images'));
  const addImage = (file: string) => {
    const bytes = png(imageRng, between(imageRng, 96, 480), between(imageRng, 64, 320), 0.05 + 0.6 * imageRng());
    files[file] = bytes;
    images.push(file);
    imageBytes += bytes.length;
  };
  const sections = pages.filter((p) => p.level === 'section');
  for (const section of sections) {
    const dir = path.posix.dirname(section.file);
    const inSection = pages.filter((p) => p.level === 'page' && p.file.startsWith(`${dir}/`));
    for (let k = 1; k <= shape.imagesPerSection; k++) {
      const file = `${dir}/images/figure-${k}.png`;
      addImage(file);
      for (const user of sample(imageRng, inSection, between(imageRng, 1, 3))) user.images.push(file);
    }
  }
  for (let k = 1; k <= shape.sharedImages; k++) {
    const file = `.gitbook/assets/shared-${k}.png`;
    addImage(file);
    const users = [pages[0]!, ...sample(imageRng, sections, 1)];
    for (const user of users) if (!user.images.includes(file)) user.images.push(file);
  }

  let markdownBytes = 0;
  for (const page of pages) {
    const { text, probe } = pageText(mulberry32(seedOf('page', page.index)), page, pages, null);
    page.probe = probe;
    files[page.file] = text;
    markdownBytes += Buffer.byteLength(text);
  }

  const summary = ['# Table of contents', ''];
  const depth = (p: RepoPage): number => (p.parent === null ? 0 : depth(pages[p.parent]!) + 1);
  for (const page of pages) summary.push(`${'  '.repeat(depth(page))}* [${page.title}](${page.file})`);
  files['SUMMARY.md'] = `${summary.join('\n')}\n`;
  markdownBytes += Buffer.byteLength(files['SUMMARY.md'] as string);

  return { shape, files, pages, images, markdownBytes, imageBytes };
}

/** The marker word an edit `label` leaves in page `index`. */

/** The files of `count` changed pages (the same pages for the same `label`); pages chosen among the leaf pages. */
export function changedPages(repo: Repository, count: number, label: string): { files: Record<string, string>; pages: RepoPage[] } {
  const rng = mulberry32(seedOf('changed', count));
  const chosen = sample(rng, repo.pages.filter((p) => p.level === 'page'), count).sort((a, b) => a.index - b.index);
  const files: Record<string, string> = {};
  for (const page of chosen) files[page.file] = pageText(mulberry32(seedOf('page', page.index)), page, repo.pages, editMarker(label, page.index)).text;
  return { files, pages: chosen };
}

/**
 * A commit renaming the file of a leaf page others link to (`<name>.md` -> `<name>-<label>.md`,
 * SUMMARY.md following), the linking pages' files left as they are: their links now point at a
 * missing file, which the import keeps as URLs. The page is one that `avoid` pages neither are nor
 * link to. Gives the changes (null: a removed file), the repository as it is after them (the
 * page at its new path) and the pages that link to it.
 */
export function renamedPage(
  repo: Repository,
  label: string,
  avoid: readonly RepoPage[] = [],
): { files: Record<string, string | null>; repo: Repository; page: RepoPage; linkedFrom: RepoPage[] } {
  const avoided = new Set(avoid.flatMap((p) => [p.index, ...p.links]));
  const linkers = (target: RepoPage) => repo.pages.filter((p) => p.links.includes(target.index));
  const page = repo.pages.find((p) => p.level === 'page' && !avoided.has(p.index) && linkers(p).length >= 2 && linkers(p).every((l) => !avoided.has(l.index)))!;
  const file = page.file.replace(/\.md$/, `-${label}.md`);
  const summary = (repo.files['SUMMARY.md'] as string).replace(`](${page.file})`, `](${file})`);
  const moved: RepoPage = { ...page, file, path: file.replace(/\.md$/, '') };
  const files = { ...repo.files, [file]: repo.files[page.file]!, 'SUMMARY.md': summary };
  delete files[page.file];
  return {
    files: { [page.file]: null, [file]: repo.files[page.file] as string, 'SUMMARY.md': summary },
    repo: { ...repo, files, pages: repo.pages.map((p) => (p.index === page.index ? moved : p)) },
    page: moved,
    linkedFrom: linkers(page),
  };
}
