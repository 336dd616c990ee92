import compress from 'koa-compress';
import Negotiator from 'negotiator';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';

/**
 * Answers smaller than this go as they are: under about one TCP segment, compressing saves
 * no round trip and costs CPU (koa-compress's own default, written out so both paths agree).
 */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/** Brotli at quality 4, koa-compress's default: near gzip's speed, smaller answers. */
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

/** What a client may get: brotli or gzip, as its Accept-Encoding asks; nothing else is offered. */
export type AnswerEncoding = 'br' | 'gzip';

/**
 * JSON and text (the page's HTML, script and style sheet, the Prometheus scrape), never
 * images. No route streams an answer that must flush as it goes (no event stream): one that
 * does must set `ctx.compress = false`.
 */
const COMPRESSIBLE = /^(?:application\/(?:[\w.+-]*\+)?json|text\/[\w.+-]+|application\/javascript)(?:;|$)/i;

/**
 * The app's compression (koa-compress): gzip or br where the client's Accept-Encoding asks
 * for one, for JSON and text of at least {@link COMPRESS_THRESHOLD_BYTES}. A client that
 * names no encoding gets the answer as it is. Answers already encoded (the page's .br/.gz
 * files, which @koa/send picks by the same header) are left alone, as are HEAD, 204/304 and
 * anything marked `Cache-Control: no-transform`. The live stream never reaches it: the
 * WebSocket upgrade is answered on the HTTP server's `upgrade` event, outside koa's chain.
 */
export function compression(): ReturnType<typeof compress> {
  return compress({
    threshold: COMPRESS_THRESHOLD_BYTES,
    filter: (type) => COMPRESSIBLE.test(type),
    br: BROTLI,
    gzip: {},
    // Offered by koa-compress 5 but not here: every client that sends Accept-Encoding takes
    // gzip, zstd is not in every browser yet, and the fast lanes offer only these two.
    deflate: false,
    zstd: false,
  });
}

/** The encodings offered, in koa-compress's order of preference (br before gzip on a tie). */
const OFFERED: AnswerEncoding[] = ['br', 'gzip'];

/**
 * The encoding a fast lane answers with (see app.ts FastLane), negotiated as koa-compress
 * negotiates it (negotiator, with its preference): br or gzip by the client's
 * Accept-Encoding, undefined for the bytes as they are (no header, identity only, or an
 * answer under the threshold).
 */
export function laneEncoding(req: IncomingMessage, size: number): AnswerEncoding | undefined {
  if (!req.headers['accept-encoding'] || size < COMPRESS_THRESHOLD_BYTES) return undefined;
  const chosen = new Negotiator(req).encoding(OFFERED, { preferred: OFFERED });
  return OFFERED.find((encoding) => encoding === chosen);
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Answers up to this size are compressed at once on the event loop (the snapshot: ~20 KB,
 * about a millisecond, once per change), so the requests for a new snapshot wait for no
 * thread; larger ones (long history pages) on libuv's threads.
 */
const INLINE_BYTES = 64 * 1024;

/**
 * Encoded copies of answers kept as Buffers (the snapshot, history's answer cache), each
 * compressed once per encoding and kept only as long as its source Buffer is (a WeakMap): a
 * cached answer is compressed once, not per request.
 */
const encoded = new WeakMap<Buffer, Partial<Record<AnswerEncoding, Buffer | Promise<Buffer>>>>();

export function encodedBytes(body: Buffer, encoding: AnswerEncoding): Buffer | Promise<Buffer> {
  let copies = encoded.get(body);
  if (!copies) encoded.set(body, (copies = {}));
  const kept = copies[encoding];
  if (kept) return kept;
  if (body.length <= INLINE_BYTES)
    return (copies[encoding] = encoding === 'br' ? brotliCompressSync(body, BROTLI) : gzipSync(body));
  const copy = encoding === 'br' ? brotliAsync(body, BROTLI) : gzipAsync(body);
  copies[encoding] = copy;
  // A failure is not kept: the next request tries again.
  const cache = copies;
  copy.then(
    (bytes) => (cache[encoding] = bytes),
    () => delete cache[encoding],
  );
  return copy;
}

/**
 * Answers a fast lane's JSON Buffer with the headers koa's route sends (type, length,
 * nosniff, and `Vary: Accept-Encoding` as koa-compress sets it on every answer of the app):
 * compressed as the client asks, or as it is. Written at once (undefined) when the bytes are
 * at hand (as they are, or a kept or small compressed copy: the lanes' hot path, npm run
 * bench); else a promise that resolves once written and rejects only when compressing
 * failed, before anything was written.
 */
export function sendJson(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> | undefined {
  const encoding = laneEncoding(req, body.length);
  if (!encoding) {
    res.writeHead(200, jsonHeaders(body.length));
    res.end(body);
    return undefined;
  }
  const write = (bytes: Buffer) => {
    // No Content-Length, as koa-compress sends its stream (chunked): the lane's headers stay
    // koa's, header for header (test/api/snapshot-lane.test.ts, history-lane.test.ts).
    const { 'Content-Length': _, ...headers } = jsonHeaders(bytes.length);
    res.writeHead(200, { ...headers, 'Content-Encoding': encoding });
    res.end(bytes);
  };
  let bytes: Buffer | Promise<Buffer>;
  try {
    bytes = encodedBytes(body, encoding);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  if (Buffer.isBuffer(bytes)) {
    write(bytes);
    return undefined;
  }
  return bytes.then(write);
}

function jsonHeaders(length: number): OutgoingHttpHeaders {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': length,
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Accept-Encoding',
  };
}
