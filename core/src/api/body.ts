import { assertJsonDepth, JsonTooDeepError } from '@heliograph/plugins-sdk';
import type { Context, Next } from 'koa';
import { ApiError } from './errors.js';

/**
 * Deepest nesting a request body may have. JSON.parse copes with any depth, but what walks
 * the result (zod, JSON.stringify when plugins.json is saved) overflows the stack at a few
 * thousand levels; no request of this API nests past a handful.
 */
export const MAX_BODY_DEPTH = 32;

/**
 * Parses small JSON request bodies into `ctx.request.body`.
 *
 * Written here rather than taken from @koa/bodyparser: that package brings 22 others (co-body,
 * qs, iconv-lite...) for form and text bodies this API never accepts; the API only ever
 * takes a small UTF-8 JSON object.
 */
export function jsonBody(options: { limitBytes: number }) {
  return async function jsonBody(ctx: Context, next: Next): Promise<void> {
    if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'DELETE') {
      await next();
      return;
    }
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > options.limitBytes) throw new ApiError(413, `the body is larger than ${options.limitBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > options.limitBytes) throw new ApiError(413, `the body is larger than ${options.limitBytes} bytes`);
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
      if (err instanceof JsonTooDeepError) throw new ApiError(400, err.message);
      throw new ApiError(400, 'the body is not valid JSON');
    }
    await next();
  };
}

declare module 'koa' {
  interface Request {
    body?: unknown;
  }
}
