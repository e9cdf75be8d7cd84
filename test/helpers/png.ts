/**
 * PNG files encoded by hand (8-bit RGB, or RGBA with `alpha`; filter "none" on every row),
 * for the tests of code that stores, measures or draws images.
 */
import { crc32, deflateSync } from 'node:zlib';

export interface PngOptions {
  /** RGBA instead of RGB. */
  alpha?: boolean;
  /** The channels of the pixel at (x, y); by default a gradient (red by column, green by row, blue 200, alpha 180). */
  pixel?: (x: number, y: number) => readonly number[];
  /** IDAT bytes that are no deflate stream: a broken image with a valid header. */
  corruptData?: boolean;
  /** Filter type 9 (there is none) on every row: a broken image that inflates. */
  badFilter?: boolean;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const gradient = (x: number, y: number) => [(x * 97) & 255, (y * 57) & 255, 200, 180];

/** A PNG chunk: length, type, data, and the CRC of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A `width` x `height` PNG. The same arguments give the same bytes. */
export function png(width: number, height: number, { alpha = false, pixel = gradient, corruptData = false, badFilter = false }: PngOptions = {}): Buffer {
  const channels = alpha ? 4 : 3;
  const stride = 1 + width * channels;
  const raw = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    raw[y * stride] = badFilter ? 9 : 0;
    for (let x = 0; x < width; x++) {
      const value = pixel(x, y);
      for (let c = 0; c < channels; c++) raw[y * stride + 1 + x * channels + c] = value[c] ?? 255;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = alpha ? 6 : 2; // colour type: RGBA or RGB
  const data = corruptData ? Buffer.from('definitely not deflate data') : deflateSync(raw);
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', data), chunk('IEND', Buffer.alloc(0))]);
}
