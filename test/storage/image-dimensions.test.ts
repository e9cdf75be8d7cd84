/** imageDimensions on a PNG built here, and on bytes that are no image. */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { imageDimensions } from '../../src/storage/image-dimensions.ts';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid RGB PNG of `width` x `height` black pixels. */
function png(width: number, height: number): Uint8Array {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const rows = Buffer.alloc((1 + width * 3) * height); // each row: filter byte 0, then pixels
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('imageDimensions', () => {
  it('reads the width and height of a PNG', () => {
    expect(imageDimensions(png(3, 2), 'image/png')).toEqual({ width: 3, height: 2 });
    expect(imageDimensions(png(640, 1), null)).toEqual({ width: 640, height: 1 });
  });

  it('answers null for bytes that are no image, without throwing', () => {
    expect(imageDimensions(new TextEncoder().encode('definitely not an image'), 'image/png')).toBeNull();
    expect(imageDimensions(new Uint8Array(), 'image/png')).toBeNull();
    expect(imageDimensions(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), null)).toBeNull();
    expect(imageDimensions(Uint8Array.from(png(3, 2).subarray(0, 20)), 'image/png')).toBeNull();
    expect(imageDimensions(Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256), null)).toBeNull();
  });

  it('does not read past the end of a view into a larger buffer', () => {
    const whole = Buffer.from(png(3, 2));
    expect(imageDimensions(whole.subarray(0, 20), 'image/png')).toBeNull();
  });

  it('answers null when the content type says it is not an image', () => {
    expect(imageDimensions(png(3, 2), 'application/pdf')).toBeNull();
  });
});
