/**
 * What a URL embeds as (GitBook's Embed): the page is fetched the way every
 * user-given URL is (public addresses only, connection pinned, size and time
 * bounded: storage/remote-fetch.ts) and read with htmlparser2 for its title,
 * site name and icon (`<title>`, Open Graph, `<link rel="icon">`). A page
 * that announces an oEmbed endpoint (`<link rel="alternate"
 * type="application/json+oembed">`) whose answer carries `html` embeds as
 * that HTML (`rich`); anything else as a `link`. A URL that cannot be fetched
 * (down, not found, not HTML) still embeds as a link named by its address.
 */
import { Parser } from 'htmlparser2';
import { InvalidInputError } from '../errors/index.ts';
import { fetchRemoteFile, type RemoteFetchOptions } from '../storage/remote-fetch.ts';

export type Embed = { title: string; site: string; icon?: string } & ({ type: 'link' } | { type: 'rich'; html: string });

/** The most of a page or oEmbed answer read: the head of a page is in its first bytes. */
const MAX_PAGE_BYTES = 1024 * 1024;
const MAX_OEMBED_BYTES = 256 * 1024;
const MAX_URL_LENGTH = 2048;

interface PageFacts {
  title: string | null;
  ogTitle: string | null;
  siteName: string | null;
  icon: string | null;
  oembed: string | null;
}

/** The facts of an HTML page's head that an embed shows. */
export function readPage(html: string): PageFacts {
  const facts: PageFacts = { title: null, ogTitle: null, siteName: null, icon: null, oembed: null };
  let inTitle = false;
  let title = '';
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'title') inTitle = true;
        if (name === 'meta') {
          const property = (attributes.property ?? attributes.name ?? '').toLowerCase();
          const content = attributes.content?.trim();
          if (!content) return;
          if (property === 'og:title') facts.ogTitle ??= content;
          if (property === 'og:site_name') facts.siteName ??= content;
        }
        if (name === 'link' && attributes.href) {
          const rel = (attributes.rel ?? '').toLowerCase().split(/\s+/);
          if (rel.includes('icon') || rel.includes('apple-touch-icon')) facts.icon ??= attributes.href;
          if (rel.includes('alternate') && (attributes.type ?? '').toLowerCase() === 'application/json+oembed') facts.oembed ??= attributes.href;
        }
      },
      ontext(text) {
        if (inTitle) title += text;
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false;
          facts.title ??= title.replace(/\s+/g, ' ').trim() || null;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return facts;
}

/** An absolute http(s) URL from `href` read on `base`; null for anything else. */
function absoluteUrl(href: string, base: URL): string | null {
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/** The URL asked for, checked: an absolute http(s) URL; 400 otherwise. */
export function embedUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidInputError('url: must be an absolute http(s) URL');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || value.length > MAX_URL_LENGTH) throw new InvalidInputError(`url: must be an absolute http(s) URL of at most ${MAX_URL_LENGTH} characters`);
  return url;
}

const decode = (bytes: Uint8Array) => new TextDecoder('utf-8').decode(bytes);

/** The embed of `url` (see the file comment). */
export async function resolveEmbed(value: string, fetch: Omit<RemoteFetchOptions, 'maxBytes'>): Promise<Embed> {
  const url = embedUrl(value);
  const fallback: Embed = { type: 'link', title: url.toString(), site: url.hostname };
  const page = await fetchRemoteFile(url.toString(), { ...fetch, maxBytes: MAX_PAGE_BYTES }).catch(() => null);
  if (!page || !/^\s*(text\/html|application\/xhtml\+xml)\b/i.test(page.contentType ?? '')) return fallback;
  const facts = readPage(decode(page.bytes));
  const icon = facts.icon ? absoluteUrl(facts.icon, url) : null;
  const base = { title: facts.ogTitle ?? facts.title ?? fallback.title, site: facts.siteName ?? url.hostname, ...(icon ? { icon } : {}) };
  const oembedUrl = facts.oembed ? absoluteUrl(facts.oembed, url) : null;
  if (oembedUrl) {
    const answer = await fetchRemoteFile(oembedUrl, { ...fetch, maxBytes: MAX_OEMBED_BYTES }).catch(() => null);
    let oembed: Record<string, unknown> | null = null;
    try {
      oembed = answer ? (JSON.parse(decode(answer.bytes)) as Record<string, unknown>) : null;
    } catch {
      oembed = null;
    }
    if (oembed && typeof oembed === 'object' && typeof oembed.html === 'string' && oembed.html.trim() !== '') {
      return {
        ...base,
        title: typeof oembed.title === 'string' && oembed.title.trim() ? oembed.title.trim() : base.title,
        site: typeof oembed.provider_name === 'string' && oembed.provider_name.trim() ? oembed.provider_name.trim() : base.site,
        type: 'rich',
        html: oembed.html,
      };
    }
  }
  return { ...base, type: 'link' };
}
