/**
 * Child-process entry of bench/markdown.ts: reads `{ module, markdown, runs }`
 * as JSON on stdin, converts the Markdown with the markdownToDocument of
 * `module` (this checkout's or another's) `runs` times, and prints the least
 * wall and CPU time, or the setting that refused it, as JSON.
 */
import { pathToFileURL } from 'node:url';

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const { module, markdown, runs } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { module: string; markdown: string; runs: number };
const { markdownToDocument } = (await import(pathToFileURL(module).href)) as { markdownToDocument: (markdown: string) => unknown };
let wallMs = Infinity;
let cpuMs = Infinity;
let refused: string | null = null;
let error: string | null = null;
for (let i = 0; i < runs && !refused && !error; i++) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  try {
    markdownToDocument(markdown);
  } catch (e) {
    const setting = (e as { setting?: unknown }).setting;
    if (typeof setting === 'string') refused = setting;
    else error = String(e).slice(0, 120);
  }
  const used = process.cpuUsage(cpu);
  wallMs = Math.min(wallMs, performance.now() - start);
  cpuMs = Math.min(cpuMs, (used.user + used.system) / 1000);
}
process.stdout.write(JSON.stringify({ wallMs, cpuMs, refused, error }));
