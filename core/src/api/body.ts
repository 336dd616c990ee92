import type { Context, Next } from 'koa';
import { ApiError } from './errors.js';

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
    try {
      ctx.request.body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    } catch {
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
