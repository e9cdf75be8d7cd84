/**
 * The fonts PDFs are printed with: DejaVu Sans and Sans Mono (npm
 * `dejavu-fonts-ttf`, a free licence), so Latin, Greek, Cyrillic and common
 * symbols print as themselves rather than as '?' (pdfkit's built-in fonts only
 * cover Latin-1). Read once per process: they are static files of the package.
 */
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { PdfFonts } from './fonts.ts';

const require = createRequire(import.meta.url);
const file = (name: string) => fs.readFile(require.resolve(`dejavu-fonts-ttf/ttf/${name}`));

let fonts: Promise<PdfFonts> | undefined;

export function pdfFonts(): Promise<PdfFonts> {
  fonts ??= Promise.all([
    file('DejaVuSans.ttf'),
    file('DejaVuSans-Bold.ttf'),
    file('DejaVuSans-Oblique.ttf'),
    file('DejaVuSans-BoldOblique.ttf'),
    file('DejaVuSansMono.ttf'),
    file('DejaVuSansMono-Bold.ttf'),
  ]).then(([regular, bold, italic, boldItalic, mono, monoBold]) => ({ regular, bold, italic, boldItalic, mono, monoBold }));
  return fonts;
}
