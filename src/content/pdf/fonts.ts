/**
 * The fonts a PDF is set in: eight slots (sans and mono, each regular, bold,
 * italic, bold italic), each a face that names a pdfkit font and cleans text
 * for it (win-ansi.ts).
 */
import { sanitize, toWinAnsi } from './win-ansi.ts';

/** TrueType/OpenType font files to embed instead of Helvetica/Courier. */
export interface PdfFonts {
  regular: Uint8Array;
  bold?: Uint8Array;
  italic?: Uint8Array;
  boldItalic?: Uint8Array;
  /** Monospace for code; without it code uses Courier (WinAnsi only). */
  mono?: Uint8Array;
  monoBold?: Uint8Array;
}

export type FontSlot = 'sans' | 'sansBold' | 'sansItalic' | 'sansBoldItalic' | 'mono' | 'monoBold' | 'monoItalic' | 'monoBoldItalic';

const STANDARD_FONTS: Record<FontSlot, string> = {
  sans: 'Helvetica',
  sansBold: 'Helvetica-Bold',
  sansItalic: 'Helvetica-Oblique',
  sansBoldItalic: 'Helvetica-BoldOblique',
  mono: 'Courier',
  monoBold: 'Courier-Bold',
  monoItalic: 'Courier-Oblique',
  monoBoldItalic: 'Courier-BoldOblique',
};

/** A pdfkit font, and what makes text safe to draw with it. */
export interface Face {
  name: string;
  clean: (text: string) => string;
}

/**
 * The face of each slot: the standard fonts (text made WinAnsi), or, with
 * `fonts`, those embedded in `doc` (text kept where the font has a glyph).
 */
export function createFaces(doc: PDFKit.PDFDocument, fonts: PdfFonts | undefined): Record<FontSlot, Face> {
  const standard = (slot: FontSlot): Face => ({ name: STANDARD_FONTS[slot], clean: toWinAnsi });
  const faces = Object.fromEntries(
    (Object.keys(STANDARD_FONTS) as FontSlot[]).map((slot) => [slot, standard(slot)]),
  ) as Record<FontSlot, Face>;
  if (!fonts) return faces;
  const embedded = new Map<Uint8Array, Face>();
  const embed = (bytes: Uint8Array): Face => {
    const known = embedded.get(bytes);
    if (known) return known;
    const name = `Embedded${embedded.size + 1}`;
    doc.registerFont(name, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    doc.font(name);
    // pdfkit keeps the fontkit font of an embedded face at `_font.font`; without it, assume full coverage.
    const fontkitFont = (doc as unknown as { _font?: { font?: { hasGlyphForCodePoint?: (cp: number) => boolean } } })
      ._font?.font;
    const hasGlyph = fontkitFont?.hasGlyphForCodePoint?.bind(fontkitFont);
    const cache = new Map<string, string>();
    const covers = (cp: number) =>
      cp === 0x0a || (cp >= 0x20 && !(cp >= 0x7f && cp < 0xa0) && cp !== 0xad && (hasGlyph ? hasGlyph(cp) : true));
    const face: Face = { name, clean: (text) => sanitize(text.replace(/\r\n?/g, '\n'), covers, cache) };
    embedded.set(bytes, face);
    return face;
  };
  faces.sans = embed(fonts.regular);
  faces.sansBold = embed(fonts.bold ?? fonts.regular);
  faces.sansItalic = embed(fonts.italic ?? fonts.regular);
  faces.sansBoldItalic = embed(fonts.boldItalic ?? fonts.bold ?? fonts.italic ?? fonts.regular);
  if (fonts.mono) {
    faces.mono = embed(fonts.mono);
    faces.monoBold = embed(fonts.monoBold ?? fonts.mono);
    faces.monoItalic = faces.mono;
    faces.monoBoldItalic = faces.monoBold;
  }
  return faces;
}

/** The slot of a run's style. */
export function slotFor(run: { bold?: boolean; italic?: boolean; mono?: boolean }): FontSlot {
  const base = run.mono ? 'mono' : 'sans';
  if (run.bold && run.italic) return `${base}BoldItalic`;
  if (run.bold) return `${base}Bold`;
  if (run.italic) return `${base}Italic`;
  return base;
}
