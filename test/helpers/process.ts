/**
 * A server process started as a user starts it (`npm start`, `node scripts/start.js`), its pino
 * JSON lines collected as they complete, and a free port to give it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** One pino line. */
export interface LogLine {
  level: number;
  msg: string;
  pid: number;
  [key: string]: unknown;
}

export interface ServerProcess {
  child: ChildProcess;
  /** The JSON lines of stdout so far, in order. */
  lines: LogLine[];
  /** Everything written to stdout and stderr so far (for failure messages). */
  output(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the first line (seen or to come) that `match` accepts; rejects if the process exits first. */
  waitForLine(match: (line: LogLine) => boolean): Promise<LogLine>;
  /** Resolves with the exit code (null: a signal) and signal once the process exited and its output was read ('close', not 'exit'). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `command args` in the repository with `env`. */
export function startProcess(command: string, args: string[], env: NodeJS.ProcessEnv): ServerProcess {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: LogLine[] = [];
  let all = '';
  let err = '';
  let pending = '';
  const waiters: Array<{ match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }> = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    all += chunk.toString();
    err += chunk.toString();
  });
  child.stdout!.on('data', (chunk: Buffer) => {
    all += chunk.toString();
    const parts = (pending + chunk.toString()).split('\n');
    pending = parts.pop()!;
    for (const text of parts) {
      if (!text.startsWith('{')) continue;
      const line = JSON.parse(text) as LogLine;
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (!waiter.match(line)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return {
    child,
    lines,
    output: () => all,
    stderr: () => err,
    exited,
    waitForLine: (match) => {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ match, resolve });
        void exited.then(({ code, signal }) => reject(new Error(`${command} ${args.join(' ')} exited (${code ?? signal}) first:\n${all}`)));
      });
    },
  };
}

/** A port free now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** Whether a process with this pid still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
