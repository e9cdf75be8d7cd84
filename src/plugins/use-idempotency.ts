/**
 * `Idempotency-Key` on POST requests (the REST routes and /graphql), as
 * Stripe's API does: the first request with a key runs and its answer (status,
 * Content-Type, Location, body) is stored with the key; a retry of the same
 * request gets that answer again, marked `Idempotent-Replayed: true`, and
 * runs nothing. Keys are per token and kept IDEMPOTENCY_KEY_TTL_SECONDS.
 *
 * - The same key for another method, path or body: 422 (the IETF draft's
 *   answer; Stripe's is a 400). A retry while the first request runs: 409.
 * - An answer is stored once the operation began executing, as Stripe does:
 *   failures before that (malformed or invalid input, authentication) are not,
 *   nor a refusal of the input (400) or a server error (5xx) while nothing was
 *   written, so a retry runs again. A 5xx after a write is stored: running the
 *   request again could do its write twice.
 * - Anonymous requests, other methods and answers that are not JSON (a
 *   stream) are served as if there were no key.
 * - The claim is committed before the request runs and the answer stored
 *   right after it, before it is sent (onResponse). A crash or a database
 *   failure in between leaves the claim without an answer: retries then get
 *   409 until it expires, never a second run (docs/decisions.md, "Idempotency keys").
 */
import { createHash } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { hashToken } from '../auth/viewer.ts';
import type { Db } from '../db/client.ts';
import { type AppError, ConflictError, InvalidInputError, UnexpectedError, UnprocessableContentError } from '../errors/index.ts';
import { isUniqueViolation } from '../errors/prisma.ts';
import { toAppError } from '../errors/to-app-error.ts';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set on an answer replayed from a stored one. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** The headers of an answer stored and replayed with its status and body. */
const STORED_HEADERS = ['content-type', 'location'] as const;
/** Expired keys are deleted at most this often, when a key is claimed. */
const PRUNE_INTERVAL_MS = 60_000;
const TABLE = 'IdempotencyKey';

/** A key this process claimed for a request in progress. */
interface Claim {
  tokenId: string;
  key: string;
  /** The database's write count when the operation began executing; null until then (and then nothing is stored). */
  writesAtStart: number | null;
}

export interface IdempotencyOptions {
  db: Db;
  log: Logger;
  ttlSeconds: number;
  /** Writes an error in the shape the path expects (REST or GraphQL). */
  errorResponse: (request: Request, error: AppError) => Response;
}

export interface Idempotency {
  plugin: Plugin;
  /** The database client's write hook: counts writes, so that a claim can tell whether any happened while it ran. */
  noteWrite(table: string): void;
}

