/**
 * The images a PDF embeds: every distinct image ref of the documents is
 * loaded once (at most IMAGE_CONCURRENCY at a time) before layout, and only
 * structurally valid PNG and JPEG bytes are kept; anything else renders as
 * its alt text.
 */
import { inflateSync } from 'node:zlib';
import { type ContentRef, type JSONDocument, type JSONNode } from '../document/model.ts';
import { childNodes, documentNodes, fragmentsOf } from './document-text.ts';

const IMAGE_CONCURRENCY = 4;
/** Largest image we decode to check it (width x height), against decompression bombs. */
const MAX_IMAGE_PIXELS = 25_000_000;

export interface CheckedImage {
  bytes: Buffer;
  kind: 'png' | 'jpeg';
}

/** The key an image ref is loaded and looked up by: its fields, in a stable order. */
export function imageRefKey(ref: unknown): string | null {
  if (!ref || typeof ref !== 'object') return null;
  const r = ref as Record<string, unknown>;
  if (typeof r.kind !== 'string') return null;
  return JSON.stringify(Object.keys(r).sort().map((k) => [k, r[k]]));
}

/** The checked bytes of every image (block `image` or `drawing`) of the documents, by `imageRefKey`; null when unusable. */
export async function loadImages(
  documents: (JSONDocument | null)[],
  loadImage: ((ref: ContentRef) => Promise<Uint8Array | null>) | undefined,
): Promise<Map<string, CheckedImage | null>> {
  const result = new Map<string, CheckedImage | null>();
  if (!loadImage) return result;
  const refs = new Map<string, ContentRef>();
  const visit = (node: JSONNode) => {
    if (node.object === 'block' && (node.type === 'image' || node.type === 'drawing')) {
      const ref = node.data?.ref;
      const key = imageRefKey(ref);
      if (key && !refs.has(key)) refs.set(key, ref as ContentRef);
    }
    for (const child of childNodes(node)) visit(child);
    for (const fragment of fragmentsOf(node)) visit(fragment);
  };
  for (const document of documents) for (const node of documentNodes(document)) visit(node);

  const queue = [...refs];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [key, ref] = next;
      try {
        const bytes = await loadImage(ref);
        result.set(key, bytes instanceof Uint8Array ? checkImage(bytes) : null);
      } catch {
        result.set(key, null);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(IMAGE_CONCURRENCY, queue.length) }, worker));
  return result;
}

function checkImage(data: Uint8Array): CheckedImage | null {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return { bytes, kind: 'jpeg' };
  }
  if (isDecodablePng(bytes)) return { bytes, kind: 'png' };
  return null;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const PNG_DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
const ADAM7: [number, number, number, number][] = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

/**
 * Whether pdfkit (png-js) can embed this PNG correctly. Corrupt data must be
 * refused here, not left to pdfkit: png-js decodes images with an alpha
 * channel, indexed transparency or interlacing in a zlib callback, where an
 * error (bad deflate data, a bad filter byte) is thrown uncaught and takes the
 * process down; and its chunk reader can loop on a bad chunk length. So this
 * walks the chunks, inflates the image data and checks every scanline's filter
 * byte. Sub-byte-depth images on that decoding path (e.g. a 4-bit palette with
 * transparency) and interlaced images smaller than 8x8 are refused too: png-js
 * mis-decodes them (wrong transparency, misaligned passes that can hit a "bad
 * filter" throw). Refused images render as their alt text.
 */
function isDecodablePng(b: Buffer): boolean {
  if (b.length < 8 || PNG_SIGNATURE.some((v, i) => b[i] !== v)) return false;
  let pos = 8;
  let header: { width: number; height: number; depth: number; colorType: number; interlace: number } | null = null;
  let palette = false;
  let transparency = false;
  let ended = false;
  const idat: Buffer[] = [];
  while (pos + 12 <= b.length) {
    const length = b.readUInt32BE(pos);
    const type = b.toString('latin1', pos + 4, pos + 8);
    const start = pos + 8;
    const next = start + length + 4;
    if (next > b.length) return false;
    if (!header && type !== 'IHDR') return false;
    if (type === 'IHDR') {
      if (length !== 13 || header) return false;
      header = {
        width: b.readUInt32BE(start),
        height: b.readUInt32BE(start + 4),
        depth: b[start + 8]!,
        colorType: b[start + 9]!,
        interlace: b[start + 12]!,
      };
      if (b[start + 10] !== 0 || b[start + 11] !== 0) return false;
    } else if (type === 'PLTE') palette = true;
    else if (type === 'tRNS') transparency = true;
    else if (type === 'IDAT') idat.push(b.subarray(start, start + length));
    else if (type === 'IEND') {
      ended = true;
      break;
    }
    pos = next;
  }
  if (!header || !ended || idat.length === 0) return false;
  const { width, height, depth, colorType, interlace } = header;
  const channels = PNG_CHANNELS[colorType];
  if (!channels || !PNG_DEPTHS[colorType]!.includes(depth) || (interlace !== 0 && interlace !== 1)) return false;
  if (width < 1 || height < 1 || width * height > MAX_IMAGE_PIXELS) return false;
  if (colorType === 3 && !palette) return false;
  const decodedAsync = colorType === 4 || colorType === 6 || interlace === 1 || (colorType === 3 && transparency);
  if (decodedAsync && depth < 8) return false;
  if (interlace === 1 && (width < 8 || height < 8)) return false;

  const bitsPerPixel = depth * channels;
  const passes: [number, number][] =
    interlace === 1
      ? ADAM7.map(([x0, y0, dx, dy]) => [Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)])
      : [[width, height]];
  let expected = 0;
  for (const [w, h] of passes) expected += h * (1 + Math.ceil((w * bitsPerPixel) / 8));
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat), { maxOutputLength: expected + 65_536 });
  } catch {
    return false;
  }
  if (raw.length < expected) return false;
  let at = 0;
  for (const [w, h] of passes) {
    const rowBytes = Math.ceil((w * bitsPerPixel) / 8);
    for (let row = 0; row < h; row++) {
      if (raw[at]! > 4) return false;
      at += 1 + rowBytes;
    }
  }
  return true;
}
