// What a build of src/ compiled, cheaply (a few milliseconds for the whole tree): the number of
// files, their total size and the newest modification time. Plain JavaScript: `npm start`
// (scripts/start.js) reads it without a TypeScript loader.
import fs from 'node:fs';
import path from 'node:path';

/** The file, in dist/, holding the stamp of the sources it was built from. */
export const SOURCES_STAMP = '.sources.json';

/** @param {string} dir @returns {{ files: number, bytes: number, newestMs: number }} */
export function sourcesStamp(dir) {
  const stamp = { files: 0, bytes: 0, newestMs: 0 };
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const stat = fs.statSync(path.join(entry.parentPath, entry.name));
    stamp.files += 1;
    stamp.bytes += stat.size;
    stamp.newestMs = Math.max(stamp.newestMs, Math.floor(stat.mtimeMs));
  }
  return stamp;
}