export function createIdempotency(options: IdempotencyOptions): Idempotency {
  const { db, log } = options;
  const claims = new WeakMap<Request, Claim>();
  /**
   * Writes to the database (to tables other than the keys'), by anyone. A claim compares the count
   * at its start and end: "it wrote" may then count a concurrent request's write, which at worst
   * keeps an error a retry could have run again. Telling requests apart (AsyncLocalStorage) would
   * turn on async hooks for every promise of the process on Node 20.
   */
  let writes = 0;
  let lastPrune = 0;

  async function pruneExpired(now: Date): Promise<void> {
    if (now.getTime() - lastPrune < PRUNE_INTERVAL_MS) return;
    lastPrune = now.getTime();
    const { count } = await db.idempotencyKey.deleteMany({ where: { expiresAt: { lte: now } } });
    if (count) log.debug({ count }, 'pruned expired idempotency keys');
  }

  /**
   * The answer to a keyed request before it runs: a replay, an error, or null
   * when it may run (then `request` holds a claim). Also null for a token that
   * is unknown: the request goes on to its 401.
   */
  async function claim(request: Request, key: string, token: string, path: string, ResponseOf: typeof Response): Promise<Response | null> {
    const bodyHash = createHash('sha256').update(await bufferBody(request)).digest('hex');
    const method = request.method.toUpperCase();
    // Twice at most: a concurrent first request may claim the key between the read and the create.
    for (let attempt = 0; ; attempt++) {
      const now = new Date();
      const found = await db.apiToken.findUnique({
        where: { tokenHash: hashToken(token) },
        select: { id: true, idempotencyKeys: { where: { key } } },
      });
      if (!found) return null;
      const existing = found.idempotencyKeys[0];
      if (existing && existing.expiresAt > now) {
        if (existing.method !== method || existing.path !== path || existing.bodyHash !== bodyHash) {
          throw new UnprocessableContentError(
            `This Idempotency-Key was first used for another request (${existing.method} ${existing.path} with another body); a key can only be reused for the same request`,
          );
        }
        if (existing.status === null) {
          throw new ConflictError(
            'A request with this Idempotency-Key has not finished: retry once it has. (If it was interrupted before answering, whether it made its changes is unknown; the key stays taken until it expires.)',
          );
        }
        return new ResponseOf(existing.body, {
          status: existing.status,
          headers: { ...(existing.headers as Record<string, string>), [IDEMPOTENT_REPLAYED_HEADER]: 'true' },
        });
      }
      try {
        await db.$transaction([
          // An expired key is free again: its old answer goes.
          db.idempotencyKey.deleteMany({ where: { tokenId: found.id, key, expiresAt: { lte: now } } }),
          db.idempotencyKey.create({
            data: { tokenId: found.id, key, method, path, bodyHash, expiresAt: new Date(now.getTime() + options.ttlSeconds * 1000) },
          }),
        ]);
      } catch (error) {
        if (attempt === 0 && isUniqueViolation(error)) continue;
        throw error;
      }
      claims.set(request, { tokenId: found.id, key, writesAtStart: null });
      await pruneExpired(now);
      return null;
    }
  }

  /** Stores the answer to a claimed request, or frees the key when it is not to be kept; returns what to send. */
  async function settle(claim: Claim, response: Response, ResponseOf: typeof Response): Promise<Response> {
    const where = { tokenId_key: { tokenId: claim.tokenId, key: claim.key } };
    const contentType = response.headers.get('content-type') ?? '';
    const serverError = response.status >= 500;
    const refused = response.status === 400;
    const storable = response.body === null || /^application\/(graphql-response\+)?json\b/.test(contentType);
    const wrote = claim.writesAtStart !== null && writes !== claim.writesAtStart;
    if (claim.writesAtStart === null || !storable || ((serverError || refused) && !wrote)) {
      try {
        await db.idempotencyKey.deleteMany({ where: { ...where.tokenId_key, status: null } });
      } catch (error) {
        // The key stays taken (409) until it expires: safe, only less convenient.
        log.error({ err: error, key: claim.key }, 'could not free an idempotency key');
      }
      return response;
    }
    const body = response.body === null ? null : await response.text();
    const headers: Record<string, string> = {};
    for (const name of STORED_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    try {
      await db.idempotencyKey.update({ where, data: { status: response.status, headers, body } });
    } catch (error) {
      // The answer still goes out; retries get 409 until the key expires (see the module comment).
      log.error({ err: error, key: claim.key }, 'could not store the answer of an idempotent request');
    }
    return new ResponseOf(body, { status: response.status, headers: response.headers });
  }

  const plugin: Plugin = {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method.toUpperCase() !== 'POST') return;
      const key = request.headers.get(IDEMPOTENCY_KEY_HEADER);
      if (key === null) return;
      const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1];
      try {
        if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
          throw new InvalidInputError(`The Idempotency-Key header must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters long`);
        }
        if (!token) return;
        const answer = await claim(request, key, token, url.pathname + url.search, fetchAPI.Response);
        if (answer) endResponse(answer);
      } catch (error) {
        // Without the key's state the request must not run: a 503 when the database is unavailable
        // (toAppError recognises it), else a 500; the client retries either.
        const appError = toAppError(error);
        if (!appError) log.error({ err: error }, 'could not look up or claim an idempotency key');
        endResponse(options.errorResponse(request, appError ?? new UnexpectedError()));
      }
    },
    onExecute({ args }) {
      const request = (args.contextValue as { request?: Request }).request;
      const claim = request && claims.get(request);
      if (claim) claim.writesAtStart ??= writes;
    },
    async onResponse({ request, response, setResponse, fetchAPI }) {
      const claim = claims.get(request);
      if (!claim) return;
      claims.delete(request);
      setResponse(await settle(claim, response, fetchAPI.Response));
    },
  };

  return {
    plugin,
    noteWrite(table) {
      if (table !== TABLE) writes++;
    },
  };
}

/**
 * Reads the whole body (through any limit another plugin put on it) and makes
 * every reader of `request` (`text()`, `json()`, `formData()`, `body`, ...)
 * serve that copy, so the REST runtime and yoga read it after us. Changed in
 * place: plugins and the runtime key per-request state on this object.
 */
async function bufferBody(request: Request): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  const contentType = request.headers.get('content-type') ?? '';
  const copy = () => bytes.slice();
  const text = async () => new TextDecoder().decode(bytes);
  let stream: ReadableStream<Uint8Array> | undefined;
  Object.defineProperties(request, {
    body: {
      get: () =>
        (stream ??= new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(copy());
            controller.close();
          },
        })),
      configurable: true,
    },
    bodyUsed: { get: () => stream?.locked ?? false, configurable: true },
    bytes: { value: async () => copy(), configurable: true },
    arrayBuffer: { value: async () => copy().buffer, configurable: true },
    text: { value: text, configurable: true },
    json: { value: async () => JSON.parse(await text()), configurable: true },
    blob: { value: async () => new Blob([bytes], { type: contentType }), configurable: true },
    formData: { value: async () => new Response(copy(), { headers: { 'content-type': contentType } }).formData(), configurable: true },
  });
  return bytes;
}
