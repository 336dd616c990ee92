import { assertJsonDepth, JsonTooDeepError } from '@heliograph/plugins-sdk';
import type { Context, Next } from 'koa';
import { ApiError } from './errors.js';

/**
 * Deepest nesting a request body may have. JSON.parse copes with any depth, but what walks
 * the result (zod, JSON.stringify when plugins.json is saved) overflows the stack at a few
 * thousand levels; no request of this API nests past a handful.
 */
export const MAX_BODY_DEPTH = 32;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/**
 * Parses small JSON request bodies into `ctx.request.body`.
 *
 * Bodies are JSON only (415 otherwise, before a byte is read). A cross-site HTML form can
 * post `text/plain`, form-encoded and multipart bodies without the browser asking first; it
 * cannot post `application/json`. A request without a body and without a content type
 * passes, so a plain DELETE works.
 *
 * Written here rather than taken from @koa/bodyparser: that package brings 22 others (co-body,
 * qs, iconv-lite...) for form and text bodies this API never accepts; the API only ever
 * takes a small UTF-8 JSON object.
 */
export function jsonBody(options: { limitBytes: number }) {
  return async function jsonBody(ctx: Context, next: Next): Promise<void> {
    if (!BODY_METHODS.has(ctx.method)) {
      await next();
      return;
    }
    const type = ctx.get('content-type');
    const declared = Number(ctx.get('content-length') || 0);
    const hasBody = declared > 0 || ctx.get('transfer-encoding') !== '';
    if ((type !== '' || hasBody) && !JSON_TYPE.test(type)) {
      throw new ApiError(
        'BODY_NOT_JSON',
        `the body must be JSON sent with "Content-Type: application/json"${type ? `, not "${type.slice(0, 100)}"` : ''}`,
      );
    }
    if (declared > options.limitBytes)
      throw new ApiError('BODY_TOO_LARGE', `the body is larger than ${options.limitBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > options.limitBytes)
        throw new ApiError('BODY_TOO_LARGE', `the body is larger than ${options.limitBytes} bytes`);
      chunks.push(chunk as Buffer);
    }
    if (size === 0) {
      ctx.request.body = undefined;
      await next();
      return;
    }
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      assertJsonDepth(text, MAX_BODY_DEPTH, 'the body');
      ctx.request.body = JSON.parse(text) as unknown;
    } catch (err) {
      if (err instanceof JsonTooDeepError) throw new ApiError('BODY_MALFORMED', err.message);
      throw new ApiError('BODY_MALFORMED', 'the body is not valid JSON');
    }
    await next();
  };
}

declare module 'koa' {
  interface Request {
    body?: unknown;
  }
}
