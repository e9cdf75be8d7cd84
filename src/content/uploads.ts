/**
 * The bytes of `insert_files`: decoded from `base64` or fetched from `url`
 * (refusing private addresses, with a size limit and a timeout), then put in
 * the object storage. Runs before the change request's transaction: storage is
 * content-addressed, so bytes of a batch that fails later are simply unused.
 */
import type { AppConfig } from '../config.ts';
import { InvalidInputError } from '../errors/index.ts';
import { imageDimensions } from '../storage/image-dimensions.ts';
import { type ObjectStorage } from '../storage/object-storage.ts';
import type { UploadedFile } from './apply-changes.ts';

/** Largest `base64` file, as GitBook documents it. */
export const MAX_BASE64_BYTES = 1024 * 1024;

export interface FileUploadInput {
  ref?: string | null;
  name?: string | null;
  contentType?: string | null;
  url?: string | null;
  base64?: string | null;
}

/** Strict base64: Buffer.from ignores what it cannot read, so the decoded bytes must encode back to the input. */
function decodeBase64(text: string): Uint8Array | null {
  const compact = text.replace(/\s+/g, '');
  if (compact.length === 0 || compact.length % 4 === 1) return null;
  const bytes = Buffer.from(compact, 'base64');
  const again = bytes.toString('base64').replace(/=+$/, '');
  return again === compact.replace(/=+$/, '') ? bytes : null;
}

const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(\s*;.*)?$/i;

export async function prepareUploads(
  files: FileUploadInput[],
  where: string,
  deps: { storage: ObjectStorage; fetch: AppConfig['fetch'] },
): Promise<UploadedFile[]> {
  const out: UploadedFile[] = [];
  for (const [j, file] of files.entries()) {
    const at = `${where}.files[${j}]`;
    const name = file.name?.trim() ?? '';
    if (!name || name.length > 256) throw new InvalidInputError(`${at}.name: 1 to 256 characters`);
    if (file.contentType && !CONTENT_TYPE.test(file.contentType)) throw new InvalidInputError(`${at}.contentType: not a MIME type`);
    const hasUrl = typeof file.url === 'string' && file.url !== '';
    const hasBase64 = typeof file.base64 === 'string';
    if (hasUrl === hasBase64) throw new InvalidInputError(`${at}: set exactly one of url and base64`);
    let bytes: Uint8Array;
    let contentType = file.contentType ?? null;
    if (hasBase64) {
      if (!contentType) throw new InvalidInputError(`${at}.contentType: required with base64`);
      const decoded = decodeBase64(file.base64!);
      if (!decoded) throw new InvalidInputError(`${at}.base64: not valid base64`);
      if (decoded.byteLength > MAX_BASE64_BYTES) throw new InvalidInputError(`${at}.base64: at most 1 MB`);
      bytes = decoded;
    } else {
      if (file.url!.length > 2048) throw new InvalidInputError(`${at}.url: at most 2048 characters`);
      // undici is loaded by the first remote file, not at the server's start (docs/decisions.md, "Restart").
      const { fetchRemoteFile } = await import('../storage/remote-fetch.ts');
      const fetched = await fetchRemoteFile(file.url!, deps.fetch).catch((error: unknown) => {
        if (error instanceof InvalidInputError) throw new InvalidInputError(`${at}.url: ${error.message}`);
        throw error;
      });
      bytes = fetched.bytes;
      contentType = contentType ?? fetched.contentType?.split(';')[0]?.trim() ?? 'application/octet-stream';
    }
    const { key, size } = await deps.storage.put(bytes);
    const dimensions = contentType!.startsWith('image/') ? imageDimensions(bytes, contentType!) : null;
    out.push({
      ref: file.ref ?? null,
      name,
      contentType: contentType!,
      size,
      storageKey: key,
      width: dimensions?.width ?? null,
      height: dimensions?.height ?? null,
    });
  }
  return out;
}
