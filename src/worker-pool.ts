/**
 * The worker threads CPU-heavy conversions run on (piscina), so the event
 * loop keeps answering while one runs: Markdown to documents and back, PDFs,
 * and Git layouts. A task runs a named export of a worker module (a domain
 * module made of `workerTask`s) and has a deadline counted from when a thread
 * starts it: past it the thread is terminated (piscina starts another when
 * one is needed) and the task fails with a LimitExceededError naming the
 * setting, a 400. A task's InvalidInputError (a Markdown limit) reaches the
 * caller as the same error; anything else the task throws is a bug and stays
 * one.
 *
 * The pool starts no thread before its first task, and threads idle for a
 * minute stop; `close()` stops them all.
 *
 * Worker modules are TypeScript when the service runs from source (tsx,
 * vitest) and JavaScript once compiled: `workerModule` names the sibling file
 * with the caller's own extension, and threads running a `.ts` module load
 * tsx first.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { InvalidInputError, LimitExceededError, ServiceUnavailableError } from './errors/index.ts';

/** Settings of the pool (WORKER_* in src/config.ts). */
export interface WorkerPoolConfig {
  /** Threads at most. */
  threads: number;
  /** Tasks waiting for a thread at most, beyond those running; more are refused with a 503 (WORKER_MAX_QUEUE). */
  maxQueue: number;
  /** Deadline of a task, from when a thread starts it, in milliseconds (WORKER_TASK_TIMEOUT_MS). */
  taskTimeoutMs: number;
}

/** What a worker task answers: its value, or the InvalidInputError it refused its input with. */
type TaskOutcome<O> = { ok: true; value: O } | { ok: false; message: string; setting: string | null };

/** What a task receives: its input, and the port it tells the pool it started on. */
interface TaskMessage<I> {
  input: I;
  started: MessagePort;
}

/** A task function of a worker module, as `workerTask` made it. */
export type WorkerTask<I, O> = (message: TaskMessage<I>) => Promise<TaskOutcome<O>>;

/**
 * A worker module's export running `fn` on a thread: it reports its start (the
 * deadline counts from there) and answers an InvalidInputError as a value, so
 * the caller gets the same error back.
 */
export function workerTask<I, O>(fn: (input: I) => O | Promise<O>): WorkerTask<I, O> {
  return async ({ input, started }) => {
    started.postMessage('started');
    started.close();
    try {
      return { ok: true, value: await fn(input) };
    } catch (error) {
      if (error instanceof InvalidInputError) return { ok: false, message: error.message, setting: error instanceof LimitExceededError ? error.setting : null };
      throw error;
    }
  };
}

/**
 * The worker module `name` (without extension) next to the module whose
 * `import.meta.url` is `from`, with that module's extension: `.ts` from
 * source, `.js` once compiled.
 */
export function workerModule(from: string, name: string): URL {
  const extension = from.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${name}${extension}`, from);
}

/** Which task to run: a worker module and the name of its export. */
export interface TaskRef<I, O> {
  module: URL;
  name: string;
  /** Only carries the task's types. */
  readonly type?: WorkerTask<I, O>;
}

/** A task reference for `workerTask` export `name` of `module` (the type parameter is the export's type). */
export function taskRef<T extends WorkerTask<never, unknown>>(module: URL, name: string): TaskRef<TaskInput<T>, TaskOutput<T>> {
  return { module, name };
}

type TaskInput<T> = T extends WorkerTask<infer I, unknown> ? I : never;
type TaskOutput<T> = T extends WorkerTask<never, infer O> ? O : never;

export interface RunOptions {
  /** What the task does, for the deadline's message ("converting Markdown"). */
  what: string;
  /** Another deadline than the pool's, and the setting that configures it. */
  timeoutMs?: number;
  timeoutSetting?: string;
  /** Stops the task (a cancelled job): the task fails with this signal's reason. */
  signal?: AbortSignal;
  /** Objects moved to the thread instead of copied. */
  transferList?: Transferable[];
}

export interface WorkerPool {
  run<I, O>(task: TaskRef<I, O>, input: I, options: RunOptions): Promise<O>;
  /** Threads running now (0 before the first task). */
  readonly threads: number;
  /** Stops every thread; tasks still running fail. */
  close(): Promise<void>;
}

/** The `--import` that lets a thread load TypeScript modules (tsx's loader), unless the process already has one. */
function typeScriptExecArgv(): string[] {
  if (process.execArgv.some((arg) => arg.includes('tsx'))) return process.execArgv;
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return [...process.execArgv, '--import', loader];
}

export function createWorkerPool(config: WorkerPoolConfig): WorkerPool {
  let piscina: Piscina | null = null;
  let closed = false;
  // Tasks submitted and not settled. Counted here: piscina's own maxQueue leaves out abortable tasks, and all of ours are.
  let inFlight = 0;
  const pool = (module: URL): Piscina => {
    piscina ??= new Piscina({
      minThreads: 0,
      maxThreads: config.threads,
      idleTimeout: 60_000,
      // Tasks do I/O (the Git layout reads and writes stored files): no Atomics wait between them.
      atomics: 'disabled',
      execArgv: module.pathname.endsWith('.ts') ? typeScriptExecArgv() : process.execArgv,
    });
    return piscina;
  };

  return {
    get threads() {
      return piscina?.threads.length ?? 0;
    },

    async run<I, O>(task: TaskRef<I, O>, input: I, options: RunOptions): Promise<O> {
      if (closed) throw new ServiceUnavailableError('The service is shutting down');
      if (inFlight >= config.threads + config.maxQueue) {
        throw new ServiceUnavailableError(`Too many conversions are waiting (${config.maxQueue}, WORKER_MAX_QUEUE); try again shortly`, 5);
      }
      inFlight++;
      const timeoutMs = options.timeoutMs ?? config.taskTimeoutMs;
      const setting = options.timeoutSetting ?? 'WORKER_TASK_TIMEOUT_MS';
      const deadline = new AbortController();
      const signal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
      let timer: NodeJS.Timeout | undefined;
      const { port1, port2 } = new MessageChannel();
      // The deadline starts when a thread takes the task, not while it waits for one.
      port1.once('message', () => {
        timer = setTimeout(() => deadline.abort(), timeoutMs);
      });
      port1.unref();
      const message: TaskMessage<I> = { input, started: port2 };
      try {
        const outcome = (await pool(task.module).run(message, {
          filename: task.module.href,
          name: task.name,
          signal,
          transferList: [port2, ...(options.transferList ?? [])] as never,
        })) as TaskOutcome<O>;
        if (outcome.ok) return outcome.value;
        throw outcome.setting ? new LimitExceededError(outcome.message, outcome.setting) : new InvalidInputError(outcome.message);
      } catch (error) {
        if (deadline.signal.aborted) {
          throw new LimitExceededError(`${options.what} took longer than ${timeoutMs} ms (${setting})`, setting);
        }
        if (options.signal?.aborted) throw options.signal.reason ?? error;
        throw error;
      } finally {
        inFlight--;
        clearTimeout(timer);
        port1.close();
      }
    },

    async close() {
      closed = true;
      const running = piscina;
      piscina = null;
      await running?.destroy();
    },
  };
}
