import { formatZodIssue } from '@heliograph/plugins-sdk';
import Router from '@koa/router';
import { z } from 'zod';
import { AuthInputError, tokenNameSchema, type AuthService } from '../auth/service.js';
import { parseRfc3339 } from '../rfc3339.js';
import { ApiError } from './errors.js';

const BODY_SHAPE = 'the body must be a JSON object: {"name": "...", "expires_at"?: RFC 3339 time}';
const EXPIRES_AT_ERROR = 'expires_at must be an RFC 3339 time such as "2030-01-31T12:00:00Z", or null';

// Strict, so a misspelt "expires_at" cannot silently create a token that never expires.
const createTokenBody = z.strictObject(
  {
    name: tokenNameSchema,
    // Read by the parser every other endpoint uses, so "RFC 3339" means the same everywhere.
    expires_at: z
      .string({ error: EXPIRES_AT_ERROR })
      .nullish()
      .transform((text, ctx) => {
        if (text == null) return null;
        const ms = parseRfc3339(text);
        if (ms === undefined) {
          ctx.addIssue({ code: 'custom', message: EXPIRES_AT_ERROR });
          return z.NEVER;
        }
        return ms;
      }),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}: only name and expires_at are accepted` : BODY_SHAPE,
  },
);

/**
 * POST /api/v1/tokens (the secret is shown once), GET /api/v1/tokens (never the secrets),
 * DELETE /api/v1/tokens/:id (the token stops working from the next request).
 */
export function tokensRoutes(deps: { auth: AuthService }): Router {
  const { auth } = deps;
  const router = new Router();

  router.post('/tokens', async (ctx) => {
    const parsed = createTokenBody.safeParse(ctx.request.body);
    if (!parsed.success) throw new ApiError(400, formatZodIssue(parsed.error.issues[0]!));
    const { name, expires_at } = parsed.data;
    try {
      ctx.body = await auth.createToken({ name, expiresAt: expires_at });
    } catch (err) {
      if (err instanceof AuthInputError) throw new ApiError(err.reason === 'conflict' ? 409 : 400, err.message);
      throw err;
    }
    ctx.status = 201;
  });

  router.get('/tokens', async (ctx) => {
    ctx.body = await auth.listTokens();
  });

  router.delete('/tokens/:id', async (ctx) => {
    const id = ctx.params.id!;
    if (!(await auth.revokeToken(id))) throw new ApiError(404, `no token with id "${id}": GET /api/v1/tokens lists the tokens`);
    ctx.status = 204;
  });

  return router;
}
