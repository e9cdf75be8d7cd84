/**
 * One JSON POST with a time limit, and what OpenAI-compatible APIs need
 * around it: the optional providers (translation, the insights model engine)
 * all go through `postJson`, each throwing its own error class (`fail`), so
 * their messages and their handling stay theirs while the mechanism is one.
 */

/** Why a JSON POST failed. */
export type JsonPostFailure = 'http' | 'timeout' | 'network' | 'malformed';

/** Options of `postJson`. */
export interface JsonPostOptions {
  /** The other side's display name, for error messages ("The translation model API"). */
  label: string;
  headers?: Record<string, string>;
  /** Time allowed for the whole exchange, body included. */
  timeoutMs: number;
  /** Aborting it rejects with its reason (not the caller's error). */
  signal?: AbortSignal;
  /** Makes the error thrown for a failure (the caller's own class). */
  fail: (reason: JsonPostFailure, message: string, details: { httpStatus?: number; cause?: unknown }) => Error;
}

/**
 * POSTs JSON and returns the parsed JSON answer of a 2xx. Other statuses
 * throw with the other side's own message when its body has one
 * (`{"error": "..."}`, `{"error": {"message": "..."}}`, `{"message": "..."}`).
 */
export async function postJson(url: string, body: unknown, options: JsonPostOptions): Promise<unknown> {
  const { label, fail } = options;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let status: number;
  let text: string;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
      body: JSON.stringify(body),
      signal,
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.aborted) throw fail('timeout', `${label} did not answer within ${options.timeoutMs} ms`, { cause: error });
    const detail = error instanceof Error ? ((error.cause as { code?: string } | undefined)?.code ?? error.message) : String(error);
    throw fail('network', `${label} could not be reached at ${new URL(url).origin}: ${detail}`, { cause: error });
  }
  if (status < 200 || status > 299) {
    throw fail('http', `${label} answered ${status}: ${errorMessage(text)}`, { httpStatus: status });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw fail('malformed', `${label} answered ${status} with a body that is not JSON: ${snippet(text)}`, { cause: error });
  }
}

function errorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed && typeof parsed === 'object') {
      const { error, message } = parsed as { error?: unknown; message?: unknown };
      if (typeof error === 'string' && error) return error;
      if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
      if (typeof message === 'string' && message) return message;
    }
  } catch {
    // Not JSON: the body itself says what happened.
  }
  return snippet(body) || '(empty body)';
}

/** The start of a body, on one line, for an error message. */
export function snippet(text: string, max = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * The endpoint `path` (`chat/completions`, `embeddings`) of an OpenAI-compatible API's base URL.
 * The base URL is the API root as providers document it, usually ending in `/v1`
 * (`https://api.openai.com/v1`, `http://localhost:11434/v1`): a URL ending in a version segment
 * (`/v1`, `/v4`) gets `/<path>`, a URL already ending in `/<path>` is used as is, and any other
 * URL (`http://localhost:8000`) gets `/v1/<path>`.
 */
export function openAIEndpoint(base: string, path: string): string {
  const url = base.replace(/\/+$/, '');
  if (url.endsWith(`/${path}`)) return url;
  if (/\/v\d+(?:beta\d*|alpha\d*)?$/.test(url)) return `${url}/${path}`;
  return `${url}/v1/${path}`;
}

/** The chat-completions endpoint of an OpenAI-compatible API's base URL (see `openAIEndpoint`). */
export function chatCompletionsUrl(base: string): string {
  return openAIEndpoint(base, 'chat/completions');
}

/** Some models wrap JSON in a Markdown fence even when asked for a JSON object. */
export function stripJsonFence(content: string): string {
  const trimmed = content.trim();
  const fence = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  return fence ? fence[1] : trimmed;
}
