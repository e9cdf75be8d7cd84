/** Width and height of a stored image, read from its header with image-size. */
import { imageSize } from 'image-size';

export interface ImageDimensions {
  width: number;
  height: number;
}

/**
 * The display size of `bytes` (JPEG EXIF orientations 5 to 8 swap width and
 * height), or null when they are not an image image-size understands, or
 * `contentType` is known and not `image/*`. Never throws: the bytes may be
 * anything a user uploaded.
 */
export function imageDimensions(bytes: Uint8Array, contentType: string | null): ImageDimensions | null {
  if (contentType !== null && !/^\s*image\//i.test(contentType)) return null;
  if (bytes.byteLength === 0) return null;
  // image-size reads through DataViews that end at the end of the underlying buffer, not of the
  // view: on a view into a larger buffer (Buffer's pool, subarray) a truncated image would be
  // measured from the neighbouring bytes. A copy (not `slice`, a view on a Buffer) makes it the whole buffer.
  const exact = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
  let result: ReturnType<typeof imageSize>;
  try {
    result = imageSize(exact);
  } catch {
    return null;
  }
  const { width, height, orientation } = result;
  if (!Number.isFinite(width) || !Number.isFinite(height) || width <= 0 || height <= 0) return null;
  return orientation !== undefined && orientation >= 5 && orientation <= 8 ? { width: height, height: width } : { width, height };
}
