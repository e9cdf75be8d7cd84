/** imageDimensions on a PNG built here, and on bytes that are no image. */
import { describe, expect, it } from 'vitest';
import { imageDimensions } from '../../src/storage/image-dimensions.ts';
import { png } from '../helpers/png.ts';

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
